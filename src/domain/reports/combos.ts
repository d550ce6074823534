import type BetterSqlite3 from 'better-sqlite3';
import { connectionOf, type Database } from '../../db/index.ts';

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
  )`);
  const days = (from: 'open' | 'bounded') =>
    sqlite
      .prepare<Record<string, string>, [string, string, string]>(
        `SELECT project_id, task_id, user_id FROM time_entry_combos WHERE first_on <= :to${from === 'bounded' ? ' AND last_on >= :from' : ''} ORDER BY project_id, task_id, user_id`,
      )
      .raw();
  return {
    sqlite,
    combos: { open: days('open'), bounded: days('bounded') },
    /** The combinations that have unbilled entries, read from the (small) partial index of those. */
    unbilledCombos: sqlite
      .prepare<Record<string, string>, [string, string, string]>(
        "SELECT DISTINCT project_id, task_id, user_id FROM time_entries INDEXED BY time_entries_unbilled_idx WHERE status = 'unbilled' AND recorded_on <= :to",
      )
      .raw(),
    clear: sqlite.prepare('DELETE FROM temp.report_combos'),
    insert: sqlite.prepare<[string, string, string, string, string, number, number, number, number]>(
      'INSERT INTO temp.report_combos (project_id, task_id, user_id, client_id, currency, rate_hi, rate_lo, unpriced, billable_now) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    /** Statements built for one report shape (grouping, filters), kept for the next report of that shape. */
    shaped: new Map<string, BetterSqlite3.Statement>(),
  };
};
export type ComboStatements = ReturnType<typeof comboStatements>;

/**
 * The combinations a report reads, in key order: for every entry, those with entries between
 * `from` and `to` (either may be open) from `time_entry_combos`; for the unbilled summary, those
 * with unbilled entries. Only those of `projects` when given.
 */
export function combosFor(st: ComboStatements, source: Source, from: string | null, to: string, projects: ReadonlySet<string> | null): Combo[] {
  const rows =
    source === 'unbilled' ? st.unbilledCombos.all({ to }) : from === null ? st.combos.open.all({ to }) : st.combos.bounded.all({ from, to });
  const out: Combo[] = [];
  for (const [projectId, taskId, userId] of rows) if (!projects || projects.has(projectId)) out.push({ projectId, taskId, userId });
  return out;
}

/**
 * Replaces the temporary table's rows with `rows`, ids in the given order. The rate is stored as
 * whole and remaining parts of 3600 (rate = hi × 3600 + lo), so an entry's amount,
 * round-half-up(seconds × rate / 3600), is `seconds × hi + (2 × seconds × lo + 3600) / 7200` in
 * integer arithmetic that cannot overflow for any rate the product accepts.
 */
export function loadCombos(st: ComboStatements, rows: readonly ComboRow[]): void {
  st.clear.run();
  for (const r of rows) {
    st.insert.run(
      r.projectId,
      r.taskId,
      r.userId,
      r.clientId,
      r.currency,
      Math.floor(r.rateMinor / SECONDS_PER_HOUR),
      r.rateMinor % SECONDS_PER_HOUR,
      r.unpriced ? 1 : 0,
      r.billableNow ? 1 : 0,
    );
  }
}

/**
 * One entry's amount in minor units, in SQL: the entry `entry` (its `seconds`) at the rate of the
 * combination row `combo` (`rate_hi`, `rate_lo`, see `loadCombos`), rounded half-up once. Equal to
 * `timeAmountMinor` (money.ts) for every value; the property tests compare the two.
 */
export const amountSql = (entry: string, combo: string) => `(${entry}.seconds * ${combo}.rate_hi + ${roundingSql(entry, combo)})`;

/**
 * The part of `amountSql` that must be worked out entry by entry: `seconds × hi` adds up, so an
 * aggregate takes it once from the summed seconds and only this rounded part per entry.
 */
export const roundingSql = (entry: string, combo: string) => `((${entry}.seconds * ${combo}.rate_lo * 2 + 3600) / 7200)`;
