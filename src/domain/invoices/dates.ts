import { invalidField } from '../../errors.ts';
import { addDays } from '../time/calendar.ts';

/**
 * The due date `days` after `issueDate`. Past 9999-12-31 a date has no `YYYY-MM-DD` form, so such
 * a due date is a 422 on `field`, the input that asked for it (an issue date in 9999 with the
 * usual terms), rather than a garbled date compared as text.
 */
export function dueDateAfter(issueDate: string, days: number, field: string): string {
  const due = addDays(issueDate, days);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(due)) throw invalidField(field, `would make the invoice due after 9999-12-31 (${days} days after ${issueDate})`);
  return due;
}
