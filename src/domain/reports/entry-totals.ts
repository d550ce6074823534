import { timeEntryStatuses } from '../../db/schema/index.ts';
import type { Scope } from '../scope.ts';
import { addDays } from '../time/calendar.ts';
import { exactNumber, tooLarge } from './amounts.ts';
import { comboStatements, ensurePriced, fillScope, roundingSql, statementFor, type Source } from './combos.ts';
import { billableSql, invoiceableSql } from './pricing.ts';
import type { Grouping, TimeEntryStatus } from './schemas.ts';
import type { EntryScope } from './visibility.ts';

/**
 * The one aggregate behind every report on time: totals of the entries a request counts, grouped
 * by up to two of client, project, task, person, day, ISO week and month, and always by currency
 * (money in different currencies is never added up). Each entry's amount is what an invoice line
 * would bill today: its seconds × its combination's rate, rounded half-up once, exactly as
 * `timeAmountMinor` does.
 *
 * How it stays fast on a million entries: the combinations in scope are priced once and kept
 * (combos.ts); SQLite reads the entries combination by combination from a covering index ordered
 * by (combination, month, status, day), so per-combination totals by month and status stream out
 * with no sort and little work per entry. Whether an entry is billable depends only on its status and its combination, so that rule
 * is applied to those totals, not to each entry, and only they are grouped into the report's rows.
 * The unbilled summary reads the (small) partial index of unbilled entries instead.
 */

export interface TotalsRequest {
  source: Source;
  /** Inclusive days; `from` null reads from the first entry (the unbilled summary). */
  from: string | null;
  to: string;
  /** Statuses counted; null counts every status (the unbilled source reads only `unbilled`). */
  statuses: readonly TimeEntryStatus[] | null;
  /** Only billable (true) or only non-billable (false) entries; null both. */
  billable: boolean | null;
  entries: EntryScope;
  group: readonly Grouping[];
  /** Whether each row also tells its first and last day (two more aggregates over every entry). */
  days?: boolean;
}

/** One group of one currency. Amounts in minor units of `currency`. */
export interface TotalsRow {
  keys: string[];
  currency: string;
  entries: number;
  seconds: number;
  billableSeconds: number;
  unbilledSeconds: number;
  billableMinor: number;
  unbilledMinor: number;
  unpriced: number;
  /** Null unless the request asked for `days`. */
  firstOn: string | null;
  lastOn: string | null;
}

const COMBO_COLUMN: Partial<Record<Grouping, string>> = { client: 'r.client_id', project: 'r.project_id', task: 'r.task_id', person: 'r.user_id' };

/** How each grouping is read from the inner (per combination) totals `i` or the combination `r`. */
function outerKey(by: Grouping): string {
  if (by === 'week') return "strftime('%G-W%V', i.t)";
  // i.t is the month itself, or the day when the report also groups by day or week.
  if (by === 'month') return 'substr(i.t, 1, 7)';
  return COMBO_COLUMN[by] ?? 'i.t';
}

/** Where each source's entries come from, and the days they must fall on. */
function innerFrom(req: TotalsRequest): string {
  if (req.source === 'unbilled') {
    const days = req.from === null ? 'e.recorded_on <= :to' : 'e.recorded_on BETWEEN :from AND :to';
    return `FROM temp.report_scope s CROSS JOIN temp.report_combos r ON r.id = s.id
      CROSS JOIN time_entries e INDEXED BY time_entries_unbilled_idx ON e.combo_id = s.id
    WHERE e.status = 'unbilled' AND ${days}`;
  }
  // The month range is a range of the index; the days are tested entry by entry only when the
  // range starts or ends inside a month (a report of whole months skips that test).
  const days = req.from !== null && wholeMonths(req.from, req.to) ? '' : ' AND e.recorded_on BETWEEN :from AND :to';
  return `FROM temp.report_scope s CROSS JOIN temp.report_combos r ON r.id = s.id
      CROSS JOIN time_entries e INDEXED BY time_entries_report_idx ON e.combo_id = s.id
    WHERE substr(e.recorded_on, 1, 7) BETWEEN :fromMonth AND :toMonth${days}`;
}

/** Whether `from` is the first day of its month and `to` the last of its own. */
export function wholeMonths(from: string, to: string): boolean {
  return from.endsWith('-01') && addDays(to, 1).endsWith('-01');
}

/**
 * The inner totals: per combination and status, and per month or day when the report groups by
 * time. For the report index these are exactly its key order, so they stream without a sort.
 */
function innerGrouping(req: TotalsRequest): { select: string; groupBy: string } {
  const periods = req.group.filter((g) => g === 'day' || g === 'week' || g === 'month');
  if (req.source === 'unbilled') {
    if (periods.length > 0) throw new Error('the unbilled source reports no periods');
    return { select: 'NULL AS t', groupBy: 's.id, e.status' };
  }
  const month = 'substr(e.recorded_on, 1, 7)';
  if (periods.length === 0) return { select: 'NULL AS t', groupBy: `s.id, ${month}, e.status` };
  if (periods.length === 1 && periods[0] === 'month') return { select: `${month} AS t`, groupBy: `s.id, ${month}, e.status` };
  return { select: 'e.recorded_on AS t', groupBy: `s.id, ${month}, e.status, e.recorded_on` };
}

/** Status condition with the enum's own literals (never caller text). */
function statusSql(statuses: readonly TimeEntryStatus[] | null): string {
  if (!statuses) return '';
  const chosen = timeEntryStatuses.filter((s) => statuses.includes(s));
  return ` AND e.status IN (${chosen.map((s) => `'${s}'`).join(', ')})`;
}

/** The values of the named parameters `innerFrom` wrote. */
function rangeParams(req: TotalsRequest): Record<string, string> {
  if (req.from === null) return { to: req.to };
  if (req.source !== 'all') return { from: req.from, to: req.to };
  return { from: req.from, to: req.to, fromMonth: req.from.slice(0, 7), toMonth: req.to.slice(0, 7) };
}

/** The report's statement text: per-combination totals streamed from an index, then grouped. */
export function totalsSql(req: TotalsRequest): string {
  const billable = billableSql('i.status', 'r.billable_now');
  const invoiceable = invoiceableSql('i.status', 'r.billable_now');
  const inner = innerGrouping(req);
  const keys = req.group.map(outerKey);
  const billableFilter = req.billable === null ? '' : `WHERE ${req.billable ? '' : 'NOT '}${billable}`;
  return `SELECT ${keys.map((k, n) => `${k} AS k${n}, `).join('')}r.currency AS currency,
      SUM(i.n) AS n,
      SUM(i.s) AS s,
      SUM(CASE WHEN ${billable} THEN i.s ELSE 0 END) AS bs,
      SUM(CASE WHEN ${invoiceable} THEN i.s ELSE 0 END) AS us,
      SUM(CASE WHEN ${billable} THEN i.a ELSE 0 END) AS ba,
      SUM(CASE WHEN ${invoiceable} THEN i.a ELSE 0 END) AS ua,
      SUM(CASE WHEN ${billable} AND r.unpriced = 1 THEN i.n ELSE 0 END) AS up,
      MIN(i.first_on) AS first_on,
      MAX(i.last_on) AS last_on
    FROM (
      SELECT s.id AS combo, e.status AS status, ${inner.select},
        COUNT(*) AS n, SUM(e.seconds) AS s, SUM(e.seconds) * r.rate_hi + SUM(${roundingSql('e', 'r')}) AS a,
        ${req.days ? 'MIN(e.recorded_on) AS first_on, MAX(e.recorded_on) AS last_on' : 'NULL AS first_on, NULL AS last_on'}
      ${innerFrom(req)}${statusSql(req.statuses)}
      GROUP BY ${inner.groupBy}
    ) i JOIN temp.report_combos r ON r.id = i.combo
    ${billableFilter}
    GROUP BY ${keys.map((k) => `${k}, `).join('')}r.currency`;
}

/** Runs the aggregate in one read transaction, so every part sees the same moment. */
export function entryTotals(scope: Scope, req: TotalsRequest): TotalsRow[] {
  const st = scope.statements(comboStatements);
  const read = () => {
    ensurePriced(st);
    fillScope(st, req);
    const raw = statementFor(st, totalsSql(req)).safeIntegers(true).all(rangeParams(req)) as Record<string, bigint | string | null>[];
    return raw.map((r) => ({
      keys: req.group.map((_, n) => String(r[`k${n}`])),
      currency: String(r.currency),
      entries: exactNumber(r.n as bigint),
      seconds: exactNumber(r.s as bigint),
      billableSeconds: exactNumber(r.bs as bigint),
      unbilledSeconds: exactNumber(r.us as bigint),
      billableMinor: exactNumber(r.ba as bigint),
      unbilledMinor: exactNumber(r.ua as bigint),
      unpriced: exactNumber(r.up as bigint),
      firstOn: r.first_on === null ? null : String(r.first_on),
      lastOn: r.last_on === null ? null : String(r.last_on),
    }));
  };
  try {
    return st.sqlite.transaction(read).deferred();
  } catch (err) {
    // SQLite's SUM refuses to overflow 64 bits rather than wrap; that is the same "too large".
    if (err instanceof Error && /integer overflow/.test(err.message)) throw tooLarge();
    throw err;
  }
}
