import { invalidField } from '../../errors.ts';
import type { Scope } from '../scope.ts';
import { addDays, localDate } from '../time/calendar.ts';

/** A report covers at most this many years: longer ranges are refused rather than run for minutes. */
export const MAX_RANGE_YEARS = 5;

/** Days of a report, both inclusive, as `YYYY-MM-DD` on the workspace's calendar. */
export interface DateRange {
  from: string;
  to: string;
}

/** The last day a date can be (dates are `YYYY-MM-DD`). */
const LAST_DAY = '9999-12-31';

/**
 * The last day a report from `from` may cover: the day before the same calendar day
 * `MAX_RANGE_YEARS` later (29 February's is 28 February), at most `LAST_DAY` (a later year has no
 * `YYYY-MM-DD` form and would compare wrongly as text).
 */
function rangeLimit(from: string): string {
  const d = new Date(`${from}T00:00:00.000Z`);
  d.setUTCFullYear(d.getUTCFullYear() + MAX_RANGE_YEARS);
  return d.getUTCFullYear() > 9999 ? LAST_DAY : addDays(d.toISOString().slice(0, 10), -1);
}

/** Today in the workspace's time zone: what "today" means for every report. */
export const todayOf = (scope: Scope): string => localDate(scope.now, scope.workspace.timeZone);

/** The first day of the month of `date`. */
export const monthStart = (date: string): string => `${date.slice(0, 7)}-01`;

/** The first day of the month `months` before the month of `date` (0: its own month). */
export function monthsBefore(date: string, months: number): string {
  const d = new Date(`${monthStart(date)}T00:00:00.000Z`);
  d.setUTCMonth(d.getUTCMonth() - months);
  return d.toISOString().slice(0, 10);
}

/**
 * The range a report covers: `to` defaults to today in the workspace's time zone, `from` to
 * `defaultFrom(to)` (the first of `to`'s month unless a report says otherwise). `from` after `to`
 * is a 422 naming `from`; a range of more than five years a 422 naming `to`.
 */
export function resolveRange(scope: Scope, input: { from?: string | undefined; to?: string | undefined }, defaultFrom: (to: string) => string = monthStart): DateRange {
  const to = input.to ?? todayOf(scope);
  const from = input.from ?? defaultFrom(to);
  if (from > to) throw invalidField('from', `must not be after to (${to})`);
  const limit = rangeLimit(from);
  if (to > limit) throw invalidField('to', `a report covers at most ${MAX_RANGE_YEARS} years: from ${from}, to may be at most ${limit}`);
  return { from, to };
}
