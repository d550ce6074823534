/**
 * Invoice generation time for 100, 1,000 and 5,000 time entries, through the `invoices.create`
 * procedure (input validation, the one query for the entries, the reused prepared line insert, the
 * billed-marking UPDATE and the commit, on a real workspace file with the default FULL sync).
 * The growth should be linear: the per-entry time stays flat as the invoice grows.
 *
 *   npx tsx scripts/bench-invoices.ts
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../src/config.ts';
import { clients, projects, projectUsers, tasks, teamMembers } from '../src/db/schema/index.ts';
import { createServices } from '../src/services.ts';
import { createCaller } from '../src/trpc/router.ts';
import { provisionWorkspace } from '../src/domain/workspace/provision.ts';

const SIZES = [100, 1000, 5000];
const ROUNDS = 5;

export interface InvoiceBenchFigure {
  entries: number;
  medianMs: number;
  perEntryUs: number;
}

export async function run(): Promise<InvoiceBenchFigure[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hourbook-bench-invoices-'));
  const services = createServices(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), { logger: pino({ level: 'silent' }) });
  try {
    const now = new Date();
    const ws = provisionWorkspace(services.registry, { subdomain: 'bench', timeZone: 'UTC', owner: { email: 'owner@bench.test', firstName: 'O', lastName: 'B' } }, now);
    const handle = services.registry.get('bench')!;
    const at = now.toISOString();
    const clientId = randomUUID();
    const projectId = randomUUID();
    const taskId = randomUUID();
    const userId = randomUUID();
    const db = handle.db;
    db.insert(clients).values({ id: clientId, name: 'Bench client', identifier: 'BENCH', currency: 'USD', createdAt: at, updatedAt: at }).run();
    db.insert(projects)
      .values({ id: projectId, clientId, name: 'Bench', identifier: 'BENCH-0001', billingMethod: 'hourly_project_rate', hourlyRateMinor: 12345, currency: 'USD', createdAt: at, updatedAt: at })
      .run();
    db.insert(tasks).values({ id: taskId, projectId, name: 'Work', position: 0, createdAt: at, updatedAt: at }).run();
    db.insert(teamMembers).values({ id: userId, email: 'worker@bench.test', firstName: 'W', lastName: 'B', timeZone: 'UTC', organizationRole: 'Member', createdAt: at, updatedAt: at }).run();
    db.insert(projectUsers).values({ id: randomUUID(), projectId, userId, role: 'regular_user', createdAt: at, updatedAt: at }).run();

    const insertEntry = handle.sqlite.prepare(
      `INSERT INTO time_entries (id, client_id, project_id, task_id, user_id, recorded_on, entered_seconds, seconds, notes, status, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, '2026-11-16', ?, ?, '', 'unbilled', ?, ?)`,
    );
    const makeEntries = handle.sqlite.transaction((n: number) =>
      Array.from({ length: n }, (_, i) => {
        const id = randomUUID();
        const seconds = 900 + (i % 97) * 60;
        insertEntry.run(id, clientId, projectId, taskId, userId, seconds, seconds, at, at);
        return { id, seconds };
      }),
    );
    const caller = createCaller({ services, requestId: 'bench', subdomain: 'bench', apiKey: ws.apiKey });

    let invoiceNo = 0;
    const figures: InvoiceBenchFigure[] = [];
    for (const size of SIZES) {
      const times: number[] = [];
      for (let round = 0; round < ROUNDS + 1; round++) {
        const entries = makeEntries(size);
        const totalMinor = entries.reduce((s, e) => s + Math.floor((e.seconds * 12345 * 2 + 3600) / 7200), 0);
        const input = {
          email: 'owner@bench.test',
          client_id: clientId,
          number: `BENCH-${++invoiceNo}`,
          total: totalMinor / 100,
          invoice_time_entries: entries.map((e) => ({ time_entry_id: e.id, project_id: projectId, task_id: taskId, user_id: userId })),
        };
        const started = process.hrtime.bigint();
        await caller.invoices.create(input);
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        if (round > 0) times.push(ms); // the first round warms up statements and the JIT
      }
      times.sort((a, b) => a - b);
      const medianMs = times[Math.floor(times.length / 2)]!;
      figures.push({ entries: size, medianMs: Math.round(medianMs * 10) / 10, perEntryUs: Math.round((medianMs * 1000) / size) });
    }
    console.log('invoice generation (invoices.create, median of 5):');
    for (const f of figures) console.log(`  ${String(f.entries).padStart(5)} entries: ${f.medianMs.toFixed(1).padStart(7)} ms  (${f.perEntryUs} µs per entry)`);
    return figures;
  } finally {
    services.registry.closeAll();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
