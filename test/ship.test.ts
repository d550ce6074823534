import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { send } from './helpers/http.ts';
import { freePort } from './helpers/ports.ts';

/**
 * The shipped forms of hourbook, built as a user would: the Dockerfile's steps run on this machine
 * (no Docker daemon here), and the npm tarball installed into an empty folder. Slow: each compiles
 * better-sqlite3 and installs from the npm registry.
 */

const exec = promisify(execFile);
/**
 * The environment for npm in another folder. A test run by `npm test` inherits npm_config_* from
 * it, among them npm_config_local_prefix: an `npm ci` there would act on this checkout instead.
 */
const cleanEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k))),
  ...extra,
});
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'hourbook-ship-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) killGroup(child, 'SIGKILL');
  rmSync(work, { recursive: true, force: true });
}, 300_000);

/** Signals a started command and whatever it started (npx runs the bin in a child of its own). */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-(child.pid as number), signal);
  } catch {
    // already gone
  }
}

const registryAnswers = (() => {
  try {
    execFileSync('npm', ['ping'], { stdio: 'ignore', timeout: 20_000, env: cleanEnv() });
    return true;
  } catch {
    return false;
  }
})();
if (!registryAnswers) console.log('ship.test.ts skipped: the npm registry does not answer (npm ping), so nothing can be installed');

interface Instruction {
  op: string;
  args: string;
}

/** The Dockerfile as stages of instructions (comments dropped, continued lines joined). */
function dockerStages(text: string): { name: string; workdir: string; env: Record<string, string>; steps: Instruction[] }[] {
  const lines = text.replace(/\\\n/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const stages: { name: string; workdir: string; env: Record<string, string>; steps: Instruction[] }[] = [];
  for (const line of lines) {
    const [op = '', ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    if (op === 'FROM') stages.push({ name: /\sAS\s+(\S+)/i.exec(args)?.[1] ?? `stage${stages.length}`, workdir: '/', env: {}, steps: [] });
    else stages.at(-1)?.steps.push({ op, args });
  }
  return stages;
}

/** The build context: the checkout's files (tracked and new, not git-ignored) minus .dockerignore. */
function contextFiles(): string[] {
  const patterns = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const ignored = (file: string) =>
    patterns.some((p) => {
      if (p.includes('/')) return file === p || file.startsWith(`${p}/`);
      const re = new RegExp(`^${p.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
      return file.split('/').some((segment) => re.test(segment));
    });
  const listed = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
  return listed.filter((f) => !ignored(f) && existsSync(join(ROOT, f)));
}

/** Runs the instructions of one stage in `dir`, which stands for the stage's WORKDIR. */
async function runStage(stage: ReturnType<typeof dockerStages>[number], dir: string, from: Record<string, { dir: string; workdir: string }>, log: string[]) {
  mkdirSync(dir, { recursive: true });
  for (const { op, args } of stage.steps) {
    if (op === 'WORKDIR') stage.workdir = args;
    else if (op === 'ENV') for (const m of args.matchAll(/(\w+)=(\S+)/g)) stage.env[m[1] as string] = m[2] as string;
    else if (op === 'COPY') {
      const parts = args.split(/\s+/);
      const fromStage = parts[0]?.startsWith('--from=') ? from[parts.shift()!.slice('--from='.length)] : undefined;
      const dest = join(dir, parts.pop() as string);
      for (const source of parts) {
        if (fromStage) cpSync(join(fromStage.dir, source.replace(new RegExp(`^${fromStage.workdir}/?`), '')), dest, { recursive: true });
        else if (source === '.') for (const f of contextFiles()) cpSync(join(ROOT, f), join(dest, f), { recursive: true });
        else cpSync(join(ROOT, source), join(dest, source), { recursive: true });
      }
    } else if (op === 'RUN') {
      // System packages (the compiler) are the machine's own here; the runtime stage's RUN prepares /data and its owner.
      if (args.startsWith('apt-get') || args.includes('/data')) {
        log.push(`not run on this machine: RUN ${args}`);
        continue;
      }
      await exec('sh', ['-c', args], { cwd: dir, env: cleanEnv(stage.env), maxBuffer: 64 * 1024 * 1024 });
      log.push(`ran: RUN ${args}`);
    }
  }
}

const jsonArgs = (args: string) => JSON.parse(args.slice(args.indexOf('['))) as string[];

async function until(check: () => Promise<boolean>, what: string, ms = 60_000): Promise<void> {
  const started = Date.now();
  while (!(await check().catch(() => false))) {
    if (Date.now() - started > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function start(command: string[], cwd: string, env: Record<string, string>): { child: ChildProcess; output: () => string } {
  const child = spawn(command[0] as string, command.slice(1), { cwd, env: cleanEnv(env), detached: true });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  return { child, output: () => output };
}

const stop = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    killGroup(child, 'SIGTERM');
  });

/** What an operator checks on a fresh install: a workspace, an API call, the API docs with their assets. */
async function exercise(url: string, cli: (...args: string[]) => Promise<string>): Promise<void> {
  const created = JSON.parse(await cli('workspace', 'create', 'shipped', '--owner-email', 'o@shipped.test', '--json'));
  const members = await send(url, 'GET', '/api/external/v2/team-members', { host: 'shipped.localhost', key: created.api_key, headers: { accept: 'application/json' } });
  expect(members.status).toBe(200);
  expect(members.body.team_members[0].email).toBe('o@shipped.test');
  const docs = await send(url, 'GET', '/docs/');
  expect(docs.status).toBe(200);
  expect((await send(url, 'GET', '/docs/swagger-ui.css')).status).toBe(200);
}

describe.skipIf(!registryAnswers)('shipping hourbook', () => {
  it("the Dockerfile's build steps give a runtime tree that serves and passes its HEALTHCHECK", async () => {
    const stages = dockerStages(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
    expect(stages.map((s) => s.name)).toEqual(['build', 'stage1']);
    const [build, runtime] = stages as [(typeof stages)[number], (typeof stages)[number]];
    const log: string[] = [];
    const buildDir = join(work, 'docker-build');
    await runStage(build, buildDir, {}, log);
    const runtimeDir = join(work, 'docker-runtime');
    await runStage(runtime, runtimeDir, { build: { dir: buildDir, workdir: build.workdir } }, log);
    expect(log.filter((l) => l.startsWith('ran:'))).toHaveLength(2);
    // Only what runs: no sources, no dev dependencies.
    expect(readdirSync(runtimeDir).sort()).toEqual(['bin', 'db', 'dist', 'node_modules', 'package.json']);
    expect(existsSync(join(runtimeDir, 'node_modules', 'esbuild'))).toBe(false);
    expect(runtime.steps.some((s) => s.op === 'USER' && s.args === 'node')).toBe(true);
    expect(runtime.steps.some((s) => s.op === 'VOLUME' && s.args === '/data')).toBe(true);

    const port = await freePort();
    const env = { ...runtime.env, DATA_DIR: join(work, 'docker-data'), HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn' };
    const cmd = jsonArgs(runtime.steps.find((s) => s.op === 'CMD')!.args);
    const healthcheck = jsonArgs(runtime.steps.find((s) => s.op === 'HEALTHCHECK')!.args.replace(/^.*?CMD\s+/, ''));
    const server = start(cmd, runtimeDir, env);
    await until(async () => {
      await exec(healthcheck[0] as string, healthcheck.slice(1), { cwd: runtimeDir, env: { ...process.env, ...env } });
      return true;
    }, `the HEALTHCHECK (${server.output()})`);
    const cli = async (...args: string[]) => (await exec(cmd[0] as string, [cmd[1] as string, ...args], { cwd: runtimeDir, env: { ...process.env, ...env } })).stdout;
    await exercise(`http://127.0.0.1:${port}`, cli);
    expect(await stop(server.child)).toBe(0);
  }, 900_000);

  it('npm pack makes a tarball that installs into an empty folder and serves, mail PDFs with embedded fonts included', async () => {
    // Packed from the tree the Docker steps built (dist/ is in it), without running `prepare` again.
    const buildDir = join(work, 'docker-build');
    if (!existsSync(join(buildDir, 'dist', 'main.js'))) {
      cpSync(ROOT, buildDir, { recursive: true, filter: (src) => !/node_modules|\.git$|\/\.tmp/.test(src) });
      await exec('npm', ['ci'], { cwd: buildDir, env: cleanEnv(), maxBuffer: 64 * 1024 * 1024 });
    }
    const { stdout } = await exec('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: buildDir, env: cleanEnv(), maxBuffer: 64 * 1024 * 1024 });
    const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
    const shipped = packed!.files.map((f) => f.path);
    expect(shipped).toEqual(expect.arrayContaining(['bin/hourbook.js', 'bin/code-cache.js', 'dist/main.js', 'dist/serve.cjs', 'dist/serve.cjs.cache', 'db/migrations/meta/_journal.json', 'package.json', 'CHANGELOG.md']));
    expect(shipped.filter((f) => f.startsWith('src/') || f.startsWith('test/') || /\.c?js\.map$/.test(f) || f === 'dist/build-meta.json')).toEqual([]);

    const app = join(work, 'installed');
    mkdirSync(app);
    await exec('npm', ['install', join(work, packed!.filename)], { cwd: app, env: cleanEnv(), maxBuffer: 64 * 1024 * 1024 });
    const port = await freePort();
    const env = { DATA_DIR: join(app, 'data'), PORT: String(port), LOG_LEVEL: 'warn' };
    const npx = (args: string[]) => ['npx', '--no-install', 'hourbook', ...args];
    const server = start(npx(['serve']), app, env);
    await until(async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok, `npx hourbook serve (${server.output()})`);
    const cli = async (...args: string[]) => (await exec('npx', ['--no-install', 'hourbook', ...args], { cwd: app, env: cleanEnv(env) })).stdout;
    await exercise(`http://127.0.0.1:${port}`, cli);
    await stop(server.child); // npx itself ends by the signal; the server's own exit is checked below

    // The demo's invoices render as PDFs with DejaVu embedded, from the installed dejavu-fonts-ttf.
    const demo = start([join(app, 'node_modules', '.bin', 'hourbook'), 'demo'], app, env);
    await until(async () => demo.output().includes('listening'), `npx hourbook demo (${demo.output()})`);
    const key = /api key: (hb_\S+)/.exec(demo.output())?.[1] as string;
    const list = await send(`http://127.0.0.1:${port}`, 'GET', `/trpc/invoices.list?input=${encodeURIComponent('{}')}`, { host: 'demo.localhost', key });
    const publicUrl = new URL(list.body.result.data.items[0].public_url as string);
    const pdf = await send(`http://127.0.0.1:${port}`, 'GET', `${publicUrl.pathname}/pdf`, { host: 'demo.localhost' });
    expect(pdf.status).toBe(200);
    expect(pdf.raw.subarray(0, 5).toString()).toBe('%PDF-');
    expect(pdf.raw.includes(Buffer.from('DejaVuSans'))).toBe(true);
    expect(await stop(demo.child)).toBe(0);
  }, 900_000);
});
