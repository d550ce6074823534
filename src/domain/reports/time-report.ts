import { timeEntryStatuses } from '../../db/schema/index.ts';
import type { Scope } from '../scope.ts';
import { hoursOf } from '../time/hours.ts';
import { amountOf, PerCurrency } from './amounts.ts';
import { entryTotals, type TotalsRow } from './entry-totals.ts';
import { clientNames, compareText, nameOf, peopleNames, projectNames, taskNames, type Named } from './labels.ts';
import { isPeriod, periodStart } from './periods.ts';
import { resolveRange } from './range.ts';
import type { GroupKey, Grouping, TimeEntryStatus, TimeReportInput, TimeReportOutput, TimeReportRow } from './schemas.ts';
import { entryScope } from './visibility.ts';

/** Rejected entries are not work to count unless asked for by `status`. */
export const DEFAULT_STATUSES: readonly TimeEntryStatus[] = timeEntryStatuses.filter((s) => s !== 'rejected');

/** Running totals of one row (or the whole report), money kept per currency and exact. */
class WorkSums {
  entries = 0;
  seconds = 0;
  billableSeconds = 0;
  unbilledSeconds = 0;
  readonly money = new PerCurrency(() => ({ billable: 0n, unbilled: 0n }));

  add(row: TotalsRow): void {
    this.entries += row.entries;
    this.seconds += row.seconds;
    this.billableSeconds += row.billableSeconds;
    this.unbilledSeconds += row.unbilledSeconds;
    const m = this.money.of(row.currency);
    m.billable += BigInt(row.billableMinor);
    m.unbilled += BigInt(row.unbilledMinor);
  }

  toOutput(): Omit<TimeReportRow, 'keys'> {
    return {
      entries: this.entries,
      seconds: this.seconds,
      hours: hoursOf(this.seconds),
      billable_seconds: this.billableSeconds,
      billable_hours: hoursOf(this.billableSeconds),
      unbilled_seconds: this.unbilledSeconds,
      unbilled_hours: hoursOf(this.unbilledSeconds),
      amounts: this.money.entries().map(([currency, m]) => ({ currency, billable_amount: amountOf(m.billable, currency), unbilled_amount: amountOf(m.unbilled, currency) })),
    };
  }
}

/** Turns the ids of each grouping into labelled keys, reading every name in one query per kind. */
function keyMaker(scope: Scope, by: readonly Grouping[], rows: TotalsRow[]): (keys: string[]) => GroupKey[] {
  const idsAt = (n: number) => [...new Set(rows.map((r) => r.keys[n] ?? ''))];
  const names: (Map<string, Named> | null)[] = by.map((g, n) => {
    if (g === 'client') return clientNames(scope.db, idsAt(n));
    if (g === 'project') return projectNames(scope.db, idsAt(n));
    if (g === 'task') return taskNames(scope.db, idsAt(n));
    if (g === 'person') return peopleNames(scope.db, idsAt(n));
    return null;
  });
  return (keys) =>
    by.map((g, n) => {
      const id = keys[n] ?? '';
      const known = names[n];
      return { by: g, id, label: known ? nameOf(known, id) : id, starts_on: isPeriod(g) ? periodStart(g, id) : null };
    });
}

/** Periods in time order; clients, projects, tasks and people by name (then id, for equal names). */
function compareKeys(a: GroupKey[], b: GroupKey[]): number {
  for (let n = 0; n < a.length; n++) {
    const x = a[n]!;
    const y = b[n]!;
    const order = (isPeriod(x.by) ? 0 : x.label.localeCompare(y.label)) || compareText(x.id, y.id);
    if (order !== 0) return order;
  }
  return 0;
}

/**
 * tRPC `reports.time`: hours and money over a range of days, grouped by one or two of client,
 * project, task, person, day, ISO week and month. Each row holds every currency its entries are
 * billed in; the totals hold one amount per currency.
 */
export function timeReport(scope: Scope, input: TimeReportInput): TimeReportOutput {
  const range = resolveRange(scope, input);
  const totals = entryTotals(scope, {
    source: 'all',
    from: range.from,
    to: range.to,
    statuses: input.status ?? DEFAULT_STATUSES,
    billable: input.billable ?? null,
    entries: entryScope(scope, input),
    group: input.by,
  });
  const groups = new Map<string, { keys: string[]; sums: WorkSums }>();
  const all = new WorkSums();
  let unpriced = 0;
  for (const row of totals) {
    const id = row.keys.join('\u0000');
    const group = groups.get(id) ?? { keys: row.keys, sums: new WorkSums() };
    group.sums.add(row);
    groups.set(id, group);
    all.add(row);
    unpriced += row.unpriced;
  }
  const keysOf = keyMaker(scope, input.by, totals);
  const rows = [...groups.values()].map((g) => ({ keys: keysOf(g.keys), ...g.sums.toOutput() })).sort((a, b) => compareKeys(a.keys, b.keys));
  return { from: range.from, to: range.to, by: input.by, rows, totals: all.toOutput(), unpriced_entries: unpriced };
}
