/**
 * Reads: a page of 100 team members out of 10,000 through HTTP (endpoint 16), beside a bare
 * node:http server answering the same page with one prepared query on the same file; and opening a
 * workspace file that is not open yet, beside opening the same file with better-sqlite3 alone.
 *
 *   npx tsx scripts/bench-reads.ts
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pino from 'pino';
import { loadConfig } from '../src/config.ts';
import { provisionWorkspace } from '../src/domain/workspace/provision.ts';
import { createServices } from '../src/services.ts';
import { startServer } from '../src/server.ts';
import { WorkspaceHandle } from '../src/workspaces/handle.ts';
import { printRows, record } from './bench-report.ts';

const SECTION = 'reads';
const MEMBERS = 10_000;
const REQUESTS = 1_000;

function get(port: number, path: string, headers: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, agent: keepAlive }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${path} answered ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end();
  });
}
let keepAlive: import('node:http').Agent;

/** The median time of sequential requests, after a warm-up of the same size. */
async function p50(port: number, path: string, headers: Record<string, string>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 2 * REQUESTS; i++) {
    const started = performance.now();
    await get(port, path, headers);
    if (i >= REQUESTS) times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

const portOf = (server: Server) => {
  const address = server.address();
  return typeof address === 'object' && address ? address.port : 0;
};

export async function run(): Promise<void> {
  const { Agent } = await import('node:http');
  keepAlive = new Agent({ keepAlive: true, maxSockets: 1 });
  const dataDir = mkdtempSync(join(tmpdir(), 'hourbook-bench-reads-'));
  const services = createServices(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', PORT: '0', RATE_LIMIT_PER_MINUTE: '0' }), { logger: pino({ level: 'silent' }) });
  const ws = provisionWorkspace(services.registry, { subdomain: 'bench', timeZone: 'UTC', owner: { email: 'owner@bench.test', firstName: 'O', lastName: 'B' } }, new Date());
  const handle = services.registry.get('bench')!;
  const insert = handle.sqlite.prepare(
    `INSERT INTO team_members (id, email, first_name, last_name, time_zone, organization_role, created_at, updated_at) VALUES (?, ?, 'Bench', ?, 'UTC', 'Member', ?, ?)`,
  );
  handle.sqlite.transaction(() => {
    for (let i = 1; i < MEMBERS; i++) {
      const at = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
      insert.run(randomUUID(), `member${i}@bench.test`, `Member ${i}`, at, at);
    }
  })();
  const app = await startServer(services, { port: 0, host: '127.0.0.1', jobs: false });
  // The floor: the same page from the same file, one prepared query, JSON out.
  const bare = new BetterSqlite3(handle.file, { readonly: true });
  const page = bare.prepare('SELECT id, email, first_name, last_name, time_zone, profile_image_url, active, organization_role FROM team_members ORDER BY created_at, id LIMIT 100 OFFSET ?');
  const total = bare.prepare('SELECT count(*) FROM team_members').pluck();
  const floorServer = createServer((req, res) => {
    const n = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page_number') ?? 1);
    const rows = page.all((n - 1) * 100);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ team_members: rows, pagination: { total_records: total.get(), current_page: n, page_size: 100 } }));
  });
  await new Promise<void>((done) => floorServer.listen(0, '127.0.0.1', done));
  try {
    const path = '/api/external/v2/team-members?page_number=50&page_size=100';
    const appMs = await p50(Number(new URL(app.url).port), path, { host: 'bench.localhost', 'x-api-key': ws.apiKey, accept: 'application/json' });
    const floorMs = await p50(portOf(floorServer), path, {});
    record({ section: SECTION, figure: 'team-member page of 100 out of 10,000, p50', value: appMs, unit: 'ms', floor: { value: floorMs, label: 'bare node:http + one prepared query' }, goal: { of: 'value', atMost: 3 } });

    // Cold open: a workspace file that is not open, then one read through it.
    handle.close();
    const file = handle.file;
    const cold: number[] = [];
    const bareOpen: number[] = [];
    for (let i = 0; i < 50; i++) {
      let started = performance.now();
      const h = new WorkspaceHandle('bench', file, { synchronous: 'FULL' });
      h.sqlite.prepare('SELECT id FROM workspace').get();
      cold.push(performance.now() - started);
      h.close();
      started = performance.now();
      const b = new BetterSqlite3(file);
      b.pragma('journal_mode = WAL');
      b.prepare('SELECT id FROM workspace').get();
      bareOpen.push(performance.now() - started);
      b.close();
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    record({ section: SECTION, figure: 'cold workspace open + first read', value: median(cold), unit: 'ms', floor: { value: median(bareOpen), label: 'better-sqlite3 open + the same read' }, goal: { of: 'value', atMost: 3 } });
    printRows(SECTION);
  } finally {
    floorServer.close();
    bare.close();
    keepAlive.destroy();
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === `file://${process.argv[1]}`) await run();
