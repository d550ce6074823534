import { request as httpRequest, type IncomingMessage } from 'node:http';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClient, makeMember, makeProject, makeProjectUser, makeTask, makeTimeEntry } from './helpers/factories.ts';
import { send } from './helpers/http.ts';
import { startTestEnv, testClock, type TestEnv } from './helpers/env.ts';

/**
 * A streamed CSV export holds its workspace file for as long as it is read, through either door
 * (GET /api/exports, tRPC reports.exportCsv), and no longer: a hand-over (move, restore) cuts it
 * after a short grace instead of waiting for its client, and a reader that takes nothing for too
 * long is cut too.
 */

const SECRET = 's'.repeat(40);
/** Enough entries (about 15 MB of CSV) that a client that stops reading leaves the server blocked on the socket. */
const ENTRIES = 60_000;

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv({ clock: testClock('2026-11-18T10:00:00.000Z'), env: { CLUSTER_SECRET: SECRET } });
  for (const ws of [env.alpha, env.beta]) {
    const db = ws.handle.db;
    const client = makeClient(db, { currency: 'EUR' });
    const project = makeProject(db, client.id, { currency: 'EUR', hourlyRateMinor: 9550 });
    const task = makeTask(db, project.id);
    const ann = makeMember(db);
    makeProjectUser(db, project.id, ann.id);
    const first = makeTimeEntry(db, { clientId: client.id, projectId: project.id, taskId: task.id, userId: ann.id }, { recordedOn: '2026-01-10', notes: `entry 0 ${'x'.repeat(200)}` });
    // The rest copied from the first in one statement (the time_entries triggers still run for each row).
    ws.handle.sqlite
      .prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
         INSERT INTO time_entries (id, client_id, project_id, task_id, user_id, recorded_on, entered_seconds, seconds, notes, status, created_at, updated_at)
         SELECT lower(hex(randomblob(16))), client_id, project_id, task_id, user_id, '2026-0' || (1 + i % 9) || '-1' || (i % 10), 3600, 3600,
           'entry ' || i || ' ' || substr(notes, instr(notes, ' x') + 1), status, created_at, updated_at
         FROM n, time_entries WHERE time_entries.id = ?`,
      )
      .run(ENTRIES - 1, first.id);
  }
}, 120_000);
afterAll(() => env.close());

const admin = (subdomain: string, path: string, body: unknown) =>
  send(env.url, 'POST', `/_cluster/workspaces/${subdomain}/${path}`, { headers: { authorization: `Bearer ${SECRET}` }, body });

/** How a response ended: its last byte arrived ('end'), or the connection was cut before it ('cut'). */
type Ending = 'end' | 'cut';

/**
 * A download whose client reads its first bytes and then stops reading (a paused browser download,
 * a suspended laptop). `resume` reads on: a response the server cut then ends without its last
 * chunk (`cut`), after the bytes the network still held.
 */
function stalledDownload(host: string, key: string, path: string): Promise<{ status: number; resume: () => Promise<{ ending: Ending; bytes: number }>; stop: () => void }> {
  const url = new URL(path, env.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ hostname: url.hostname, port: url.port, path: url.pathname + url.search, headers: { host, 'x-api-key': key }, agent: false }, (res: IncomingMessage) => {
      let bytes = 0;
      const ended = new Promise<Ending>((done) => {
        res.once('end', () => done('end'));
        res.once('aborted', () => done('cut'));
        res.once('error', () => done('cut'));
        res.once('close', () => done(res.complete ? 'end' : 'cut'));
      });
      res.once('data', (first: Buffer) => {
        bytes += first.length;
        res.pause();
        const resume = async () => {
          res.on('data', (more: Buffer) => (bytes += more.length));
          res.resume();
          return { ending: await ended, bytes };
        };
        resolve({ status: res.statusCode ?? 0, resume, stop: () => req.destroy() });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const within = <T>(promise: Promise<T>, ms: number): Promise<T | 'still waiting'> =>
  Promise.race([promise, new Promise<'still waiting'>((r) => setTimeout(() => r('still waiting'), ms))]);

const csvRows = (text: string) => (parse(text, { columns: true }) as { id: string }[]).length;

describe('a hand-over is not held by a download', () => {
  it('POST /_cluster/…/hand-over (what workspace move and restore call) cuts a download whose client stopped reading, after a short grace, and completes', async () => {
    const download = await stalledDownload(env.alpha.host, env.alpha.key, '/api/exports/time-entries.csv?from=2026-01-01&to=2026-12-31');
    expect(download.status).toBe(200);
    try {
      const started = performance.now();
      const handedOver = await within(admin('alpha', 'hand-over', { reason: 'moving to node2', operation: 'move-h1' }), 15_000);
      const took = performance.now() - started;
      expect(handedOver === 'still waiting' ? handedOver : handedOver.status).toBe(200);
      // The grace (2 s) and the cut, not the client, decided how long it took.
      expect(took).toBeLessThan(6_000);
      // The stalled client, reading on, finds its download cut short, not a connection left hanging.
      const read = await within(download.resume(), 10_000);
      expect(read === 'still waiting' ? read : read.ending).toBe('cut');
      expect(read === 'still waiting' ? 0 : read.bytes).toBeLessThan(ENTRIES * 200);
      const other = await send(env.url, 'GET', '/api/exports/payments.csv', { host: env.alpha.host, key: env.alpha.key });
      expect(other.status).toBe(503);
      expect(other.body.code).toBe('workspace_moved');
    } finally {
      download.stop();
      await admin('alpha', 'resume', { operation: 'move-h1' });
    }
    // Resumed, the workspace opens its file again and a whole download works (January: every ninth entry).
    const again = await send(env.url, 'GET', '/api/exports/time-entries.csv?from=2026-01-01&to=2026-01-31', { host: env.alpha.host, key: env.alpha.key });
    expect(again.status).toBe(200);
    expect(csvRows(again.text)).toBe(Math.ceil(ENTRIES / 9));
  }, 60_000);

  it('a hand-over cuts a tRPC reports.exportCsv stream: its next read fails with workspace_moved, never on a closed file', async () => {
    const csv = await env.alpha.caller.reports.exportCsv({ report: 'time-entries', from: '2026-01-01', to: '2026-12-31' });
    const pieces = csv.pieces[Symbol.asyncIterator]();
    await pieces.next();
    await pieces.next();
    const handle = env.services.registry.get('alpha')!;
    expect(handle.users).toBe(1);
    try {
      expect(await within(env.services.registry.handOver('alpha', 'a restore', 'restore-h2').then(() => 'handed over'), 10_000)).toBe('handed over');
      expect(handle.sqlite.open).toBe(false);
      await expect(pieces.next()).rejects.toMatchObject({ code: 'workspace_moved' });
    } finally {
      env.services.registry.resume('alpha', 'restore-h2');
    }
  }, 30_000);
});

describe('a stream holds the file while it is read', () => {
  it('tRPC reports.exportCsv (createCaller) keeps its workspace file open when 64 other files are opened meanwhile, and lets it go at the end', async () => {
    const csv = await env.beta.caller.reports.exportCsv({ report: 'time-entries', from: '2026-01-01', to: '2026-12-31' });
    const pieces = csv.pieces[Symbol.asyncIterator]();
    let text = '';
    text += (await pieces.next()).value;
    text += (await pieces.next()).value;
    const handle = env.services.registry.get('beta')!;
    // Other requests open 65 other workspace files (the registry keeps at most 64 open).
    for (let i = 0; i < 65; i++) env.workspace(`other${i}`);
    expect(handle.sqlite.open).toBe(true);
    for (;;) {
      const r = await pieces.next();
      if (r.done) break;
      text += r.value;
    }
    expect(csvRows(text)).toBe(ENTRIES);
    expect(handle.users).toBe(0);
    // Released, the file is closed by the next eviction like any idle one.
    env.services.registry.get('other0');
    env.workspace('other65');
    expect(handle.sqlite.open).toBe(false);
  }, 120_000);

  it('GET /trpc/reports.exportCsv streamed as JSON lines survives the eviction of other files while its client pauses', async () => {
    const input = encodeURIComponent(JSON.stringify({ 0: { report: 'time-entries', from: '2026-01-01', to: '2026-12-31' } }));
    const url = new URL(`/trpc/reports.exportCsv?batch=1&input=${input}`, env.url);
    const text = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(
        { hostname: url.hostname, port: url.port, path: url.pathname + url.search, agent: false, headers: { host: env.beta.host, 'x-api-key': env.beta.key, 'trpc-accept': 'application/jsonl' } },
        (res) => {
          let body = '';
          let paused = false;
          res.setEncoding('utf8');
          res.on('data', (d: string) => {
            body += d;
            if (paused) return;
            paused = true;
            res.pause();
            setTimeout(() => {
              for (let i = 100; i < 166; i++) env.workspace(`other${i}`);
              res.resume();
            }, 300);
          });
          res.on('end', () => resolve(body));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(text).not.toMatch(/"error"/);
    expect((text.match(/\\r\\n/g) ?? []).length).toBe(ENTRIES + 1);
  }, 120_000);
});

describe('a reader that takes nothing for too long is cut', () => {
  it('a stalled download and a stream nobody reads let the file go after the idle limit', async () => {
    const { registry } = env.services;
    const limits = registry.streamLimits;
    const idleBefore = limits.idleMs;
    limits.idleMs = 300;
    try {
      const download = await stalledDownload(env.beta.host, env.beta.key, '/api/exports/time-entries.csv?from=2026-01-01&to=2026-12-31');
      const beta = registry.get('beta')!;
      expect(beta.users).toBe(1);
      await new Promise((r) => setTimeout(r, 800));
      // Cut by the idle limit: the file is let go, and the client reading on finds the download cut short.
      expect(beta.users).toBe(0);
      const read = await within(download.resume(), 10_000);
      expect(read === 'still waiting' ? read : read.ending).toBe('cut');
      download.stop();
      // A tRPC answer nobody iterates (a caller that drops it) holds the file only until the limit.
      const csv = await env.beta.caller.reports.exportCsv({ report: 'time-entries', from: '2026-01-01', to: '2026-12-31' });
      const handle = registry.get('beta')!;
      expect(handle.users).toBe(1);
      await new Promise((r) => setTimeout(r, 800));
      expect(handle.users).toBe(0);
      await expect(csv.pieces[Symbol.asyncIterator]().next()).rejects.toMatchObject({ code: 'export_idle' });
      // Over /trpc without streaming the export is refused, and its pieces, never read, let the file go the same way.
      const input = encodeURIComponent(JSON.stringify({ report: 'time-entries', from: '2026-01-01', to: '2026-12-31' }));
      const plain = await send(env.url, 'GET', `/trpc/reports.exportCsv?input=${input}`, { host: env.beta.host, key: env.beta.key });
      expect(plain.status).toBe(415);
      await new Promise((r) => setTimeout(r, 800));
      expect(handle.users).toBe(0);
    } finally {
      limits.idleMs = idleBefore;
    }
  }, 30_000);
});
