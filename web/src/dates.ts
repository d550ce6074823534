/** Calendar arithmetic on `YYYY-MM-DD` strings (as UTC midnights, so no daylight-saving surprises). */
const toDate = (date: string) => new Date(`${date}T00:00:00Z`);
const toText = (d: Date) => d.toISOString().slice(0, 10);

export const addDays = (date: string, days: number) => {
  const d = toDate(date);
  d.setUTCDate(d.getUTCDate() + days);
  return toText(d);
};

/** The Monday of the week holding `date` (weeks run Monday to Sunday, as autolock counts them). */
export const mondayOf = (date: string) => addDays(date, -((toDate(date).getUTCDay() + 6) % 7));

/**
 * Today on the calendar of `timeZone`. A business date (an invoice's issue date, a payment's day,
 * a report's period) defaults to today in the workspace's zone (`me.workspace.time_zone`), never the
 * browser's clock; a person's own timesheet uses the `today` the server gives with their week.
 */
export function todayIn(timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(new Date());
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')}`;
}

/** The first day of the month `months` after the month of `date` (negative: before). */
export const monthStart = (date: string, months = 0) => {
  const d = toDate(`${date.slice(0, 7)}-01`);
  d.setUTCMonth(d.getUTCMonth() + months);
  return toText(d);
};

/** The last day of the month holding `date`. */
export const monthEnd = (date: string) => addDays(monthStart(date, 1), -1);
