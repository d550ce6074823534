import { describe, expect, it } from 'vitest';
import { lockDateOf, lockStateOf, type AutolockSettings } from '../src/domain/time/autolock.ts';
import { addDays, dayOfWeekContaining, firstOfNextMonth, localDateTime, mondayOf, sundayOf, weekDayOf } from '../src/domain/time/calendar.ts';

const flags = (f: Partial<AutolockSettings>): AutolockSettings => ({ enabled: true, endOfDay: false, endOfWeek: false, endOfMonth: false, ...f });
const DAY = flags({ endOfDay: true });
const WEEK = flags({ endOfWeek: true });
const MONTH = flags({ endOfMonth: true });

/** Locked at this instant for a user in this zone? */
const locked = (recordedOn: string, settings: AutolockSettings, instant: string, zone = 'UTC') =>
  lockStateOf(recordedOn, settings, new Date(instant), zone).locked;

describe('calendar', () => {
  it('weeks run Monday to Sunday', () => {
    expect(weekDayOf('2026-11-22')).toBe('sunday');
    expect(mondayOf('2026-11-22')).toBe('2026-11-16');
    expect(mondayOf('2026-11-16')).toBe('2026-11-16');
    expect(sundayOf('2026-11-16')).toBe('2026-11-22');
    expect(sundayOf('2026-12-30')).toBe('2027-01-03');
    expect(dayOfWeekContaining('2026-11-18', 'friday')).toBe('2026-11-20');
    expect(dayOfWeekContaining('2026-11-18', 'sunday')).toBe('2026-11-22');
    expect(dayOfWeekContaining('2026-11-18', 'monday')).toBe('2026-11-16');
  });

  it('month ends, leap years included', () => {
    expect(firstOfNextMonth('2026-11-30')).toBe('2026-12-01');
    expect(firstOfNextMonth('2026-12-31')).toBe('2027-01-01');
    expect(firstOfNextMonth('2028-02-29')).toBe('2028-03-01');
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
    expect(addDays('2026-02-28', 1)).toBe('2026-03-01');
  });

  it('local date and time of an instant', () => {
    expect(localDateTime(new Date('2026-11-17T15:00:00Z'), 'Asia/Tokyo')).toEqual({ date: '2026-11-18', time: '00:00' });
    expect(localDateTime(new Date('2026-11-18T07:59:00Z'), 'America/Los_Angeles')).toEqual({ date: '2026-11-17', time: '23:59' });
    expect(localDateTime(new Date('2026-11-18T00:00:00Z'), 'UTC')).toEqual({ date: '2026-11-18', time: '00:00' });
  });
});

describe('lockDateOf', () => {
  it('nothing locks when autolock is off or no flag is set', () => {
    expect(lockDateOf('2026-11-16', { ...DAY, enabled: false })).toBeNull();
    expect(lockDateOf('2026-11-16', flags({}))).toBeNull();
  });

  it('end_of_the_day: one day of grace, locked from D+2', () => {
    expect(lockDateOf('2026-11-16', DAY)).toBe('2026-11-18');
    expect(lockDateOf('2026-12-31', DAY)).toBe('2027-01-02');
  });

  it('end_of_the_week: weeks end on Sunday, locked from the Monday after', () => {
    expect(lockDateOf('2026-11-16', WEEK)).toBe('2026-11-23'); // Monday
    expect(lockDateOf('2026-11-21', WEEK)).toBe('2026-11-23'); // Saturday
    expect(lockDateOf('2026-11-22', WEEK)).toBe('2026-11-23'); // Sunday is the week's last day
    expect(lockDateOf('2026-11-23', WEEK)).toBe('2026-11-30'); // next Monday starts a new week
  });

  it('end_of_the_month: locked from the first of the next month', () => {
    expect(lockDateOf('2026-11-01', MONTH)).toBe('2026-12-01');
    expect(lockDateOf('2026-11-30', MONTH)).toBe('2026-12-01');
    expect(lockDateOf('2026-12-31', MONTH)).toBe('2027-01-01');
    expect(lockDateOf('2028-02-29', MONTH)).toBe('2028-03-01');
  });

  it('several flags: the earliest lock wins', () => {
    expect(lockDateOf('2026-11-16', flags({ endOfDay: true, endOfWeek: true }))).toBe('2026-11-18');
    expect(lockDateOf('2026-11-22', flags({ endOfDay: true, endOfWeek: true }))).toBe('2026-11-23');
    expect(lockDateOf('2026-11-30', flags({ endOfWeek: true, endOfMonth: true }))).toBe('2026-12-01');
    expect(lockDateOf('2026-11-16', flags({ endOfWeek: true, endOfMonth: true }))).toBe('2026-11-23');
    expect(lockDateOf('2026-11-30', flags({ endOfDay: true, endOfWeek: true, endOfMonth: true }))).toBe('2026-12-01');
    expect(lockDateOf('2026-11-29', flags({ endOfDay: true, endOfWeek: true, endOfMonth: true }))).toBe('2026-11-30');
  });
});

describe('lockStateOf', () => {
  it('the day of grace, in UTC', () => {
    expect(locked('2026-11-16', DAY, '2026-11-16T12:00:00Z')).toBe(false);
    expect(locked('2026-11-16', DAY, '2026-11-17T23:59:59.999Z')).toBe(false);
    expect(locked('2026-11-16', DAY, '2026-11-18T00:00:00Z')).toBe(true);
    expect(lockStateOf('2026-11-16', DAY, new Date('2026-11-20T00:00:00Z'), 'UTC')).toEqual({ locked: true, lockedSince: '2026-11-18' });
  });

  it('future entries are never locked', () => {
    expect(locked('2026-12-24', flags({ endOfDay: true, endOfWeek: true, endOfMonth: true }), '2026-11-18T10:00:00Z')).toBe(false);
  });

  it('a week is open until its Sunday has ended', () => {
    expect(locked('2026-11-16', WEEK, '2026-11-22T23:59:59Z')).toBe(false);
    expect(locked('2026-11-16', WEEK, '2026-11-23T00:00:00Z')).toBe(true);
    expect(locked('2026-11-22', WEEK, '2026-11-23T00:00:00Z')).toBe(true);
  });

  it('a month is open until its last day has ended', () => {
    expect(locked('2026-11-01', MONTH, '2026-11-30T23:59:59Z')).toBe(false);
    expect(locked('2026-11-01', MONTH, '2026-12-01T00:00:00Z')).toBe(true);
    expect(locked('2026-12-31', MONTH, '2027-01-01T00:00:00Z')).toBe(true);
    expect(locked('2028-02-29', MONTH, '2028-02-29T23:00:00Z')).toBe(false);
  });

  it('a user east of UTC locks at their midnight, before UTC does (Tokyo, +09:00)', () => {
    expect(locked('2026-11-16', DAY, '2026-11-17T14:59:59Z', 'Asia/Tokyo')).toBe(false);
    expect(locked('2026-11-16', DAY, '2026-11-17T15:00:00Z', 'Asia/Tokyo')).toBe(true);
    expect(locked('2026-11-16', DAY, '2026-11-17T15:00:00Z', 'UTC')).toBe(false);
    // +14:00: the earliest midnight on Earth
    expect(locked('2026-11-16', DAY, '2026-11-17T09:59:59Z', 'Pacific/Kiritimati')).toBe(false);
    expect(locked('2026-11-16', DAY, '2026-11-17T10:00:00Z', 'Pacific/Kiritimati')).toBe(true);
  });

  it('a user west of UTC locks at their midnight, after UTC does (Los Angeles, -08:00)', () => {
    expect(locked('2026-11-16', DAY, '2026-11-18T00:00:00Z', 'UTC')).toBe(true);
    expect(locked('2026-11-16', DAY, '2026-11-18T00:00:00Z', 'America/Los_Angeles')).toBe(false);
    expect(locked('2026-11-16', DAY, '2026-11-18T07:59:59Z', 'America/Los_Angeles')).toBe(false);
    expect(locked('2026-11-16', DAY, '2026-11-18T08:00:00Z', 'America/Los_Angeles')).toBe(true);
    // -11:00
    expect(locked('2026-11-16', DAY, '2026-11-18T10:59:59Z', 'Pacific/Pago_Pago')).toBe(false);
    expect(locked('2026-11-16', DAY, '2026-11-18T11:00:00Z', 'Pacific/Pago_Pago')).toBe(true);
  });

  it('the week ends at local midnight across the spring-forward change (New York, 8 March 2026)', () => {
    // Clocks go from 02:00 EST to 03:00 EDT on Sunday 8 March, so Monday starts at 04:00Z, not 05:00Z.
    expect(locked('2026-03-04', WEEK, '2026-03-09T03:59:59Z', 'America/New_York')).toBe(false);
    expect(locked('2026-03-04', WEEK, '2026-03-09T04:00:00Z', 'America/New_York')).toBe(true);
    // the day the clocks change is an ordinary entry date: locked two local midnights later
    expect(locked('2026-03-08', DAY, '2026-03-10T03:59:59Z', 'America/New_York')).toBe(false);
    expect(locked('2026-03-08', DAY, '2026-03-10T04:00:00Z', 'America/New_York')).toBe(true);
  });

  it('the month ends at local midnight across the fall-back change (New York, 1 November 2026)', () => {
    // 1 November begins at 00:00 EDT = 04:00Z; the clocks fall back later that night.
    expect(locked('2026-10-15', MONTH, '2026-11-01T03:59:59Z', 'America/New_York')).toBe(false);
    expect(locked('2026-10-15', MONTH, '2026-11-01T04:00:00Z', 'America/New_York')).toBe(true);
    // after the change local midnight is 05:00Z
    expect(locked('2026-10-31', DAY, '2026-11-02T04:59:59Z', 'America/New_York')).toBe(false);
    expect(locked('2026-10-31', DAY, '2026-11-02T05:00:00Z', 'America/New_York')).toBe(true);
  });

  it('European summer time ends (Berlin, 25 October 2026)', () => {
    // 25 October starts at 00:00 CEST = 24 Oct 22:00Z; 26 October at 00:00 CET = 25 Oct 23:00Z.
    expect(locked('2026-10-23', DAY, '2026-10-24T21:59:59Z', 'Europe/Berlin')).toBe(false);
    expect(locked('2026-10-23', DAY, '2026-10-24T22:00:00Z', 'Europe/Berlin')).toBe(true);
    expect(locked('2026-10-24', DAY, '2026-10-25T22:59:59Z', 'Europe/Berlin')).toBe(false);
    expect(locked('2026-10-24', DAY, '2026-10-25T23:00:00Z', 'Europe/Berlin')).toBe(true);
  });
});
