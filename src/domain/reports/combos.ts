import type BetterSqlite3 from 'better-sqlite3';
import { connectionOf, type Database } from '../../db/index.ts';
import { readPricingFacts } from '../invoices/rate-facts.ts';
import { comboFacts } from './pricing.ts';
import { visibleSql, type EntryScope } from './visibility.ts';

/**
 * The (project, task, person) combinations the reports read, priced. An entry's rate depends only
 * on its combination, so the reports price each combination once (in JavaScript, by the invoices'
 * rule) and SQLite reads the entries combination by combination.
 *
 * The priced combinations are kept in the connection's private temp schema between reports
 * (`report_combos`): pricing 10,000 combinations and loading them cost more than a report's own
 * aggregate over a million entries. Temporary triggers on the workspace's clients, projects,
 * tasks and project members, and on new combinations in `time_entry_combos` (kept by triggers,
 * see src/db/schema/reports.ts), note on this connection which projects' prices a change may
 * have moved (`report_dirty`); only those projects' combinations are priced again. `PRAGMA
 * data_version` tells of commits by any other connection (the command line): then every
 * combination is. The notes live in the temp schema too, so a rolled-back write rolls back both
 * its change and its note, and a report never reads a pricing older than the data it reads.
 *
 * Pricing again writes only what changed: the combinations looked at are priced in JavaScript
 * and compared with a copy of `report_combos` kept beside the statements (by project), and only
 * new, changed and vanished combinations are written. The copy is trusted only while the table
 * says so: each pricing stamps the table and the copy with a new number in the same transaction,
 * so if that transaction rolls back, the stamps differ and the next pricing rebuilds the table whole.
 *
 * Each report then picks the combinations it reads into `report_scope`: those with entries in its
 * days, that the caller may see (visibility.ts), in id order.
 */

/** Which entries a report reads: every entry (the report index) or only unbilled ones (a partial index). */
export type Source = 'all' | 'unbilled';

const SECONDS_PER_HOUR = 3600;

/**
 * The tables whose rows a combination is priced from, the changes to them that matter, and which
 * projects each change may move (a client's currency moves every project of the client).
 */
const PRICED_FROM: readonly [table: string, change: 'INSERT' | 'UPDATE' | 'DELETE', projects: string][] = [
  ['clients', 'UPDATE', 'SELECT id FROM main.projects WHERE client_id IN (OLD.id, NEW.id)'],
  ['clients', 'DELETE', 'SELECT id FROM main.projects WHERE client_id = OLD.id'],
  ['projects', 'INSERT', 'SELECT NEW.id'],
  ['projects', 'UPDATE', 'SELECT OLD.id UNION SELECT NEW.id'],
  ['projects', 'DELETE', 'SELECT OLD.id'],
  ['tasks', 'INSERT', 'SELECT NEW.project_id'],
  ['tasks', 'UPDATE', 'SELECT OLD.project_id UNION SELECT NEW.project_id'],
  ['tasks', 'DELETE', 'SELECT OLD.project_id'],
  ['project_users', 'INSERT', 'SELECT NEW.project_id'],
  ['project_users', 'UPDATE', 'SELECT OLD.project_id UNION SELECT NEW.project_id'],
  ['project_users', 'DELETE', 'SELECT OLD.project_id'],
  // Combinations are only ever added (an upsert that widens days fires no INSERT trigger).
  ['time_entry_combos', 'INSERT', 'SELECT NEW.project_id'],
  ['time_entry_combos', 'DELETE', 'SELECT OLD.project_id'],
];

/** The temp tables and triggers of the priced combinations (idempotent). */
export function createTempSchema(sqlite: BetterSqlite3.Database): void {
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
  CREATE UNIQUE INDEX IF NOT EXISTS temp.report_combos_key ON report_combos (project_id, task_id, user_id);
  CREATE TEMP TABLE IF NOT EXISTS report_scope (id INTEGER PRIMARY KEY);
  CREATE TEMP TABLE IF NOT EXISTS report_dirty (project_id TEXT PRIMARY KEY) WITHOUT ROWID;
  CREATE TEMP TABLE IF NOT EXISTS report_pricing (priced_version INTEGER, stamp INTEGER);
  INSERT INTO temp.report_pricing (priced_version) SELECT NULL WHERE NOT EXISTS (SELECT 1 FROM temp.report_pricing);`);
  for (const [table, change, projects] of PRICED_FROM) {
    sqlite.exec(`CREATE TEMP TRIGGER IF NOT EXISTS report_pricing_${table}_${change.toLowerCase()} AFTER ${change} ON main.${table}
      BEGIN INSERT OR IGNORE INTO temp.report_dirty (project_id) ${projects}; END`);
  }
}

/** Prepared once per open workspace file. The temp schema never touches the workspace file and needs no write lock. */
export const comboStatements = (db: Database) => {
  const sqlite = connectionOf(db);
  createTempSchema(sqlite);
  return {
    db,
    sqlite,
    pricing: sqlite.prepare('SELECT priced_version, stamp FROM temp.report_pricing').safeIntegers(false),
    dataVersion: sqlite.prepare('PRAGMA data_version').pluck(),
    dirty: sqlite.prepare<[], string>('SELECT project_id FROM temp.report_dirty').pluck(),
    clearDirty: sqlite.prepare('DELETE FROM temp.report_dirty'),
    combos: sqlite.prepare<[], ComboKey>('SELECT id, project_id, task_id, user_id FROM time_entry_combos ORDER BY id').raw(),
    combosOf: sqlite.prepare<[string], ComboKey>('SELECT id, project_id, task_id, user_id FROM time_entry_combos WHERE project_id IN (SELECT value FROM json_each(?))').raw(),
    clear: sqlite.prepare('DELETE FROM temp.report_combos'),
    insert: sqlite.prepare<[number, string, string, string, string, string, number, number, number, number]>(
      'INSERT INTO temp.report_combos (id, project_id, task_id, user_id, client_id, currency, rate_hi, rate_lo, unpriced, billable_now) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    update: sqlite.prepare<[string, string, number, number, number, number, number]>(
      'UPDATE temp.report_combos SET client_id = ?, currency = ?, rate_hi = ?, rate_lo = ?, unpriced = ?, billable_now = ? WHERE id = ?',
    ),
    remove: sqlite.prepare<[number]>('DELETE FROM temp.report_combos WHERE id = ?'),
    priced: sqlite.prepare<[number, number]>('UPDATE temp.report_pricing SET priced_version = ?, stamp = ?'),
    /** What `report_combos` holds, by project and `task|person`, as of pricing number `stamp` (see above). */
    copy: { stamp: 0, byProject: new Map<string, Map<string, PricedCombo>>() },
    clearScope: sqlite.prepare('DELETE FROM temp.report_scope'),
    /** Statements built for one report shape (grouping, filters), kept for the next report of that shape. */
    shaped: new Map<string, BetterSqlite3.Statement>(),
  };
};
export type ComboStatements = ReturnType<typeof comboStatements>;

const MAX_SHAPES = 200;

/** The prepared statement of one report shape, built on first use. */
export function statementFor(st: ComboStatements, text: string): BetterSqlite3.Statement {
  const known = st.shaped.get(text);
  if (known) return known;
  const statement = st.sqlite.prepare(text);
  // A few dozen shapes are common; the bound only keeps an unusual caller from growing it forever.
  if (st.shaped.size >= MAX_SHAPES) st.shaped.clear();
  st.shaped.set(text, statement);
  return statement;
}

/**
 * Prices again the combinations whose pricing in `report_combos` may be stale: those of the
 * projects noted since the last pricing, or all of them after another connection's commit or a
 * rolled-back pricing. Runs inside the report's read transaction, so the pricing and the report
 * see the same moment. The rate is stored as whole and remaining parts of 3600 (rate = hi × 3600
 * + lo), so an entry's amount, round-half-up(seconds × rate / 3600), is
 * `seconds × hi + (2 × seconds × lo + 3600) / 7200` in integer arithmetic that cannot overflow for
 * any rate the product accepts.
 */
export function ensurePriced(st: ComboStatements): void {
  const state = st.pricing.get() as { priced_version: number | null; stamp: number | null };
  const version = st.dataVersion.get() as number;
  const { copy } = st;
  const rebuild = state.stamp !== copy.stamp;
  const dirty = rebuild || state.priced_version !== version ? null : st.dirty.all();
  if (dirty?.length === 0) return;
  if (rebuild) {
    st.clear.run();
    copy.byProject.clear();
  }
  // Until this pricing is stamped below, the copy matches no table: if it throws half-way, the
  // table rolls back and the next pricing rebuilds it.
  copy.stamp = -1;
  const facts = readPricingFacts(st.db, dirty);
  const priced = new Set<string>();
  for (const combo of dirty ? st.combosOf.all(JSON.stringify(dirty)) : st.combos.all()) {
    if (priceCombo(st, facts, combo)) priced.add(`${combo[1]}|${combo[2]}|${combo[3]}`);
  }
  // A combination whose project or task is gone, or whose row is gone, is priced no more.
  for (const projectId of dirty ?? [...copy.byProject.keys()]) {
    const known = copy.byProject.get(projectId);
    for (const [key, combo] of known ?? []) {
      if (priced.has(`${projectId}|${key}`)) continue;
      st.remove.run(combo.id);
      known!.delete(key);
    }
  }
  st.clearDirty.run();
  const stamp = (state.stamp ?? 0) + 1;
  st.priced.run(version, stamp);
  copy.stamp = stamp;
}

/** Prices one combination into `report_combos` and the copy, writing only a change; false when it cannot be priced (its project or task is gone). */
function priceCombo(st: ComboStatements, facts: ReturnType<typeof readPricingFacts>, [id, projectId, taskId, userId]: ComboKey): boolean {
  const f = comboFacts(facts, projectId, taskId, userId);
  if (!f) return false;
  const rate = f.rateMinor ?? 0;
  const next = { clientId: f.clientId, currency: f.currency, rateHi: Math.floor(rate / SECONDS_PER_HOUR), rateLo: rate % SECONDS_PER_HOUR, unpriced: f.rateMinor === null ? 1 : 0, billableNow: f.billableNow ? 1 : 0 };
  let ofProject = st.copy.byProject.get(projectId);
  if (!ofProject) st.copy.byProject.set(projectId, (ofProject = new Map()));
  const key = `${taskId}|${userId}`;
  // A combination keeps its number for good (rows of time_entry_combos are only ever added), so a
  // known combination's row in report_combos is already under that number.
  const known = ofProject.get(key);
  if (!known) {
    st.insert.run(id, projectId, taskId, userId, next.clientId, next.currency, next.rateHi, next.rateLo, next.unpriced, next.billableNow);
    ofProject.set(key, { id, ...next });
  } else if (!samePricing(known, next)) {
    st.update.run(next.clientId, next.currency, next.rateHi, next.rateLo, next.unpriced, next.billableNow, known.id);
    Object.assign(known, next);
  }
  return true;
}

/** A row of `time_entry_combos`: its number (the id it keeps in `report_combos`) and its key. */
type ComboKey = [id: number, projectId: string, taskId: string, userId: string];

/** One row of `report_combos` as the copy keeps it. */
interface PricedCombo {
  id: number;
  clientId: string;
  currency: string;
  rateHi: number;
  rateLo: number;
  unpriced: number;
  billableNow: number;
}

const samePricing = (a: Omit<PricedCombo, 'id'>, b: Omit<PricedCombo, 'id'>) =>
  a.clientId === b.clientId && a.currency === b.currency && a.rateHi === b.rateHi && a.rateLo === b.rateLo && a.unpriced === b.unpriced && a.billableNow === b.billableNow;

/** A report's days: `from` null for every day up to `to`. */
export interface ScopeRequest {
  source: Source;
  from: string | null;
  to: string;
  entries: EntryScope;
}

/**
 * Fills `report_scope` with the ids of the priced combinations a report reads: for every entry,
 * those with entries between `from` and `to`; for the unbilled summary, those with unbilled
 * entries up to `to`; either way only those the caller may see.
 */
export function fillScope(st: ComboStatements, req: ScopeRequest): void {
  const visible = visibleSql(req.entries, 'r.project_id', 'r.user_id');
  const days =
    req.source === 'unbilled'
      ? `EXISTS (SELECT 1 FROM time_entries e INDEXED BY time_entries_unbilled_idx
          WHERE e.status = 'unbilled' AND e.combo_id = r.id AND e.recorded_on <= :to)`
      : `EXISTS (SELECT 1 FROM time_entry_combos c
          WHERE c.id = r.id AND c.first_on <= :to${req.from === null ? '' : ' AND c.last_on >= :from'})`;
  st.clearScope.run();
  const params = { to: req.to, ...(req.source === 'all' && req.from !== null ? { from: req.from } : {}), ...visible.params };
  statementFor(st, `INSERT INTO temp.report_scope (id) SELECT r.id FROM temp.report_combos r WHERE ${days}${visible.sql ? ` AND ${visible.sql}` : ''}`).run(params);
}

/**
 * One entry's amount in minor units, in SQL: the entry `entry` (its `seconds`) at the rate of the
 * combination row `combo` (`rate_hi`, `rate_lo`, see `ensurePriced`), rounded half-up once. Equal
 * to `timeAmountMinor` (money.ts) for every value; the property tests compare the two.
 */
export const amountSql = (entry: string, combo: string) => `(${entry}.seconds * ${combo}.rate_hi + ${roundingSql(entry, combo)})`;

/**
 * The part of `amountSql` that must be worked out entry by entry: `seconds × hi` adds up, so an
 * aggregate takes it once from the summed seconds and only this rounded part per entry.
 */
export const roundingSql = (entry: string, combo: string) => `((${entry}.seconds * ${combo}.rate_lo * 2 + 3600) / 7200)`;
