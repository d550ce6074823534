import type BetterSqlite3 from 'better-sqlite3';
import { and, gte, lte, type SQL } from 'drizzle-orm';
import type { Database, Db } from '../../db/index.ts';
import { timeEntryCombos } from '../../db/schema/index.ts';
import { inIds } from '../queries.ts';

/**
 * The (project, task, person) combinations a report reads, and the temporary table its aggregate
 * is driven by. An entry's rate depends only on its combination, so a report prices each
 * combination once (in JavaScript, by the invoices' rule) and SQLite reads the entries combination
 * by combination. The combinations come from `time_entry_combos` (kept by triggers, see
 * src/db/schema/reports.ts), narrowed to those with entries in the report's days.
 */

/** Which entries a report reads: every entry (the report index) or only unbilled ones (a partial index). */
export type Source = 'all' | 'unbilled';

export interface Combo {
  projectId: string;
  taskId: string;
  userId: string;
}

/** A combination as the report reads it: its facts, the rate split for exact SQL arithmetic. */
export interface ComboRow extends Combo {
  clientId: string;
  currency: string;
  rateMinor: number;
  unpriced: boolean;
  billableNow: boolean;
}

const SECONDS_PER_HOUR = 3600;

/**
 * The better-sqlite3 connection under a workspace's drizzle database (drizzle keeps it as
 * `$client`): reports need what drizzle does not offer (BigInt sums, `iterate`, raw rows).
 */
export function connectionOf(db: Database): BetterSqlite3.Database {
  const client = (db as Database & { $client?: BetterSqlite3.Database }).$client;
  if (!client) throw new Error('the workspace database has no better-sqlite3 connection');
  return client;
}

/**
 * Prepared once per open workspace file. The temporary table lives in the connection's private
 * temp schema: it never touches the workspace file and needs no write lock.
 */
export const comboStatements = (db: Database) => {
  const sqlite = connectionOf(db);
  sqlite.exec(`CREATE TEMP TABLE IF NOT EXISTS report_combos (
    id INTEGER PRIMARY KEY,
    project_id TEXT NOT NULL,
    task_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    client_id TEXT NOT NULL,
    currency TEXT NOT NULL,
    rate_hi INTEGER NOT NULL,
    rate_lo INTEGER NOT NULL,
    unpriced INTEGER NOT NULL,
    billable_now INTEGER NOT NULL
  );
  CREATE UNIQUE INDEX IF NOT EXISTS temp.report_combos_key ON report_combos (project_id, task_id, user_id)`);
  return {
    sqlite,
    clear: sqlite.prepare('DELETE FROM temp.report_combos'),
    fill: sqlite.prepare<[string]>(
      `INSERT INTO temp.report_combos (project_id, task_id, user_id, client_id, currency, rate_hi, rate_lo, unpriced, billable_now)
       SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6, value ->> 7, value ->> 8 FROM json_each(?)`,
    ),
    /** Statements built for one report shape (grouping, filters), kept for the next report of that shape. */
    shaped: new Map<string, BetterSqlite3.Statement>(),
  };
};
export type ComboStatements = ReturnType<typeof comboStatements>;

/**
 * The combinations of the given projects (every project when null) with entries between `from`
 * and `to` (either may be open), in key order.
 */
export function combosBetween(db: Db, projectIds: readonly string[] | null, from: string | null, to: string): Combo[] {
  const conditions: (SQL | undefined)[] = [
    projectIds ? inIds(timeEntryCombos.projectId, projectIds) : undefined,
    from !== null ? gte(timeEntryCombos.lastOn, from) : undefined,
    lte(timeEntryCombos.firstOn, to),
  ];
  return db
    .select({ projectId: timeEntryCombos.projectId, taskId: timeEntryCombos.taskId, userId: timeEntryCombos.userId })
    .from(timeEntryCombos)
    .where(and(...conditions))
    .orderBy(timeEntryCombos.projectId, timeEntryCombos.taskId, timeEntryCombos.userId)
    .all();
}

/**
 * Replaces the temporary table's rows with `rows`, ids in the given order. The rate is stored as
 * whole and remaining parts of 3600 (rate = hi × 3600 + lo), so an entry's amount,
 * round-half-up(seconds × rate / 3600), is `seconds × hi + (2 × seconds × lo + 3600) / 7200` in
 * integer arithmetic that cannot overflow for any rate the product accepts.
 */
export function loadCombos(st: ComboStatements, rows: readonly ComboRow[]): void {
  st.clear.run();
  const values = rows.map((r) => [
    r.projectId,
    r.taskId,
    r.userId,
    r.clientId,
    r.currency,
    Math.floor(r.rateMinor / SECONDS_PER_HOUR),
    r.rateMinor % SECONDS_PER_HOUR,
    r.unpriced ? 1 : 0,
    r.billableNow ? 1 : 0,
  ]);
  st.fill.run(JSON.stringify(values));
}

/** One entry's amount in minor units, in SQL over `report_combos r` (see `loadCombos`). */
export const AMOUNT_SQL = '(e.seconds * r.rate_hi + (e.seconds * r.rate_lo * 2 + 3600) / 7200)';
