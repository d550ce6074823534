/**
 * Durations as integrations send them (`"1.5"`, `"0.25"`, `"1:30"`), kept as integer seconds so
 * that nothing about time is ever summed in floating point.
 */

export const SECONDS_PER_HOUR = 3600;
/** An entry, and a user's day, hold at most 24 hours. */
export const MAX_DAY_SECONDS = 24 * SECONDS_PER_HOUR;
/** Decimal hours are read to 4 places (0.36 s); finer values are refused rather than silently cut. */
const MAX_DECIMALS = 4;

type HoursParse = { ok: true; seconds: number } | { ok: false; message: string };

const DECIMAL = /^(\d{1,6})(?:\.(\d+))?$|^\.(\d+)$/;
const CLOCK = /^(\d{1,2}):([0-5]\d)(?::([0-5]\d))?$/;

const invalid = (message: string): HoursParse => ({ ok: false, message });

/**
 * Reads decimal hours (`"1"`, `"1.5"`, `".25"`) or `H:MM` / `H:MM:SS` into whole seconds. Decimal
 * hours convert exactly with integer arithmetic and round half-up to the second. The result must be
 * more than 0 and at most 24 hours.
 */
export function parseHours(raw: string): HoursParse {
  const value = raw.trim();
  let seconds: number;
  const clock = CLOCK.exec(value);
  if (clock) {
    seconds = Number(clock[1]) * SECONDS_PER_HOUR + Number(clock[2]) * 60 + Number(clock[3] ?? 0);
  } else {
    const decimal = DECIMAL.exec(value);
    if (!decimal) return invalid('must be hours as a string such as "1.5", "0.25" or "1:30"');
    const whole = decimal[1] ?? '0';
    const fraction = decimal[2] ?? decimal[3] ?? '';
    if (fraction.length > MAX_DECIMALS) return invalid(`may have at most ${MAX_DECIMALS} decimal places`);
    const scale = 10 ** fraction.length;
    const scaled = Number(whole) * scale + Number(fraction || '0');
    // judged on the exact value: 24.0001 h is over the limit even though it rounds to 86 400 s
    if (scaled > (MAX_DAY_SECONDS / SECONDS_PER_HOUR) * scale) return invalid('must be at most 24 hours');
    // hours × 3600 in units of 1/scale, rounded half-up to a whole second
    seconds = Math.floor((scaled * SECONDS_PER_HOUR * 2 + scale) / (2 * scale));
    if (scaled > 0 && seconds === 0) return invalid('must be at least one second');
  }
  if (seconds <= 0) return invalid('must be more than 0 hours');
  if (seconds > MAX_DAY_SECONDS) return invalid('must be at most 24 hours');
  return { ok: true, seconds };
}

/**
 * Seconds as the number of hours shown in responses, rounded to 4 decimal places (so 1 h 20 min is
 * 1.3333, and every rounded duration of 6, 15 or 30 minutes is shown exactly).
 */
/** Seconds as H:MM to the nearest minute (5400 → "1:30"), the way the app and people write durations. */
export function clockHours(seconds: number): string {
  const minutes = Math.round(seconds / 60);
  return `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, '0')}`;
}

export const hoursOf = (seconds: number): number => Math.round((seconds / SECONDS_PER_HOUR) * 10_000) / 10_000;
