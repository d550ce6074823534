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

/** Today on the viewer's own calendar. */
export const todayHere = () => {
  const now = new Date();
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
};

/** Today on the calendar of a time zone (the workspace's: payments default to its today). */
export const todayIn = (timeZone: string) => new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
