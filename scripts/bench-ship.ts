/**
 * Shipping figures, each beside a floor measured in the same run and the goal:
 *
 * - start-up: `hourbook workspace list` and `--version` through the bin from dist/ against `node -e 0`
 *   (goal ≤ 300 ms); `hourbook serve` until /readyz answers 200 against a bare node:http server
 *   until it answers (goal ≤ 500 ms);
 * - cold workspace open (a file not yet open in the process) against opening the same file with
 *   bare better-sqlite3 (goal ≤ 3 ms);
 * - `hourbook backup` of a 1 GB workspace against `cp` of the same file (goal ≤ 3×: the backup
 *   copies, then reads the copy twice, for integrity_check and SHA-256, while flushing it to disk,
 *   which `cp` does not); the same while a long read transaction keeps writes in the WAL, as
 *   Litestream does, so the file is copied with its WAL instead of frozen;
 * - `hourbook workspace move` of that workspace between two nodes behind HAProxy against the same
 *   `cp` (goal ≤ 5×: a snapshot, a transfer with hashing, an integrity check, page hashes, fsync),
 *   with the time writes were paused (the source's page hashes and the pages written meanwhile).
 *   Skipped without HAProxy.
 *
 *   npx tsx scripts/bench-ship.ts                 # 1 GB
 *   BENCH_WORKSPACE_MB=200 npx tsx scripts/bench-ship.ts
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { printRows, record } from './bench-report.ts';
import BetterSqlite3 from 'better-sqlite3';
import { provisionWorkspace } from '../src/domain/workspace/provision.ts';
import { WorkspaceRegistry } from '../src/workspaces/registry.ts';
import { HAPROXY, startHaproxy } from '../test/helpers/haproxy.ts';
import { freePort } from '../test/helpers/ports.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The command operators run (the build's, as in an installed package; it checks `src/` is not newer). */
const MAIN = join(ROOT, 'bin', 'hourbook.js');
const ROUNDS = 9;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

interface Row {
  figure: string;
  value: number;
  floor: number;
  floorName: string;
  /** The goal as an absolute bound in ms, or as a bound on value/floor. */
  goal: { ms: number } | { ratio: number };
}

const SECTION = 'shipping';

/** Each figure as a row of the shared report (scripts/bench-report.ts). */
function print(rows: Row[]): void {
  for (const r of rows) {
    const goal = 'ms' in r.goal ? { of: 'value' as const, atMost: r.goal.ms } : { of: 'ratio' as const, atMost: r.goal.ratio };
    record({ section: SECTION, figure: r.figure, value: r.value, unit: 'ms', floor: { value: r.floor, label: r.floorName }, goal });
  }
  printRows(SECTION);
}

/** Wall time of one short process, from spawn to exit. */
function timed(command: string, args: string[], env: Record<string, string> = {}): number {
  const started = performance.now();
  const result = spawnSync(command, args, { env: { ...process.env, ...env }, stdio: 'ignore' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.status}`);
  return performance.now() - started;
}

/** A and B alternated, so a busy moment of the machine weighs on both; medians. */
function alternate(a: () => number, b: () => number, rounds = ROUNDS): [number, number] {
  const as: number[] = [];
  const bs: number[] = [];
  for (let i = 0; i < rounds; i++) {
    as.push(a());
    bs.push(b());
  }
  return [median(as), median(bs)];
}

/** Spawns a server and measures until `url` answers 200. */
async function readyAfter(command: string, args: string[], url: string, env: Record<string, string>): Promise<number> {
  const started = performance.now();
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: 'ignore' });
  try {
    for (;;) {
      const ok = await fetch(url).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) return performance.now() - started;
      if (performance.now() - started > 30_000) throw new Error(`${args.join(' ')} never answered ${url}`);
      await new Promise((r) => setTimeout(r, 2));
    }
  } finally {
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
  }
}

async function startup(work: string): Promise<Row[]> {
  const dataDir = join(work, 'startup');
  const registry = new WorkspaceRegistry({ dataDir, synchronous: 'FULL' });
  for (const s of ['alpha', 'beta', 'gamma']) provisionWorkspace(registry, { subdomain: s, timeZone: 'UTC', owner: { email: `o@${s}.test`, firstName: 'O', lastName: 'W' } }, new Date());
  registry.closeAll();
  const env = { DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
  const node = () => timed(process.execPath, ['-e', '0']);
  const [list, floor] = alternate(() => timed(process.execPath, [MAIN, 'workspace', 'list'], env), node);
  const [version, floor2] = alternate(() => timed(process.execPath, [MAIN, '--version'], env), node);

  const serveTimes: number[] = [];
  const bareTimes: number[] = [];
  for (let i = 0; i < 5; i++) {
    const port = await freePort();
    serveTimes.push(await readyAfter(process.execPath, [MAIN, 'serve'], `http://127.0.0.1:${port}/readyz`, { ...env, PORT: String(port) }));
    const bare = await freePort();
    bareTimes.push(await readyAfter(process.execPath, ['-e', `require('node:http').createServer((q, s) => s.end('ok')).listen(${bare}, '127.0.0.1')`], `http://127.0.0.1:${bare}/`, {}));
  }
  return [
    { figure: 'hourbook workspace list (3 workspaces)', value: list, floor, floorName: 'node -e 0', goal: { ms: 300 } },
    { figure: 'hourbook --version', value: version, floor: floor2, floorName: 'node -e 0', goal: { ms: 300 } },
    { figure: 'hourbook serve until /readyz is 200', value: median(serveTimes), floor: median(bareTimes), floorName: 'bare node:http until 200', goal: { ms: 500 } },
  ];
}

function coldOpen(work: string): Row {
  const dataDir = join(work, 'open');
  const registry = new WorkspaceRegistry({ dataDir, synchronous: 'FULL', maxOpen: 1000 });
  const n = 200;
  for (let i = 0; i < n; i++) provisionWorkspace(registry, { subdomain: `w${i}`, timeZone: 'UTC', owner: { email: 'o@w.test', firstName: 'O', lastName: 'W' } }, new Date());
  registry.closeAll();
  const fresh = new WorkspaceRegistry({ dataDir, synchronous: 'FULL', maxOpen: 1000 });
  fresh.get('w0'); // the first open of a process reads the migration list once
  const opens: number[] = [];
  const bare: number[] = [];
  for (let i = 1; i < n; i++) {
    let started = performance.now();
    fresh.get(`w${i}`);
    opens.push(performance.now() - started);
    started = performance.now();
    const db = new BetterSqlite3(fresh.fileFor(`w${(i + n / 2) % n}`));
    db.prepare('SELECT 1').get();
    db.close();
    bare.push(performance.now() - started);
  }
  fresh.closeAll();
  return { figure: 'cold workspace open (p50 of 199 files)', value: median(opens), floor: median(bare), floorName: 'bare better-sqlite3 open + query', goal: { ms: 3 } };
}

/** A workspace file of about `mb` MB: a real workspace plus a table of random blobs. */
function bigWorkspace(dataDir: string, subdomain: string, mb: number): string {
  const registry = new WorkspaceRegistry({ dataDir, synchronous: 'FULL' });
  provisionWorkspace(registry, { subdomain, timeZone: 'UTC', owner: { email: 'o@big.test', firstName: 'O', lastName: 'W' } }, new Date());
  registry.closeAll();
  const file = join(dataDir, `${subdomain}.sqlite`);
  const db = new BetterSqlite3(file);
  db.pragma('synchronous = OFF');
  db.exec('CREATE TABLE bench_filler (id INTEGER PRIMARY KEY, payload BLOB NOT NULL)');
  const rows = Math.ceil((mb * 1024 * 1024) / 8000);
  const insert = db.prepare('INSERT INTO bench_filler (payload) WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?) SELECT randomblob(8000) FROM c');
  for (let done = 0; done < rows; done += 10_000) db.transaction(() => insert.run(Math.min(10_000, rows - done)))();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return file;
}

/** Runs `work` while a read transaction holds `file`'s WAL and 100 page writes made since wait in it. */
function whilePinned<T>(file: string, work: () => T): T {
  const pin = new BetterSqlite3(file, { readonly: true });
  const writer = new BetterSqlite3(file);
  try {
    writer.pragma('wal_autocheckpoint = 0');
    pin.exec('BEGIN');
    pin.prepare('SELECT count(*) FROM bench_filler').get();
    const touch = writer.prepare('UPDATE bench_filler SET payload = randomblob(8000) WHERE id = ?');
    for (let i = 1; i <= 100; i++) touch.run(i * 997);
    return work();
  } finally {
    pin.exec('COMMIT');
    pin.close();
    writer.pragma('wal_checkpoint(TRUNCATE)');
    writer.close();
  }
}

async function backupAndMove(work: string, mb: number): Promise<Row[]> {
  const node1 = join(work, 'node1');
  const file = bigWorkspace(node1, 'big', mb);
  const size = statSync(file).size;
  console.log(`  (workspace file: ${(size / 1048576).toFixed(0)} MiB)`);
  const backups = join(work, 'backups');
  const copies = join(work, 'copies');
  mkdirSync(copies, { recursive: true });
  let round = 0;
  const cp = () => {
    const target = join(copies, `big-${round++}.sqlite`);
    const t = timed('cp', [file, target]);
    rmSync(target);
    return t;
  };
  const backup = () => {
    const t = timed(process.execPath, [MAIN, 'backup', 'big', '--to', backups], { DATA_DIR: node1, LOG_LEVEL: 'silent' });
    rmSync(backups, { recursive: true, force: true });
    return t;
  };
  const [backupMs, cpMs] = alternate(backup, cp, 3);
  const rows: Row[] = [{ figure: `hourbook backup of a ${Math.round(size / 1048576)} MiB workspace`, value: backupMs, floor: cpMs, floorName: 'cp of the same file', goal: { ratio: 3 } }];
  // As with Litestream beside it: a long read transaction, and writes since that it keeps in the WAL,
  // so the file cannot be frozen and is copied with its WAL.
  const [pinnedMs, cpPinnedMs] = whilePinned(file, () => alternate(backup, cp, 3));
  rows.push({ figure: 'the same, a long reader keeping the WAL (as Litestream)', value: pinnedMs, floor: cpPinnedMs, floorName: 'cp of the same file', goal: { ratio: 3 } });

  if (!HAPROXY) {
    console.log('  workspace move: skipped (HAProxy is not installed)');
    return rows;
  }
  const [p1, p2, pp] = [await freePort(), await freePort(), await freePort()];
  const cluster = { CLUSTER_SECRET: 'b'.repeat(40), CLUSTER_NODES: `node1=http://127.0.0.1:${p1},node2=http://127.0.0.1:${p2}`, LOG_LEVEL: 'silent' };
  const nodes = [
    spawn(process.execPath, [MAIN, 'serve'], { env: { ...process.env, ...cluster, DATA_DIR: node1, PORT: String(p1) }, stdio: 'ignore' }),
    spawn(process.execPath, [MAIN, 'serve'], { env: { ...process.env, ...cluster, DATA_DIR: join(work, 'node2'), PORT: String(p2) }, stdio: 'ignore' }),
  ];
  const proxy = await startHaproxy(work, pp, { node1: p1, node2: p2 });
  try {
    for (const port of [p1, p2]) {
      for (let i = 0; i < 1000 && !(await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false)); i++) await new Promise((r) => setTimeout(r, 20));
    }
    const started = performance.now();
    const out = execFileSync(process.execPath, [MAIN, 'workspace', 'move', 'big', '--to', 'node2', '--json'], {
      env: { ...process.env, ...cluster, HAPROXY_SOCKET: proxy.socket, HAPROXY_MAP: proxy.map },
      encoding: 'utf8',
    });
    const moveMs = performance.now() - started;
    const { pausedMs } = JSON.parse(out) as { pausedMs: number };
    rows.push({ figure: `hourbook workspace move (${Math.round(size / 1048576)} MiB)`, value: moveMs, floor: cpMs, floorName: 'cp of the same file', goal: { ratio: 5 } });
    rows.push({ figure: 'workspace move: time writes were paused', value: pausedMs, floor: cpMs, floorName: 'cp of the same file', goal: { ratio: 5 } });
  } finally {
    proxy.stop();
    for (const n of nodes) n.kill('SIGKILL');
  }
  return rows;
}

export async function run(): Promise<void> {
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { stdio: 'ignore' });
  const work = mkdtempSync(join(tmpdir(), 'hourbook-bench-ship-'));
  try {
    console.log(`shipping: start-up (median of ${ROUNDS}, alternated with the floor), cold open, backup and move`);
    const rows = [...(await startup(work)), coldOpen(work)];
    rows.push(...(await backupAndMove(work, Number(process.env.BENCH_WORKSPACE_MB ?? 1024))));
    print(rows);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
