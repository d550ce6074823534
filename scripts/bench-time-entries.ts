/**
 * Throughput of the hot write path, POST /api/external/v2/time-entries, beside a floor: a bare
 * node:http + better-sqlite3 server doing one prepared insert per request into the same table, on
 * the same disk with the same pragmas, under SQLITE_SYNCHRONOUS=FULL and NORMAL. Both servers run
 * in child processes of their own and are loaded in turn (A/B alternated), so the load generator
 * (autocannon) never shares an event loop with the server it measures and both meet the same machine.
 * Last, the HTTP libraries alone (Express 5 beside node:http, no database), the same way.
 *
 *   npx tsx scripts/bench-time-entries.ts            # 3 rounds of 5 s each, 20 connections, FULL and NORMAL
 *   BENCH_DURATION=10 BENCH_ROUNDS=5 BENCH_CONNECTIONS=50 npx tsx scripts/bench-time-entries.ts
 *   SQLITE_SYNCHRONOUS=NORMAL npx tsx scripts/bench-time-entries.ts   # one durability setting only
 *   BENCH_PROFILE=/tmp/prof npx tsx scripts/bench-time-entries.ts      # CPU profiles of both servers
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import express from 'express';
import pino from 'pino';
import { loadConfig } from '../src/config.ts';
import { clients, projects, projectUsers, tasks, teamMembers } from '../src/db/schema/index.ts';
import { addDays } from '../src/domain/time/calendar.ts';
import { createServices, openWorkspaceScope } from '../src/services.ts';
import { startServer } from '../src/server.ts';
import { WorkspaceHandle } from '../src/workspaces/handle.ts';
import { provisionWorkspace } from '../src/domain/workspace/provision.ts';
import { createEndpoint } from '../src/domain/webhooks/endpoints.ts';
import { assertCount, printRows, record } from './bench-report.ts';

const USERS = 50;
/** Only the durability setting is taken from the environment (each child gets its own); it dominates the figures. */
const durability = (): Record<string, string> => (process.env.SQLITE_SYNCHRONOUS ? { SQLITE_SYNCHRONOUS: process.env.SQLITE_SYNCHRONOUS } : {});
const HOST = 'bench.localhost';
export const WARMUP_SECONDS = 2;
/** Entries are dated over the year before this day, so none is in the future and none is locked. */
const LAST_DAY = '2026-11-17';

interface Target {
  url: string;
  headers: Record<string, string>;
  client_id: string;
  project_id: string;
  task_id: string;
  emails: string[];
}

type FromChild = { ready: Target } | { stored: number };

/**
 * Entry i is for user i % 50 on a day that moves back one day per round of users, wrapping after a
 * year: each user-day gets a quarter hour per 18 250 requests, far below the 24-hour limit.
 */
function bodyFor(target: Target, i: number): string {
  return JSON.stringify({
    client_id: target.client_id,
    project_id: target.project_id,
    task_id: target.task_id,
    email: target.emails[i % target.emails.length],
    recorded_on: addDays(LAST_DAY, -(Math.floor(i / target.emails.length) % 365)),
    hours: '0.25',
    notes: `bench ${i}`,
  });
}

// ---------------------------------------------------------------------------------------------
// The two servers (each runs in a child process started by `run`).

/** How the app server of a run is set up: its background jobs, and a webhook endpoint subscribed to every event. */
export interface AppSetup {
  jobs?: boolean;
  webhookUrl?: string;
}

/** `--jobs` and `--webhook <url>` after `--serve app`. */
const setupFromArgs = (argv: string[]): AppSetup => {
  const at = argv.indexOf('--webhook');
  return { jobs: argv.includes('--jobs'), ...(at >= 0 && argv[at + 1] ? { webhookUrl: argv[at + 1] } : {}) };
};
const argsOf = (setup: AppSetup) => [...(setup.jobs ? ['--jobs'] : []), ...(setup.webhookUrl ? ['--webhook', setup.webhookUrl] : [])];

async function serveApp(dataDir: string, setup: AppSetup): Promise<{ target: Target; count: () => number }> {
  const config = loadConfig({ ...durability(), DATA_DIR: dataDir, LOG_LEVEL: 'silent', PORT: '0', RATE_LIMIT_PER_MINUTE: '0', WEBHOOK_ALLOW_PRIVATE: '1' });
  const services = createServices(config, { logger: pino({ level: 'silent' }) });
  const now = new Date();
  const ws = provisionWorkspace(services.registry, { subdomain: 'bench', timeZone: 'UTC', owner: { email: 'owner@bench.test', firstName: 'Bench', lastName: 'Owner' } }, now);
  const handle = services.registry.get('bench');
  if (!handle) throw new Error('bench workspace missing');
  const at = now.toISOString();
  const ids = { client: randomUUID(), project: randomUUID(), task: randomUUID() };
  const emails = Array.from({ length: USERS }, (_, i) => `user${i}@bench.test`);
  handle.db.transaction((tx) => {
    tx.insert(clients)
      .values({ id: ids.client, name: 'Bench client', identifier: 'BENCH', currency: 'USD', defaultInvoiceDueInDays: 30, createdAt: at, updatedAt: at })
      .run();
    tx.insert(projects)
      .values({ id: ids.project, clientId: ids.client, name: 'Bench project', identifier: 'BENCH-0001', billingMethod: 'hourly_project_rate', hourlyRateMinor: 10000, currency: 'USD', timeRoundUpto: 15, createdAt: at, updatedAt: at })
      .run();
    tx.insert(tasks).values({ id: ids.task, projectId: ids.project, name: 'Development', position: 1, createdAt: at, updatedAt: at }).run();
    for (const email of emails) {
      const userId = randomUUID();
      tx.insert(teamMembers).values({ id: userId, email, firstName: 'Bench', lastName: email, timeZone: 'UTC', organizationRole: 'Member', createdAt: at, updatedAt: at }).run();
      tx.insert(projectUsers).values({ id: randomUUID(), projectId: ids.project, userId, role: 'regular_user', createdAt: at, updatedAt: at }).run();
    }
  });
  if (setup.webhookUrl) createEndpoint(openWorkspaceScope(services, handle).scope, { url: setup.webhookUrl, events: ['*'], enabled: true });
  const server = await startServer(services, { port: 0, host: '127.0.0.1', jobs: setup.jobs ?? false });
  return {
    target: {
      url: `${server.url}/api/external/v2/time-entries`,
      headers: { host: HOST, 'x-api-key': ws.apiKey, 'content-type': 'application/json' },
      client_id: ids.client,
      project_id: ids.project,
      task_id: ids.task,
      emails,
    },
    count: () => handle.sqlite.prepare('select count(*) from time_entries').pluck().get() as number,
  };
}

function readJson(req: IncomingMessage): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, string>);
      } catch (err) {
        reject(err as Error);
      }
    });
    req.on('error', reject);
  });
}

/** The floor: parse JSON, one prepared insert into the same migrated table, answer JSON. */
async function serveBare(dataDir: string): Promise<{ target: Target; count: () => number }> {
  const config = loadConfig({ ...durability(), DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  const handle = new WorkspaceHandle('bare', join(dataDir, 'bare.sqlite'), { synchronous: config.sqliteSynchronous });
  // no referenced rows exist here: the floor measures one insert, not the lookups
  handle.sqlite.pragma('foreign_keys = OFF');
  const insert = handle.sqlite.prepare(
    `insert into time_entries (id, client_id, project_id, task_id, user_id, recorded_on, entered_seconds, seconds, notes, metadata, status, is_override, invoice_id, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, null, 'unbilled', 0, null, ?, ?)`,
  );
  const server = createServer((req, res) => {
    readJson(req)
      .then((body) => {
        const id = randomUUID();
        const at = new Date().toISOString();
        const seconds = Math.round(Number(body.hours) * 3600);
        insert.run(id, body.client_id, body.project_id, body.task_id, body.email, body.recorded_on, seconds, seconds, body.notes ?? '', at, at);
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id, hours: seconds / 3600, recorded_on: body.recorded_on, created_at: at }));
      })
      .catch(() => {
        res.writeHead(400).end();
      });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    target: {
      url: `http://127.0.0.1:${port}/time-entries`,
      headers: { 'content-type': 'application/json' },
      client_id: randomUUID(),
      project_id: randomUUID(),
      task_id: randomUUID(),
      emails: Array.from({ length: USERS }, (_, i) => `user${i}@bench.test`),
    },
    count: () => handle.sqlite.prepare('select count(*) from time_entries').pluck().get() as number,
  };
}

/**
 * The HTTP library alone, without a database: read the JSON body, answer 201 with JSON. `express`
 * does it as an Express 5 app with one router and express.json(); `node` with node:http. The pair
 * shows what Express's own per-request work costs here, the reason the REST door is not an
 * Express router (src/rest/adapter.ts).
 */
async function serveLibrary(kind: 'express' | 'node'): Promise<{ target: Target; count: () => number }> {
  const answer = (body: Record<string, string>) => ({ id: randomUUID(), recorded_on: body.recorded_on, created_at: new Date().toISOString() });
  let server: ReturnType<typeof createServer>;
  if (kind === 'express') {
    const app = express();
    app.disable('x-powered-by');
    app.disable('etag');
    const router = express.Router({ strict: false, caseSensitive: true });
    router.use(express.json({ limit: 1024 * 1024, strict: false }));
    router.post('/v2/time-entries', (req, res) => {
      res.status(201).json(answer(req.body as Record<string, string>));
    });
    app.use('/api/external', router);
    server = createServer(app);
  } else {
    server = createServer((req, res) => {
      readJson(req).then(
        (body) => {
          res.writeHead(201, { 'content-type': 'application/json; charset=utf-8' });
          res.end(JSON.stringify(answer(body)));
        },
        () => res.writeHead(400).end(),
      );
    });
  }
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  let answered = 0;
  server.on('request', (_req, res) => res.on('finish', () => answered++));
  return {
    target: { url: `http://127.0.0.1:${port}/api/external/v2/time-entries`, headers: { 'content-type': 'application/json' }, client_id: randomUUID(), project_id: randomUUID(), task_id: randomUUID(), emails: ['a@bench.test'] },
    count: () => answered,
  };
}

async function child(kind: Kind, setup: AppSetup): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), `hourbook-bench-${kind}-`));
  const served = kind === 'app' ? await serveApp(dataDir, setup) : kind === 'bare' ? await serveBare(dataDir) : await serveLibrary(kind);
  process.send?.({ ready: served.target } satisfies FromChild);
  process.on('message', (msg) => {
    if (msg === 'count') process.send?.({ stored: served.count() } satisfies FromChild);
    if (msg === 'exit') {
      rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    }
  });
}

// ---------------------------------------------------------------------------------------------
// The load generator.

function nextMessage(proc: ChildProcess): Promise<FromChild> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`bench server exited with ${code}`));
    proc.once('exit', onExit);
    proc.once('message', (m) => {
      proc.off('exit', onExit);
      resolve(m as FromChild);
    });
  });
}

type Kind = 'app' | 'bare' | 'express' | 'node';

export interface Served {
  kind: Kind;
  proc: ChildProcess;
  target: Target;
  /** Requests answered 2xx over every run against it, and the runs made (for the in-flight slack). */
  answered: number;
  runs: number;
  next: number;
}

export async function startChild(kind: Kind, synchronous: string, setup: AppSetup = {}): Promise<Served> {
  const execArgv = ['--import', 'tsx', ...(process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [])];
  const proc = fork(fileURLToPath(import.meta.url), ['--serve', kind, ...argsOf(setup)], { execArgv, stdio: 'inherit', env: { ...process.env, SQLITE_SYNCHRONOUS: synchronous } });
  const ready = await nextMessage(proc);
  if (!('ready' in ready)) throw new Error('bench server did not start');
  return { kind, proc, target: ready.ready, answered: 0, runs: 0, next: 0 };
}

export async function load(served: Served, duration: number, connections: number) {
  const { target } = served;
  const result = await autocannon({
    url: target.url,
    method: 'POST',
    headers: target.headers,
    connections,
    duration,
    requests: [{ setupRequest: (req) => ({ ...req, body: bodyFor(target, served.next++) }) }],
  });
  served.answered += result['2xx'];
  served.runs++;
  return { rps: result.requests.average, p99: result.latency.p99, failures: result.non2xx + result.errors + result.timeouts };
}

/** Every answered request was stored (requests in flight when a run stopped may be stored unanswered). */
export async function checkStored(served: Served, connections: number): Promise<void> {
  served.proc.send('count');
  const stored = await nextMessage(served.proc);
  const rows = 'stored' in stored ? stored.stored : -1;
  assertCount(`${served.kind} rows stored`, rows >= served.answered && rows <= served.answered + served.runs * connections, `${served.answered} answered 2xx, ${rows} rows stored`);
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Both servers up at once, loaded in turn (A/B alternated, ROUNDS each), so both meet the same
 * machine; the medians are compared.
 */
async function compare(synchronous: 'FULL' | 'NORMAL', settings: { duration: number; connections: number; rounds: number }, goal: number): Promise<void> {
  const app = await startChild('app', synchronous);
  const bare = await startChild('bare', synchronous);
  try {
    for (const s of [app, bare]) await load(s, WARMUP_SECONDS, settings.connections); // JIT-compiled before measuring
    const figures = { app: [] as Awaited<ReturnType<typeof load>>[], bare: [] as Awaited<ReturnType<typeof load>>[] };
    for (let round = 0; round < settings.rounds; round++) {
      figures.app.push(await load(app, settings.duration, settings.connections));
      figures.bare.push(await load(bare, settings.duration, settings.connections));
    }
    await checkStored(app, settings.connections);
    await checkStored(bare, settings.connections);
    const failures = figures.app.reduce((n, f) => n + f.failures, 0);
    assertCount('hourbook answers', failures === 0, `${failures} requests answered with an error`);
    const floor = `bare node:http + one insert, ${synchronous}`;
    record({ section: SECTION, figure: `POST v2 time entry, ${synchronous}: req/s`, value: median(figures.app.map((f) => f.rps)), unit: 'req/s', floor: { value: median(figures.bare.map((f) => f.rps)), label: floor }, goal: { of: 'ratio', atLeast: goal } });
    record({ section: SECTION, figure: `POST v2 time entry, ${synchronous}: p99`, value: median(figures.app.map((f) => f.p99)), unit: 'ms', floor: { value: Math.max(1, median(figures.bare.map((f) => f.p99))), label: floor }, goal: { of: 'ratio', atMost: 2 } });
  } finally {
    app.proc.send('exit');
    bare.proc.send('exit');
  }
}

const SECTION = 'write path';

/** Express alone beside node:http alone, loaded in turn like the two servers above. */
async function compareLibraries(settings: { duration: number; connections: number; rounds: number }): Promise<void> {
  const express = await startChild('express', 'NORMAL');
  const node = await startChild('node', 'NORMAL');
  try {
    for (const s of [express, node]) await load(s, WARMUP_SECONDS, settings.connections);
    const rates = { express: [] as number[], node: [] as number[] };
    for (let round = 0; round < settings.rounds; round++) {
      rates.express.push((await load(express, settings.duration, settings.connections)).rps);
      rates.node.push((await load(node, settings.duration, settings.connections)).rps);
    }
    record({
      section: SECTION,
      figure: 'Express 5 alone: read a JSON body, answer JSON',
      value: median(rates.express),
      unit: 'req/s',
      floor: { value: median(rates.node), label: 'node:http alone, the same' },
    });
  } finally {
    express.proc.send('exit');
    node.proc.send('exit');
  }
}

/** The write path under FULL and NORMAL, each beside its floor. */
export async function run(opts: { duration?: number; connections?: number; rounds?: number } = {}): Promise<void> {
  const settings = {
    duration: opts.duration ?? Number(process.env.BENCH_DURATION ?? 5),
    connections: opts.connections ?? Number(process.env.BENCH_CONNECTIONS ?? 20),
    rounds: opts.rounds ?? Number(process.env.BENCH_ROUNDS ?? 3),
  };
  const modes = process.env.SQLITE_SYNCHRONOUS ? [process.env.SQLITE_SYNCHRONOUS as 'FULL' | 'NORMAL'] : (['FULL', 'NORMAL'] as const);
  console.log(`POST /api/external/v2/time-entries: ${settings.rounds} rounds of ${settings.duration} s per server, A/B alternated, ${settings.connections} connections`);
  for (const mode of modes) await compare(mode, settings, mode === 'FULL' ? 0.8 : 0.6);
  await compareLibraries(settings);
  printRows(SECTION);
}

const serveAt = process.argv.indexOf('--serve');
if (serveAt >= 0) {
  await child((process.argv[serveAt + 1] ?? 'app') as Kind, setupFromArgs(process.argv));
} else if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await run();
}
