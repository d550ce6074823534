/**
 * Invoice generation time for 100, 1,000 and 5,000 time entries, through the `invoices.create`
 * procedure and over HTTP (endpoint 1), on a real workspace file with the default FULL sync, beside
 * a floor: the same statements (read the entries, insert the lines, mark them billed) through
 * better-sqlite3 alone. The growth should be linear: the time per entry stays flat.
 *
 * The HTTP client is a process of its own. Each invoice bills a month's work of a team (10 people on 5 tasks), a month no invoice billed
 * before, as an agency invoices; another figure bills 5,000 entries that all share one day, person
 * and task with every earlier invoice's, the worst case for the reports' index. A last one runs the
 * floor's statements on a copy of the file without the indexes billing moves an entry in,
 * alternated with the file itself, to show how much of the 5,000-entry time those indexes are.
 *
 *   npx tsx scripts/bench-invoices.ts
 */
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import pino from 'pino';
import { loadConfig } from '../src/config.ts';
import { clients, projects, projectUsers, tasks, teamMembers } from '../src/db/schema/index.ts';
import { addDays } from '../src/domain/time/calendar.ts';
import { createServices } from '../src/services.ts';
import { createCaller } from '../src/trpc/router.ts';
import { provisionWorkspace } from '../src/domain/workspace/provision.ts';
import { startServer } from '../src/server.ts';
import { printRows, record } from './bench-report.ts';

const SIZES = [100, 1000, 5000];
const ROUNDS = 5;
/**
 * Rounds run first at each size and not counted: they warm up the statements and the JIT (with one,
 * the 1,000-entry figure still came out at 35-52 ms, against 25 ms in steady state).
 */
const WARMUP = 3;
/** The team whose month of work an invoice bills. */
const PEOPLE = 10;
const TASKS = 5;

type How = 'procedure' | 'http' | 'floor';
type Shape = 'month' | 'one day';

const SECTION = 'invoices';

/** The indexes that marking an entry billed moves it in (its status and updated_at change). */
const BILLING_INDEXES = ['time_entries_report_idx', 'time_entries_unbilled_idx', 'time_entries_updated_idx'];

/**
 * The statements an invoice of time entries needs at the least, as the procedure runs them: read
 * the entries with their rates, insert the invoice and its lines, mark the entries billed (only
 * those still unbilled, `+status` keeping SQLite on the id lookups). Lines are one prepared run
 * each: in this run a single INSERT … SELECT over json_each was slower than that.
 */
function floorStatements(sqlite: BetterSqlite3.Database) {
  const read = sqlite.prepare(
    `SELECT e.rowid AS rowid, e.id, e.seconds, e.combo_id, e.status, p.hourly_rate_minor
     FROM json_each(?) AS named CROSS JOIN time_entries e ON e.id = named.value JOIN projects p ON p.id = e.project_id`,
  );
  const invoice = sqlite.prepare(
    `INSERT INTO invoices (id, client_id, creator_id, number, currency, issue_date, due_date, subtotal_minor, tax_minor, total_minor, public_token, created_at, updated_at)
     VALUES (?, ?, (SELECT id FROM team_members LIMIT 1), ?, 'USD', '2026-11-16', '2026-12-16', 0, 0, 0, ?, 'x', 'x')`,
  );
  const line = sqlite.prepare(
    `INSERT INTO invoice_lines (invoice_id, kind, position, time_entry_id, combo_id, notes, seconds, hourly_rate_minor, amount_minor)
     VALUES (?, 'time_entry', ?, ?, ?, '', ?, ?, ?)`,
  );
  const bill = sqlite.prepare(`UPDATE time_entries SET status = 'billed', invoice_id = ?, updated_at = ? WHERE rowid IN (SELECT value FROM json_each(?)) AND +status = 'unbilled'`);
  return sqlite.transaction((clientId: string, number: string, ids: string[]) => {
    const json = JSON.stringify(ids);
    const rows = read.all(json) as { rowid: number; id: string; seconds: number; combo_id: number; hourly_rate_minor: number }[];
    const invoiceId = randomUUID();
    invoice.run(invoiceId, clientId, `${number}-floor`, randomUUID());
    rows.forEach((r, i) =>
      line.run(invoiceId, i, r.id, r.combo_id, r.seconds, r.hourly_rate_minor, Math.floor((r.seconds * r.hourly_rate_minor * 2 + 3600) / 7200)),
    );
    bill.run(invoiceId, new Date().toISOString(), JSON.stringify(rows.map((r) => r.rowid)));
  });
}

/**
 * The HTTP client: a process of its own, as a real client is, so that serializing a request of
 * 5,000 lines (800 KB) and reading the answer are not counted as the server's time. It times one
 * POST from its first byte sent to the answer's last byte read.
 */
function startClient() {
  const child = fork(fileURLToPath(import.meta.url), ['--client'], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  return {
    post: (url: string, headers: Record<string, string>, body: unknown) =>
      new Promise<number>((resolve, reject) => {
        child.once('message', (m: { ms?: number; error?: string }) => (m.error ? reject(new Error(m.error)) : resolve(m.ms!)));
        child.send({ url, headers, body });
      }),
    stop: () => child.kill(),
  };
}

/** The client process: for each message, POSTs the body as JSON and answers with the time it took. */
function client(): void {
  process.on('message', ({ url, headers, body }: { url: string; headers: Record<string, string>; body: unknown }) => {
    const payload = JSON.stringify(body);
    const started = process.hrtime.bigint();
    // node:http, since fetch may not set Host and the workspace is chosen by it
    const req = request(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        process.send!(res.statusCode === 201 ? { ms } : { error: `invoice over HTTP answered ${res.statusCode}: ${text}` });
      });
    });
    req.on('error', (err) => process.send!({ error: err.message }));
    req.end(payload);
  });
}

export async function run(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hourbook-bench-invoices-'));
  const services = createServices(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), { logger: pino({ level: 'silent' }) });
  try {
    const now = new Date();
    const ws = provisionWorkspace(services.registry, { subdomain: 'bench', timeZone: 'UTC', owner: { email: 'owner@bench.test', firstName: 'O', lastName: 'B' } }, now);
    const handle = services.registry.get('bench')!;
    const at = now.toISOString();
    const clientId = randomUUID();
    const projectId = randomUUID();
    const taskIds = Array.from({ length: TASKS }, () => randomUUID());
    const userIds = Array.from({ length: PEOPLE }, () => randomUUID());
    const db = handle.db;
    db.insert(clients).values({ id: clientId, name: 'Bench client', identifier: 'BENCH', currency: 'USD', createdAt: at, updatedAt: at }).run();
    db.insert(projects)
      .values({ id: projectId, clientId, name: 'Bench', identifier: 'BENCH-0001', billingMethod: 'hourly_project_rate', hourlyRateMinor: 12345, currency: 'USD', createdAt: at, updatedAt: at })
      .run();
    taskIds.forEach((id, position) => db.insert(tasks).values({ id, projectId, name: `Task ${position}`, position, createdAt: at, updatedAt: at }).run());
    userIds.forEach((userId, i) => {
      db.insert(teamMembers).values({ id: userId, email: `worker${i}@bench.test`, firstName: 'W', lastName: `B${i}`, timeZone: 'UTC', organizationRole: 'Member', createdAt: at, updatedAt: at }).run();
      db.insert(projectUsers).values({ id: randomUUID(), projectId, userId, role: 'regular_user', createdAt: at, updatedAt: at }).run();
    });

    let month = 0;
    const makeEntries = entryMaker(handle.sqlite);
    /**
     * Entries of one invoice, recorded just before it through `sqlite`. `month`: a month's work of
     * the team (each person on each task, over the month's days), a month not billed before, as
     * agencies invoice. `one day`: every entry of one person on one task on the same day as every
     * earlier invoice's, the worst case for the reports' index, which orders entries by status, day
     * and seconds.
     */
    function entryMaker(sqlite: BetterSqlite3.Database) {
      const insertEntry = sqlite.prepare(
        `INSERT INTO time_entries (id, client_id, project_id, task_id, user_id, recorded_on, entered_seconds, seconds, notes, status, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, '', 'unbilled', ?, ?)`,
      );
      return sqlite.transaction((n: number, shape: Shape) => {
        const first = new Date(Date.UTC(2026, 9 - month++, 1)).toISOString().slice(0, 10);
        return Array.from({ length: n }, (_, i) => {
          const id = randomUUID();
          const seconds = 900 + (i % 97) * 60;
          const [taskId, userId, day] =
            shape === 'month' ? [taskIds[Math.floor(i / PEOPLE) % TASKS]!, userIds[i % PEOPLE]!, addDays(first, Math.floor(i / (PEOPLE * TASKS)) % 28)] : [taskIds[0]!, userIds[0]!, '2026-11-16'];
          insertEntry.run(id, clientId, projectId, taskId, userId, day, seconds, seconds, at, at);
          return { id, seconds, taskId, userId };
        });
      });
    }
    const caller = createCaller({ services, requestId: 'bench', subdomain: 'bench', apiKey: ws.apiKey });

    let invoiceNo = 0;
    const inputFor = (size: number, shape: Shape) => {
      const entries = makeEntries(size, shape);
      const totalMinor = entries.reduce((s, e) => s + Math.floor((e.seconds * 12345 * 2 + 3600) / 7200), 0);
      return {
        entries,
        input: {
          email: 'owner@bench.test',
          client_id: clientId,
          number: `BENCH-${++invoiceNo}`,
          total: totalMinor / 100,
          invoice_time_entries: entries.map((e) => ({ time_entry_id: e.id, project_id: projectId, task_id: e.taskId, user_id: e.userId })),
        },
      };
    };
    const server = await startServer(services, { port: 0, host: '127.0.0.1', jobs: false });
    const client = startClient();
    /** The floor: the same reads and writes through better-sqlite3 alone, in one transaction. */
    const bare = floorStatements(handle.sqlite);
    const timed = async (size: number, how: How, shape: Shape): Promise<number> => {
      const { input, entries } = inputFor(size, shape);
      if (how === 'http') return client.post(`${server.url}/api/external/v2/clients/${clientId}/invoices`, { host: 'bench.localhost', 'x-api-key': ws.apiKey }, input);
      const started = process.hrtime.bigint();
      if (how === 'procedure') await caller.invoices.create(input);
      else bare(clientId, input.number, entries.map((e) => e.id));
      return Number(process.hrtime.bigint() - started) / 1e6;
    };
    /**
     * How much of the floor the indexes cost: the floor's statements alternated, round by round, on
     * this file and on a copy of it without the indexes an entry moves in when billed (the
     * reports', the unbilled summary's and `updated_since`'s), none of which the product can do
     * without. The copy is the file's own pages (a checkpoint, then a file copy), opened through
     * the registry with the settings of every workspace connection. Alternated, since within one
     * run this machine's speed drifts by more than the indexes cost. Medians, ms.
     */
    const billingIndexesCost = (): { withThem: number; without: number } => {
      handle.sqlite.pragma('wal_checkpoint(TRUNCATE)');
      copyFileSync(handle.file, services.registry.fileFor('bench-bare'));
      const bare = services.registry.get('bench-bare')!;
      for (const index of BILLING_INDEXES) bare.sqlite.exec(`DROP INDEX ${index}`);
      const ways = [handle, bare].map((h) => ({ entriesOf: entryMaker(h.sqlite), billed: floorStatements(h.sqlite), times: [] as number[] }));
      for (let round = 0; round < ROUNDS + WARMUP; round++) {
        for (let k = 0; k < ways.length; k++) {
          const way = ways[(round + k) % ways.length]!;
          const ids = way.entriesOf(5000, 'month').map((e) => e.id);
          const started = process.hrtime.bigint();
          way.billed(clientId, `INDEXES-${round}-${k}`, ids);
          if (round >= WARMUP) way.times.push(Number(process.hrtime.bigint() - started) / 1e6);
        }
      }
      return { withThem: median(ways[0]!.times), without: median(ways[1]!.times) };
    };
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    /**
     * The medians of each way at one size, the ways alternated round by round (and their order
     * rotated), so none is measured on a file grown larger by the others' invoices.
     */
    const mediansOf = async (size: number, ways: How[], shape: Shape = 'month'): Promise<Record<How, number>> => {
      const times: Record<How, number[]> = { procedure: [], http: [], floor: [] };
      for (let round = 0; round < ROUNDS + WARMUP; round++) {
        for (let i = 0; i < ways.length; i++) {
          const how = ways[(round + i) % ways.length]!;
          const ms = await timed(size, how, shape);
          if (round >= WARMUP) times[how].push(ms);
        }
      }
      return { procedure: median(times.procedure), http: times.http.length ? median(times.http) : NaN, floor: median(times.floor) };
    };
    try {
      const perEntry: Record<number, number> = {};
      for (const size of SIZES) {
        const m = await mediansOf(size, size === 5000 ? ['floor', 'procedure', 'http'] : ['floor', 'procedure']);
        perEntry[size] = m.procedure / size;
        const label = 'the same statements in better-sqlite3 alone';
        record({ section: SECTION, figure: `invoice of ${size} entries, procedure`, value: m.procedure, unit: 'ms', floor: { value: m.floor, label }, ...(size === 5000 ? { goal: { of: 'value', atMost: 50 } } : {}) });
        if (size === 5000) record({ section: SECTION, figure: `invoice of ${size} entries, over HTTP`, value: m.http, unit: 'ms', floor: { value: m.floor, label }, goal: { of: 'value', atMost: 100 } });
      }
      const worst = await mediansOf(5000, ['floor', 'procedure'], 'one day');
      record({
        section: SECTION,
        figure: 'invoice of 5000 entries of one day, one person and task, procedure',
        value: worst.procedure,
        unit: 'ms',
        floor: { value: worst.floor, label: 'the same statements in better-sqlite3 alone' },
      });
      const indexes = billingIndexesCost();
      record({
        section: SECTION,
        figure: 'invoice of 5000 entries, floor on a copy without the three indexes billing moves',
        value: indexes.without,
        unit: 'ms',
        floor: { value: indexes.withThem, label: 'the floor with them, alternated' },
      });
      // Linear: the time per entry at 5,000 is no more than at 100 (within a margin for noise).
      record({ section: SECTION, figure: 'time per entry, 5,000 vs 100 entries', value: perEntry[5000]! * 1000, unit: 'µs', floor: { value: perEntry[100]! * 1000, label: 'per entry at 100' }, goal: { of: 'ratio', atMost: 1.25 } });
      printRows(SECTION);
    } finally {
      client.stop();
      await server.close();
    }
  } finally {
    services.registry.closeAll();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv.includes('--client')) client();
else if (import.meta.url === `file://${process.argv[1]}`) await run();
