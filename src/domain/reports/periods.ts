import { addDays, mondayOf } from '../time/calendar.ts';
import type { Grouping } from './schemas.ts';

/**
 * Periods of the time groupings: a day is `YYYY-MM-DD`, a month `YYYY-MM`, a week its ISO 8601
 * name `YYYY-Www` (weeks run Monday to Sunday; week 1 holds the year's first Thursday, so
 * 2027-01-01 is in 2026-W53). SQLite names weeks with `strftime('%G-W%V')`; this is the way back.
 */

export const isPeriod = (by: Grouping): by is 'day' | 'week' | 'month' => by === 'day' || by === 'week' || by === 'month';

/** The Monday of an ISO week name (`2026-W03` → `2026-01-12`). */
export function isoWeekStart(week: string): string {
  const year = week.slice(0, 4);
  const number = Number(week.slice(6));
  // 4 January is always in week 1.
  return addDays(mondayOf(`${year}-01-04`), (number - 1) * 7);
}

/** The first day of a period, from its name. */
export function periodStart(by: 'day' | 'week' | 'month', id: string): string {
  if (by === 'day') return id;
  if (by === 'month') return `${id}-01`;
  return isoWeekStart(id);
}
