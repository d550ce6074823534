/**
 * Reports on a workspace of 1,000,000 time entries (scripts/bench-reports-data.ts), each figure
 * beside a floor measured in the same run on the same file:
 *
 * - the time report grouped by project and month, through the `reports.time` procedure (goal
 *   ≤ 500 ms), beside a bare `SUM(seconds)` over the same entries (reading each entry once, the
 *   least any exact report must do), the bare per-combination totals the report's own index gives
 *   (what the procedure builds its rows from), and the bare `GROUP BY project, month` a first
 *   draft would run without that index;
 * - the unbilled summary, `reports.unbilled` (goal ≤ 100 ms), beside the bare aggregate of the
 *   unbilled entries over their partial index;
 * - the 1,000,000-row time-entry CSV downloaded over HTTP from a running server (goal ≥ 200,000
 *   rows/s, resident memory growing ≤ 50 MB), beside a bare loop writing the same rows (one
 *   better-sqlite3 `iterate()` and a plain comma join) into a discarding stream; and the CSV writer
 *   beside csv-stringify on the same rows;
 * - the query plan (`EXPLAIN QUERY PLAN`) of every statement the reports run, for docs/reports.md.
 *
 *   npx tsx scripts/bench-reports.ts                 # 1,000,000 entries
 *   BENCH_ENTRIES=200000 npx tsx scripts/bench-reports.ts
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import pino from 'pino';
import { loadConfig } from '../src/config.ts';
import { csvLines, type CsvColumn } from '../src/domain/reports/csv.ts';
import { provisionWorkspace } from '../src/domain/workspace/provision.ts';
import { startServer } from '../src/server.ts';
import { createServices, type AppServices } from '../src/services.ts';
import { createCaller } from '../src/trpc/router.ts';
import type { WorkspaceHandle } from '../src/workspaces/handle.ts';
import { DEFAULT_SHAPE, seedReportData } from './bench-reports-data.ts';
import { printRows, record } from './bench-report.ts';

const ROUNDS = 5;
const SUBDOMAIN = 'bench';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (n: number) => `${n.toFixed(0).padStart(5)} ms`;

/** Median wall time of `rounds` runs after one warm-up run, and the last result. */
async function timed<T>(run: () => Promise<T> | T, rounds = ROUNDS): Promise<{ ms: number; cpuMs: number; result: T }> {
  let result = await run();
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const cpu = process.cpuUsage();
    const t = process.hrtime.bigint();
    result = await run();
    walls.push(Number(process.hrtime.bigint() - t) / 1e6);
    const c = process.cpuUsage(cpu);
    cpus.push((c.user + c.system) / 1000);
  }
  return { ms: median(walls), cpuMs: median(cpus), result };
}

const SECTION = 'reports';

/** One row per floor; the goal (a wall time) stands on the first. */
function line(name: string, figure: { ms: number; cpuMs: number }, goalMs: number, floors: [string, { ms: number }][]) {
  console.log(`  ${name}: ${ms(figure.ms)} (cpu ${ms(figure.cpuMs)})`);
  floors.forEach(([label, floor], i) =>
    record({ section: SECTION, figure: name, value: figure.ms, unit: 'ms', floor: { value: floor.ms, label }, ...(i === 0 ? { goal: { of: 'value', atMost: goalMs } } : {}) }),
  );
}

/** Records every statement the reports prepare and the values they run with, for EXPLAIN QUERY PLAN. */
function recordStatements(handle: WorkspaceHandle): { take: () => { sql: string; params: unknown[] }[] } {
  const seen = new Map<string, unknown[]>();
  const sqlite = handle.sqlite;
  const prepare = sqlite.prepare.bind(sqlite);
  sqlite.prepare = ((source: string) => {
    const statement = prepare(source);
    for (const method of ['all', 'get', 'iterate', 'run'] as const) {
      const original = statement[method].bind(statement) as (...args: unknown[]) => unknown;
      (statement as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
        if (/^\s*(SELECT|WITH)/i.test(source)) seen.set(source.replace(/\s+/g, ' ').trim(), args);
        return original(...args);
      };
    }
    return statement;
  }) as typeof sqlite.prepare;
  return {
    take: () => {
      sqlite.prepare = prepare as typeof sqlite.prepare;
      return [...seen].map(([sql, params]) => ({ sql, params }));
    },
  };
}

function printPlans(handle: WorkspaceHandle, label: string, statements: { sql: string; params: unknown[] }[]) {
  console.log(`\n  EXPLAIN QUERY PLAN, ${label}:`);
  for (const { sql, params } of statements) {
    if (/sqlite_master|FROM `?workspace`?|api_keys|team_members" where|PRAGMA/i.test(sql)) continue;
    const plan = handle.sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...(params as never[])) as { detail: string }[];
    console.log(`    ${sql.length > 160 ? `${sql.slice(0, 157)}...` : sql}`);
    for (const p of plan) console.log(`      ${p.detail}`);
  }
}

/**
 * The client of the export: a separate process, as a real client is, so that its own work (reading
 * the socket, counting lines) neither takes the server's thread nor counts in the server's memory.
 * It prints the rows (line ends, less the header; notes hold no line breaks in the bench data), the
 * status and the wall time from request to last byte.
 */
const CLIENT = `
const { request } = require('node:http');
const [url, host, key] = process.argv.slice(1);
const started = process.hrtime.bigint();
request(url, { headers: { host, 'x-api-key': key } }, (res) => {
  let lines = 0;
  res.on('data', (chunk) => { for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++; });
  res.on('end', () => console.log(JSON.stringify({ status: res.statusCode, rows: lines - 1, ms: Number(process.hrtime.bigint() - started) / 1e6 })));
}).end();`;

/** Downloads an export over HTTP from a client process, the server's resident memory sampled meanwhile. */
async function download(url: string, key: string, path: string): Promise<{ rows: number; ms: number; rssGrowthMb: number }> {
  const base = process.memoryUsage().rss;
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  try {
    const child = spawn(process.execPath, ['-e', CLIENT, new URL(path, url).href, `${SUBDOMAIN}.localhost`, key], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const [code] = (await once(child, 'close')) as [number];
    const got = JSON.parse(out || '{}') as { status?: number; rows: number; ms: number };
    if (code !== 0 || got.status !== 200) throw new Error(`export client ended with ${code}, status ${got.status}`);
    return { rows: got.rows, ms: got.ms, rssGrowthMb: (peak - base) / 1024 / 1024 };
  } finally {
    clearInterval(sampler);
  }
}

/** The floor of the export: the same rows read with one `iterate()`, joined with commas, written to a discarding stream. */
async function bareExport(handle: WorkspaceHandle, from: string, to: string): Promise<{ rows: number; ms: number }> {
  const sink = new Writable({ write: (_chunk, _enc, done) => done(), highWaterMark: 1 << 16 });
  const started = process.hrtime.bigint();
  let rows = 0;
  let buffer = '';
  const statement = handle.sqlite
    .prepare(
      `SELECT e.id, e.recorded_on, e.client_id, e.project_id, e.task_id, e.user_id, e.seconds, e.status, e.notes, e.invoice_id, e.created_at, e.updated_at
       FROM time_entries e INDEXED BY time_entries_day_idx WHERE e.recorded_on BETWEEN ? AND ? ORDER BY e.recorded_on, e.rowid`,
    )
    .raw();
  for (const row of statement.iterate(from, to) as Iterable<unknown[]>) {
    buffer += row.join(',') + '\r\n';
    rows++;
    if (buffer.length > 1 << 16) {
      if (!sink.write(buffer)) await new Promise((r) => sink.once('drain', r));
      buffer = '';
    }
  }
  sink.end(buffer);
  return { rows, ms: Number(process.hrtime.bigint() - started) / 1e6 };
}

/** The CSV writer beside csv-stringify (with the same formula neutralisation as a cast) on the same rows. */
function writerComparison(handle: WorkspaceHandle) {
  const rows = handle.sqlite.prepare('SELECT id, recorded_on, project_id, user_id, seconds, status, notes, created_at FROM time_entries LIMIT 200000').raw().all() as unknown[][];
  const columns: CsvColumn<unknown[]>[] = rows[0]!.map((_, i) => ({ header: String(i), kind: i === 4 ? 'number' : 'text', value: (r) => r[i] as string | number }));
  const time = (f: () => void) => {
    const t = process.hrtime.bigint();
    f();
    return Number(process.hrtime.bigint() - t) / 1e6;
  };
  const slices = (f: (slice: unknown[][]) => string) => () => {
    for (let i = 0; i < rows.length; i += 5000) f(rows.slice(i, i + 5000));
  };
  const ours = median([0, 1, 2].map(() => time(slices((s) => csvLines(columns, s)))));
  const neutralise = (v: string) => (/^[=+\-@\t\r]/.test(v) ? `'${v}` : v);
  const library = median([0, 1, 2].map(() => time(slices((s) => stringify(s, { record_delimiter: 'windows', cast: { string: neutralise } })))));
  const rate = (t: number) => (rows.length / t) * 1000;
  record({
    section: SECTION,
    figure: `CSV writer, ${rows.length.toLocaleString('en-US')} rows`,
    value: rate(ours),
    unit: 'rows/s',
    floor: { value: rate(library), label: 'csv-stringify (sync, same neutralisation)' },
    goal: { of: 'ratio', atLeast: 1 },
  });
}

async function reports(services: AppServices, key: string, handle: WorkspaceHandle, from: string, to: string) {
  const caller = createCaller({ services, requestId: 'bench', subdomain: SUBDOMAIN, apiKey: key });
  const sqlite = handle.sqlite;
  console.log('\n  time report, grouped by project and month:');
  const report = await timed(() => caller.reports.time({ from, to, by: ['project', 'month'] }));
  const scan = sqlite.prepare('SELECT SUM(seconds) FROM time_entries INDEXED BY time_entries_day_idx WHERE recorded_on BETWEEN ? AND ?');
  const naive = sqlite.prepare('SELECT project_id, substr(recorded_on, 1, 7), SUM(seconds) FROM time_entries WHERE recorded_on BETWEEN ? AND ? GROUP BY 1, 2');
  const byCombo = sqlite.prepare(
    `SELECT combo_id, substr(recorded_on, 1, 7), status, COUNT(*), SUM(seconds) FROM time_entries INDEXED BY time_entries_report_idx
     WHERE combo_id > 0 AND recorded_on BETWEEN ? AND ? GROUP BY 1, 2, 3`,
  );
  line(`reports.time (${report.result.rows.length} rows, ${report.result.totals.entries.toLocaleString('en-US')} entries)`, report, 500, [
    ['bare SUM(seconds) over the entries', await timed(() => scan.get(from, to))],
    ['bare GROUP BY combination, month, status over the report index', await timed(() => byCombo.all(from, to))],
    ['bare GROUP BY project, month (a first draft, without the report index)', await timed(() => naive.all(from, to))],
  ]);

  // The priced combinations are kept until a price may have changed (src/domain/reports/combos.ts):
  // the first report after a rate change prices again the combinations of the project it changed
  // (here one project's). Only the report is timed.
  const bump = sqlite.prepare('UPDATE projects SET hourly_rate_minor = hourly_rate_minor + 1 WHERE id = (SELECT min(id) FROM projects)');
  const afterChange: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    bump.run();
    const t = process.hrtime.bigint();
    await caller.reports.time({ from, to, by: ['project', 'month'] });
    afterChange.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  console.log(`  the same, first after a rate change: ${ms(median(afterChange))}`);
  record({ section: SECTION, figure: 'reports.time, first after a rate change (its project priced again)', value: median(afterChange), unit: 'ms', goal: { of: 'value', atMost: 500 } });

  console.log('\n  unbilled summary:');
  const unbilled = await timed(() => caller.reports.unbilled({}));
  const bare = sqlite.prepare(
    "SELECT combo_id, COUNT(*), SUM(seconds), MIN(recorded_on), MAX(recorded_on) FROM time_entries INDEXED BY time_entries_unbilled_idx WHERE status = 'unbilled' GROUP BY combo_id",
  );
  line(`reports.unbilled (${unbilled.result.rows.length} rows, ${unbilled.result.totals.reduce((t, x) => t + x.entries, 0).toLocaleString('en-US')} entries)`, unbilled, 100, [
    ['bare GROUP BY combination of the unbilled entries (their partial index)', await timed(() => bare.all())],
  ]);

  const recorder = recordStatements(handle);
  await caller.reports.time({ from, to, by: ['project', 'month'] });
  await caller.reports.time({ from, to, by: ['person', 'week'] });
  await caller.reports.unbilled({});
  await caller.reports.receivables({});
  await caller.reports.paidPerMonth({});
  const exported = await caller.reports.exportCsv({ report: 'time-entries', from, to: from });
  for await (const piece of exported.pieces) void piece;
  printPlans(handle, 'every statement the reports ran', recorder.take());
}

export async function run(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hourbook-bench-reports-'));
  const services = createServices(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '0' }), { logger: pino({ level: 'silent' }) });
  try {
    const shape = { ...DEFAULT_SHAPE, entries: Number(process.env.BENCH_ENTRIES ?? DEFAULT_SHAPE.entries) };
    // "Today" is the day after the data ends, so the unbilled summary and receivables see all of it.
    const ws = provisionWorkspace(services.registry, { subdomain: SUBDOMAIN, timeZone: 'UTC', owner: { email: 'owner@bench.test', firstName: 'O', lastName: 'B' } }, new Date());
    const handle = services.registry.get(SUBDOMAIN)!;
    const seeding = process.hrtime.bigint();
    const seeded = seedReportData(handle.sqlite, ws.owner.id, shape);
    console.log(
      `seeded ${shape.entries.toLocaleString('en-US')} entries (${seeded.clientIds.length} clients, ${seeded.projectIds.length} projects, ${seeded.peopleIds.length} people), ${seeded.invoices} invoices and ${seeded.payments} payments in ${(Number(process.hrtime.bigint() - seeding) / 1e9).toFixed(1)} s`,
    );
    await reports(services, ws.apiKey, handle, shape.from, shape.to);
    writerComparison(handle);

    console.log(`\n  time-entry CSV export over HTTP (${shape.entries.toLocaleString('en-US')} rows):`);
    const server = await startServer(services, { port: 0, host: '127.0.0.1', jobs: false });
    try {
      const path = `/api/exports/time-entries.csv?from=${shape.from}&to=${shape.to}`;
      await download(server.url, ws.apiKey, `/api/exports/time-entries.csv?from=${shape.from}&to=${shape.from}`); // warm up
      const got = await download(server.url, ws.apiKey, path);
      const floor = await bareExport(handle, shape.from, shape.to);
      const rate = (rows: number, t: number) => (rows / t) * 1000;
      const ours = rate(got.rows, got.ms);
      const figure = `GET time-entries.csv, ${got.rows.toLocaleString('en-US')} rows`;
      record({ section: SECTION, figure, value: ours, unit: 'rows/s', floor: { value: rate(floor.rows, floor.ms), label: 'bare iterate() + comma join into a discarding stream' }, goal: { of: 'value', atLeast: 200_000 } });
      record({ section: SECTION, figure: `${figure}: resident memory growth`, value: got.rssGrowthMb, unit: 'MB', goal: { of: 'value', atMost: 50 } });
      printRows(SECTION);
    } finally {
      await server.close();
    }
  } finally {
    services.registry.closeAll();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
