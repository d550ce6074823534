/**
 * Calendar dates (`YYYY-MM-DD`) and the local date and time of an instant in a time zone. Plain
 * dates are handled as UTC midnights so that adding days never meets a daylight-saving change; the
 * zone only matters when an instant becomes a local date, which Intl does with the tz database.
 */

export const WEEK_DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;
export type WeekDay = (typeof WEEK_DAYS)[number];

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

interface LocalDateTime {
  /** `YYYY-MM-DD` */
  date: string;
  /** `HH:MM`, 24-hour */
  time: string;
}

/**
 * Recent answers by zone and UTC minute. Zone offsets are whole minutes, so the local date and
 * HH:MM cannot change within a UTC minute; the hot path (every time entry asks for "today") then
 * skips Intl's formatting, which costs more than the rest of the rule.
 */
const recent = new Map<string, LocalDateTime>();
const RECENT_LIMIT = 1000;

/** The wall-clock date and time of an instant in an IANA time zone. */
export function localDateTime(instant: Date, timeZone: string): LocalDateTime {
  const key = `${timeZone}|${Math.floor(instant.getTime() / 60_000)}`;
  const known = recent.get(key);
  if (known) return known;
  const parts: Record<string, string> = {};
  for (const p of formatterFor(timeZone).formatToParts(instant)) parts[p.type] = p.value;
  const year = (parts.year ?? '').padStart(4, '0');
  const local = Object.freeze({ date: `${year}-${parts.month}-${parts.day}`, time: `${parts.hour}:${parts.minute}` });
  if (recent.size >= RECENT_LIMIT) recent.clear();
  recent.set(key, local);
  return local;
}

export const localDate = (instant: Date, timeZone: string): string => localDateTime(instant, timeZone).date;

const toUtc = (date: string): Date => new Date(`${date}T00:00:00.000Z`);
const fromUtc = (d: Date): string => d.toISOString().slice(0, 10);

export function addDays(date: string, days: number): string {
  const d = toUtc(date);
  d.setUTCDate(d.getUTCDate() + days);
  return fromUtc(d);
}

/** Whole days from `a` to `b` (positive when `b` is later). */
export const daysBetween = (a: string, b: string): number => Math.round((toUtc(b).getTime() - toUtc(a).getTime()) / 86_400_000);

export const weekDayOf = (date: string): WeekDay => WEEK_DAYS[toUtc(date).getUTCDay()] as WeekDay;

/** Weeks run Monday to Sunday (they end on Sunday). */
export function mondayOf(date: string): string {
  const day = toUtc(date).getUTCDay();
  return addDays(date, -((day + 6) % 7));
}

export const sundayOf = (date: string): string => addDays(mondayOf(date), 6);

export function firstOfNextMonth(date: string): string {
  const d = toUtc(date);
  return fromUtc(new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)));
}

/** The date of the given weekday in the Monday-to-Sunday week holding `date`. */
export function dayOfWeekContaining(date: string, day: WeekDay): string {
  return addDays(mondayOf(date), (WEEK_DAYS.indexOf(day) + 6) % 7);
}

const DAY_MS = 86_400_000;

/** A wall-clock reading as minutes on one continuous scale, so two readings can be subtracted. */
const wallMinutes = (date: string, time: string) => toUtc(date).getTime() / 60_000 + Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));

/**
 * The first instant at which the wall clock in `timeZone` reads `date time` or later. Two passes
 * over the zone's offset settle it. A reading in a daylight-saving gap (02:30 that never happens)
 * gives the instant the clocks jump past it; a reading that happens twice gives the first.
 */
export function instantAt(date: string, time: string, timeZone: string): number {
  const reading = (at: number) => {
    const local = localDateTime(new Date(at), timeZone);
    return wallMinutes(local.date, local.time);
  };
  const wanted = wallMinutes(date, time);
  let guess = wanted * 60_000;
  for (let pass = 0; pass < 2; pass++) guess += (wanted - reading(guess)) * 60_000;
  if (reading(guess) === wanted) {
    // A reading that happens twice (the clocks go back): the first one. The clocks do not always go
    // back an hour (Lord Howe by 30 minutes, Troll by 2 hours), so the earlier reading is found with
    // the offset in force before the change: the offset a day earlier, as zones change at most
    // once in a day. The guess may already be that reading; then the offsets agree.
    const offsetBefore = reading(guess - DAY_MS) - (guess - DAY_MS) / 60_000;
    const earlier = (wanted - offsetBefore) * 60_000;
    return earlier < guess && reading(earlier) === wanted ? earlier : guess;
  }
  // The wanted reading falls in a gap: the answer is the minute the clocks jump past it, found by
  // halving a window around the guess in which readings only rise.
  let lo = guess - 3 * 3_600_000;
  let hi = guess + 3 * 3_600_000;
  while (hi - lo > 60_000) {
    const mid = lo + Math.floor((hi - lo) / 120_000) * 60_000;
    if (reading(mid) >= wanted) hi = mid;
    else lo = mid;
  }
  return hi;
}
