import { addDays, firstOfNextMonth, localDate, sundayOf } from './calendar.ts';

export interface AutolockSettings {
  enabled: boolean;
  endOfDay: boolean;
  endOfWeek: boolean;
  endOfMonth: boolean;
}

/**
 * The first local date on which an entry dated `recordedOn` is locked, or null when nothing locks
 * it. `end_of_the_day` leaves one day of grace (locked from D+2); `end_of_the_week` locks once the
 * week (Monday to Sunday) has ended; `end_of_the_month` once the month has ended. With several
 * flags the earliest lock wins.
 */
export function lockDateOf(recordedOn: string, settings: AutolockSettings): string | null {
  if (!settings.enabled) return null;
  const candidates: string[] = [];
  if (settings.endOfDay) candidates.push(addDays(recordedOn, 2));
  if (settings.endOfWeek) candidates.push(addDays(sundayOf(recordedOn), 1));
  if (settings.endOfMonth) candidates.push(firstOfNextMonth(recordedOn));
  return candidates.length === 0 ? null : candidates.reduce((a, b) => (b < a ? b : a));
}

type LockState = { locked: false } | { locked: true; lockedSince: string };

/**
 * Whether an entry dated `recordedOn` is locked at `now`, judged by the date on the wall of the
 * entry's user (their `time_zone`): "the end of the day" is their midnight, not UTC's.
 */
export function lockStateOf(recordedOn: string, settings: AutolockSettings, now: Date, timeZone: string): LockState {
  const lockedSince = lockDateOf(recordedOn, settings);
  if (lockedSince === null) return { locked: false };
  return localDate(now, timeZone) >= lockedSince ? { locked: true, lockedSince } : { locked: false };
}
