/**
 * The data set of the reports benchmark: an agency with 30 clients in three currencies, 300
 * projects of 6-18 months each (all four billing methods), 200 people and 1,000,000 time entries
 * over five years, most of them billed, the last two months unbilled; plus invoices and payments.
 *
 * Written fast: raw prepared inserts in one transaction, with the secondary indexes and triggers of
 * the big tables dropped during the load and rebuilt after it (one sort each instead of a million
 * B-tree inserts and trigger runs; `time_entry_combos` and each entry's `combo_id` are then
 * filled in one statement each, as their migration does). Ids are valid UUIDs counted upwards, so
 * primary keys are appended, not scattered.
 * A seeded random generator makes every run load the same rows.
 */
import type BetterSqlite3 from 'better-sqlite3';

export interface ReportDataShape {
  entries: number;
  clients: number;
  projects: number;
  people: number;
  /** The first and last possible `recorded_on`. */
  from: string;
  to: string;
  /** Entries on or after this date are unbilled (or pending approval); older ones mostly billed. */
  unbilledSince: string;
}

export const DEFAULT_SHAPE: ReportDataShape = {
  entries: 1_000_000,
  clients: 30,
  projects: 300,
  people: 200,
  from: '2021-01-01',
  to: '2025-12-31',
  unbilledSince: '2025-11-01',
};

const CURRENCIES = ['USD', 'USD', 'USD', 'USD', 'USD', 'EUR', 'EUR', 'EUR', 'JPY', 'JPY'] as const;
const METHODS = ['hourly_project_rate', 'hourly_project_rate', 'hourly_person_rate', 'hourly_task_rate', 'fixed_price_project'] as const;

/** Mulberry32: small, fast and good enough to spread benchmark rows. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A valid UUID (version 4 layout) whose value grows with `n`, for one table `kind` (0-15). */
const seqId = (kind: number, n: number) => `${kind.toString(16).padStart(8, '0')}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

const DAY = 86_400_000;
const dayNumber = (date: string) => Date.parse(`${date}T00:00:00Z`) / DAY;
const dateOf = (day: number) => new Date(day * DAY).toISOString().slice(0, 10);

interface SeedProject {
  id: string;
  clientId: string;
  firstDay: number;
  lastDay: number;
  tasks: { id: string; billable: boolean }[];
  users: string[];
  approvals: boolean;
  roundUpto: number;
}

export interface SeededData {
  shape: ReportDataShape;
  clientIds: string[];
  projectIds: string[];
  peopleIds: string[];
  invoices: number;
  payments: number;
}

/** Loads the data set into an open, migrated, empty workspace file (its owner already exists). */
export function seedReportData(sqlite: BetterSqlite3.Database, ownerId: string, shape: ReportDataShape = DEFAULT_SHAPE): SeededData {
  const rnd = random(20260101);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
  const at = '2025-12-31T12:00:00.000Z';
  const dropped = dropIndexesAndTriggers(sqlite, ['time_entries', 'invoices', 'payments']);
  const load = sqlite.transaction(() => {
    const people = Array.from({ length: shape.people }, (_, i) => seqId(1, i));
    const member = sqlite.prepare(
      `INSERT INTO team_members (id, email, first_name, last_name, time_zone, organization_role, created_at, updated_at) VALUES (?, ?, ?, ?, 'UTC', 'Member', ?, ?)`,
    );
    people.forEach((id, i) => member.run(id, `person${i}@bench.test`, `Person`, `${i}`, at, at));

    const clientIds = Array.from({ length: shape.clients }, (_, i) => seqId(2, i));
    const currencyOf = new Map<string, string>();
    const client = sqlite.prepare(`INSERT INTO clients (id, name, identifier, currency, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`);
    clientIds.forEach((id, i) => {
      const currency = CURRENCIES[i % CURRENCIES.length]!;
      currencyOf.set(id, currency);
      client.run(id, `Client ${i}`, `C${i}`, currency, at, at);
    });

    const project = sqlite.prepare(
      `INSERT INTO projects (id, client_id, name, identifier, billing_method, hourly_rate_minor, flat_amount_minor, currency, time_round_upto, enable_approvals, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const task = sqlite.prepare(`INSERT INTO tasks (id, project_id, name, billable, hourly_rate_minor, position, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
    const projectUser = sqlite.prepare(
      `INSERT INTO project_users (id, project_id, user_id, role, hourly_rate_minor, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    const first = dayNumber(shape.from);
    const last = dayNumber(shape.to);
    const projects: SeedProject[] = [];
    let taskN = 0;
    let projectUserN = 0;
    for (let i = 0; i < shape.projects; i++) {
      const id = seqId(3, i);
      const clientId = clientIds[i % clientIds.length]!;
      const currency = currencyOf.get(clientId)!;
      const scale = currency === 'JPY' ? 1 : 100;
      const method = pick(METHODS);
      const length = 180 + Math.floor(rnd() * 365);
      const firstDay = first + Math.floor(rnd() * Math.max(1, last - first - 150));
      const roundUpto = pick([0, 6, 15, 15, 30]);
      const approvals = rnd() < 0.2;
      project.run(
        id,
        clientId,
        `Project ${i}`,
        `C${i % clientIds.length}-${String(i).padStart(4, '0')}`,
        method,
        (80 + Math.floor(rnd() * 120)) * scale,
        method === 'fixed_price_project' ? 25_000 * scale : null,
        currency,
        roundUpto,
        approvals ? 1 : 0,
        at,
        at,
      );
      const tasks = Array.from({ length: 5 }, (_, k) => {
        const taskId = seqId(4, taskN++);
        const billable = k < 4;
        task.run(taskId, id, `Task ${k}`, billable ? 1 : 0, (60 + Math.floor(rnd() * 140)) * scale, k, at, at);
        return { id: taskId, billable };
      });
      const users = new Set<string>();
      const size = 6 + Math.floor(rnd() * 5);
      while (users.size < size) users.add(pick(people));
      let k = 0;
      for (const userId of users) {
        projectUser.run(seqId(5, projectUserN++), id, userId, k++ === 0 ? 'project_manager' : 'regular_user', (70 + Math.floor(rnd() * 150)) * scale, at, at);
      }
      projects.push({ id, clientId, firstDay, lastDay: Math.min(last, firstDay + length), tasks, users: [...users], approvals, roundUpto });
    }

    const entry = sqlite.prepare(
      `INSERT INTO time_entries (id, client_id, project_id, task_id, user_id, recorded_on, entered_seconds, seconds, notes, status, invoice_id, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const unbilledSince = dayNumber(shape.unbilledSince);
    // Entries are written in day order, as an agency records them: the table's order follows the days.
    const projectOf = new Uint16Array(shape.entries);
    const dayOf = new Int32Array(shape.entries);
    for (let n = 0; n < shape.entries; n++) {
      const pi = Math.floor(rnd() * projects.length);
      const p = projects[pi]!;
      projectOf[n] = pi;
      dayOf[n] = p.firstDay + Math.floor(rnd() * (p.lastDay - p.firstDay + 1));
    }
    const order = Array.from({ length: shape.entries }, (_, n) => n).sort((a, b) => dayOf[a]! - dayOf[b]! || a - b);
    order.forEach((source, n) => {
      const p = projects[projectOf[source]!]!;
      const day = dayOf[source]!;
      const t = p.tasks[Math.floor(rnd() * p.tasks.length)]!;
      const entered = 300 + Math.floor(rnd() * 14_100);
      const unit = p.roundUpto * 60;
      const seconds = unit ? Math.ceil(entered / unit) * unit : entered;
      let status: string;
      if (!t.billable) status = 'non_billable';
      else if (day >= unbilledSince) status = p.approvals && rnd() < 0.3 ? 'pending_approval' : 'unbilled';
      else status = rnd() < 0.01 ? 'rejected' : 'billed';
      const notes = n % 7 === 0 ? `Call with "the client", re: item ${n}, follow-up` : `Work on item ${n}`;
      entry.run(seqId(6, n), p.clientId, p.id, t.id, pick(p.users), dateOf(day), entered, seconds, notes, status, null, at, at);
    });
    const money = seedInvoices(sqlite, rnd, clientIds, currencyOf, ownerId, shape, at);
    return { shape, clientIds, projectIds: projects.map((p) => p.id), peopleIds: people, ...money };
  });
  const data = load();
  // The combinations and each entry's number, before the indexes on that number are built.
  sqlite.exec(`INSERT INTO time_entry_combos (project_id, task_id, user_id, first_on, last_on)
    SELECT project_id, task_id, user_id, min(recorded_on), max(recorded_on) FROM time_entries GROUP BY project_id, task_id, user_id`);
  sqlite.exec(`UPDATE time_entries SET combo_id = (
    SELECT c.id FROM time_entry_combos c WHERE c.project_id = time_entries.project_id AND c.task_id = time_entries.task_id AND c.user_id = time_entries.user_id)`);
  for (const ddl of dropped) sqlite.exec(ddl);
  sqlite.exec('ANALYZE');
  // A workspace in use has a small WAL (SQLite checkpoints every 1,000 pages); the load above wrote
  // the whole file through it. Folded back, the reports read the file as they would in service.
  sqlite.pragma('wal_checkpoint(TRUNCATE)');
  return data;
}

/** About 2,000 invoices over the five years, most paid in one or two payments, some overdue. */
function seedInvoices(
  sqlite: BetterSqlite3.Database,
  rnd: () => number,
  clientIds: string[],
  currencyOf: Map<string, string>,
  ownerId: string,
  shape: ReportDataShape,
  at: string,
): { invoices: number; payments: number } {
  const invoice = sqlite.prepare(
    `INSERT INTO invoices (id, client_id, creator_id, number, status, currency, issue_date, due_date, subtotal_minor, tax_minor, total_minor, public_token, kind, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, 'invoice', ?, ?)`,
  );
  const payment = sqlite.prepare(`INSERT INTO payments (id, invoice_id, amount_minor, paid_on, method, reference, created_at) VALUES (?, ?, ?, ?, 'bank_transfer', ?, ?)`);
  const first = dayNumber(shape.from);
  const last = dayNumber(shape.to);
  let invoices = 0;
  let payments = 0;
  for (let day = first; day <= last; day += 1) {
    const count = Math.floor(rnd() * 2.2);
    for (let k = 0; k < count; k++) {
      const id = seqId(7, invoices);
      const clientId = clientIds[Math.floor(rnd() * clientIds.length)]!;
      const total = 50_000 + Math.floor(rnd() * 5_000_000);
      const age = last - day;
      const outcome = age < 20 ? 'sent' : rnd() < 0.9 ? 'paid' : rnd() < 0.5 ? 'partially_paid' : 'sent';
      invoice.run(id, clientId, ownerId, `B-${String(invoices).padStart(6, '0')}`, outcome, currencyOf.get(clientId)!, dateOf(day), dateOf(day + 30), total, total, id, at, at);
      invoices++;
      if (outcome === 'sent') continue;
      const firstPart = outcome === 'paid' && rnd() < 0.7 ? total : Math.floor(total / 2);
      payment.run(seqId(8, payments++), id, firstPart, dateOf(Math.min(last, day + 10 + Math.floor(rnd() * 40))), `ref ${invoices}`, at);
      if (outcome === 'paid' && firstPart < total) {
        payment.run(seqId(8, payments++), id, total - firstPart, dateOf(Math.min(last, day + 40 + Math.floor(rnd() * 30))), `ref ${invoices}b`, at);
      }
    }
  }
  return { invoices, payments };
}

/** Drops the secondary indexes and triggers of `tables` and returns the statements that rebuild them. */
function dropIndexesAndTriggers(sqlite: BetterSqlite3.Database, tables: string[]): string[] {
  const rows = sqlite
    .prepare(`SELECT type, name, sql FROM sqlite_master WHERE type IN ('index', 'trigger') AND sql IS NOT NULL AND tbl_name IN (${tables.map(() => '?').join(', ')})`)
    .all(...tables) as { type: 'index' | 'trigger'; name: string; sql: string }[];
  for (const row of rows) sqlite.exec(`DROP ${row.type.toUpperCase()} "${row.name}"`);
  return rows.map((r) => r.sql);
}
