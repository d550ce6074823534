/**
 * One server over 10,000 workspace files: what it costs while nothing is due (CPU share and RSS),
 * and whether work due in the 9,999th workspace still goes out within its minute, because the jobs
 * keep one schedule instead of opening every file each pass.
 *
 *   npx tsx scripts/bench-workspaces.ts                 # 10,000 workspaces
 *   BENCH_WORKSPACES=2000 npx tsx scripts/bench-workspaces.ts
 */
import { fork, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import pino from 'pino';
import { loadConfig } from '../src/config.ts';
import { provisionWorkspace } from '../src/domain/workspace/provision.ts';
import { createServices } from '../src/services.ts';
import { startServer } from '../src/server.ts';
import { WorkspaceRegistry } from '../src/workspaces/registry.ts';
import { makeMember, makeProjectSetup, makeProjectUser, makeTimeEntry } from '../test/helpers/factories.ts';
import { assertCount, printRows, record } from './bench-report.ts';

const SECTION = 'many workspaces';
const COUNT = Number(process.env.BENCH_WORKSPACES ?? 10_000);
const IDLE_WINDOW_MS = 30_000;
const label = (i: number) => `ws${String(i).padStart(5, '0')}`;

interface Stats {
  cpuMs: number;
  rss: number;
  at: number;
}
type FromChild = { ready: { port: number } } | { stats: Stats };

/** The server, in a child process of its own so its CPU time and memory are its alone. */
async function child(dataDir: string): Promise<void> {
  const services = createServices(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', PORT: '0' }), { logger: pino({ level: 'silent' }) });
  const server = await startServer(services, { port: 0, host: '127.0.0.1' });
  process.send?.({ ready: { port: Number(new URL(server.url).port) } } satisfies FromChild);
  process.on('message', (msg) => {
    if (msg === 'stats') {
      const cpu = process.cpuUsage();
      process.send?.({ stats: { cpuMs: (cpu.user + cpu.system) / 1000, rss: process.memoryUsage().rss, at: performance.now() } } satisfies FromChild);
    }
    if (msg === 'exit') void server.close().then(() => process.exit(0));
  });
}

/** 10,000 workspace files: one provisioned, the rest copies of it with their own workspace row. */
function makeWorkspaces(dataDir: string): { key: string; projectId: string } {
  const registry = new WorkspaceRegistry({ dataDir, synchronous: 'NORMAL' });
  const template = provisionWorkspace(registry, { subdomain: label(0), timeZone: 'UTC', owner: { email: 'owner@bench.test', firstName: 'O', lastName: 'B' } }, new Date());
  registry.closeAll();
  for (let i = 1; i < COUNT; i++) {
    const file = join(dataDir, `${label(i)}.sqlite`);
    copyFileSync(join(dataDir, `${label(0)}.sqlite`), file);
    const db = new BetterSqlite3(file);
    db.prepare('UPDATE workspace SET subdomain = ?, id = lower(hex(randomblob(16)))').run(label(i));
    db.close();
  }
  // The last workspace has a project with approvals, a manager and time awaiting approval; its
  // weekly digest is switched on through the API once the server runs.
  const last = registry.get(label(COUNT - 1))!;
  const s = makeProjectSetup(last.db, { project: { enableApprovals: true } });
  makeProjectUser(last.db, s.project.id, makeMember(last.db).id, { role: 'project_manager' });
  makeTimeEntry(last.db, { clientId: s.client.id, projectId: s.project.id, taskId: s.task.id, userId: s.member.id }, { status: 'pending_approval' });
  registry.closeAll();
  return { key: template.apiKey, projectId: s.project.id };
}

function nextMessage(proc: ChildProcess): Promise<FromChild> {
  return new Promise((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    proc.once('message', (m) => resolve(m as FromChild));
  });
}

async function stats(proc: ChildProcess): Promise<Stats> {
  proc.send('stats');
  const m = await nextMessage(proc);
  if (!('stats' in m)) throw new Error('no stats');
  return m.stats;
}

function patch(port: number, host: string, key: string, path: string, body: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = request({ host: '127.0.0.1', port, method: 'PATCH', path, headers: { host, 'x-api-key': key, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

const digests = (file: string) => {
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    return db.prepare("SELECT created_at FROM outbox WHERE kind = 'approval_digest'").pluck().all() as string[];
  } finally {
    db.close();
  }
};

export async function run(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hourbook-bench-many-'));
  const started = Date.now();
  const { key, projectId } = makeWorkspaces(dataDir);
  console.log(`${COUNT} workspace files made in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const proc = fork(fileURLToPath(import.meta.url), ['--serve', dataDir], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  try {
    const ready = await nextMessage(proc);
    if (!('ready' in ready)) throw new Error('server did not start');
    const { port } = ready.ready;
    // The first visit of every file: wait until a 5-second window uses under 5 % of a core.
    const firstVisit = Date.now();
    let before = await stats(proc);
    for (;;) {
      await new Promise((r) => setTimeout(r, 5_000));
      const now = await stats(proc);
      const share = (now.cpuMs - before.cpuMs) / (now.at - before.at);
      before = now;
      if (share < 0.05) break;
    }
    record({ section: SECTION, figure: `first visit of ${COUNT} workspaces at start`, value: (Date.now() - firstVisit) / 1000, unit: 's' });

    const idleStart = await stats(proc);
    await new Promise((r) => setTimeout(r, IDLE_WINDOW_MS));
    const idleEnd = await stats(proc);
    record({ section: SECTION, figure: `idle CPU, ${COUNT} workspaces`, value: (100 * (idleEnd.cpuMs - idleStart.cpuMs)) / (idleEnd.at - idleStart.at), unit: '% of a core', goal: { of: 'value', atMost: 2 } });
    record({ section: SECTION, figure: `RSS, ${COUNT} workspaces`, value: idleEnd.rss / 2 ** 20, unit: 'MB', goal: { of: 'value', atMost: 250 } });

    // A digest due in the last workspace at the next whole minute (+1), set through the API.
    const due = new Date(Math.ceil((Date.now() + 61_000) / 60_000) * 60_000);
    const day = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'][due.getUTCDay()];
    const time = due.toISOString().slice(11, 16);
    const lastHost = `${label(COUNT - 1)}.localhost`;
    const status = await patch(port, lastHost, key, `/api/external/v1/projects/${projectId}`, {
      email: 'owner@bench.test',
      project: { notify_timesheet_approval_request_weekly: true, timesheet_approval_email_notification_day: day, timesheet_approval_email_notification_time: time },
    });
    assertCount('digest schedule set through the API', status === 200, `PATCH answered ${status}`);
    const file = join(dataDir, `${label(COUNT - 1)}.sqlite`);
    let sentAt: number | null = null;
    while (Date.now() < due.getTime() + 90_000 && sentAt === null) {
      await new Promise((r) => setTimeout(r, 1_000));
      const rows = digests(file);
      if (rows.length > 0) sentAt = Date.parse(rows[0]!);
    }
    assertCount(`digest in ${label(COUNT - 1)}`, sentAt !== null, 'no digest was queued within 90 s of its time');
    record({ section: SECTION, figure: `digest due in workspace ${COUNT - 1}: queued after its time`, value: (sentAt! - due.getTime()) / 1000, unit: 's', goal: { of: 'value', atMost: 60 } });
    printRows(SECTION);
  } finally {
    proc.send('exit');
    await new Promise((r) => proc.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const serveAt = process.argv.indexOf('--serve');
if (serveAt >= 0) await child(process.argv[serveAt + 1]!);
else if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await run();
