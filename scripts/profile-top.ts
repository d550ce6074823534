/**
 * Summarises a V8 CPU profile (`node --cpu-prof`, or `BENCH_PROFILE=dir npm run bench`): where the
 * time went, by function (self time) and by package, as shares of the busy (non-idle) time.
 *
 *   npx tsx scripts/profile-top.ts /tmp/prof/CPU.*.cpuprofile [--top 25]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** `node_modules/@trpc/server/...` → `@trpc/server`; the project's own files → `src/...`; Node's → `node:`. */
function packageOf(url: string): string {
  const inModules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (inModules) return inModules[1]!;
  if (url.startsWith('node:')) return 'node:internal';
  const own = /\/(src|scripts)\/(.+)$/.exec(url);
  if (own) return `${own[1]}/${own[2]!.split('/')[0]}`;
  return url ? 'other' : '(native/gc)';
}

const files = process.argv.slice(2).filter((a) => !a.startsWith('--') && !/^\d+$/.test(a));
const topAt = process.argv.indexOf('--top');
const top = topAt >= 0 ? Number(process.argv[topAt + 1]) : 25;
const byFunction = new Map<string, number>();
const byPackage = new Map<string, number>();
let busy = 0;
for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  profile.samples.forEach((id, i) => {
    const node = nodes.get(id);
    if (!node) return;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)' || functionName === '(program)') return;
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    busy += ms;
    const name = `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/(src|scripts)\//, '$1/')}:${lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
    const pkg = packageOf(url);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + ms);
  });
}
const table = (m: Map<string, number>, n: number) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, ms]) => ({ share: `${((100 * ms) / busy).toFixed(1)}%`, ms: Math.round(ms), name }));
console.log(`busy time: ${Math.round(busy)} ms over ${files.length} profile(s)`);
console.table(table(byPackage, 15));
console.table(table(byFunction, top));
