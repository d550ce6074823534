import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hoursOf, MAX_DAY_SECONDS, parseHours } from '../src/domain/time/hours.ts';
import { roundUpSeconds } from '../src/domain/time/rounding.ts';

const seconds = (raw: string) => {
  const r = parseHours(raw);
  if (!r.ok) throw new Error(`${raw}: ${r.message}`);
  return r.seconds;
};

describe('parseHours', () => {
  it.each([
    ['1', 3600],
    ['1.5', 5400],
    ['0.25', 900],
    ['.5', 1800],
    ['1:30', 5400],
    ['0:01', 60],
    ['1:30:15', 5415],
    ['24', 86400],
    ['24:00', 86400],
    ['24.0000', 86400],
    [' 2.75 ', 9900],
    ['0.1', 360],
    ['0.0003', 1],
    ['1.3333', 4800],
    ['08.5', 30600],
  ])('%s → %i seconds', (raw, expected) => {
    expect(seconds(raw)).toBe(expected);
  });

  it('rounds decimal hours half-up to the second', () => {
    // 0.0001 h = 0.36 s is refused; 0.0002 h = 0.72 s → 1 s; 0.0125 h = 45 s exactly
    expect(parseHours('0.0001')).toEqual({ ok: false, message: 'must be at least one second' });
    expect(seconds('0.0002')).toBe(1);
    expect(seconds('0.0125')).toBe(45);
  });

  it.each(['0', '0.0', '0:00', '-1', '-0.5', '24.0001', '24:01', '25', '100', '1e2', 'abc', '', ' ', '1,5', '1.', '1:3', '1:60', '1:30:60', 'Infinity', 'NaN', '0x10', '1.23456', '1 h', '+1'])(
    '%j is refused',
    (raw) => {
      expect(parseHours(raw).ok).toBe(false);
    },
  );

  it('explains why', () => {
    expect(parseHours('0')).toEqual({ ok: false, message: 'must be more than 0 hours' });
    expect(parseHours('24.5')).toEqual({ ok: false, message: 'must be at most 24 hours' });
    expect(parseHours('1.23456')).toEqual({ ok: false, message: 'may have at most 4 decimal places' });
  });

  it('reads every H:MM of a day exactly', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 24 * 60 }), (minutes) => {
        const text = `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, '0')}`;
        expect(seconds(text)).toBe(minutes * 60);
      }),
    );
  });

  it('agrees with exact decimal arithmetic for 2-decimal hours', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2400 }), (hundredths) => {
        const text = `${Math.floor(hundredths / 100)}.${String(hundredths % 100).padStart(2, '0')}`;
        expect(seconds(text)).toBe(hundredths * 36);
      }),
    );
  });
});

describe('roundUpSeconds', () => {
  it('0 leaves the duration alone', () => {
    for (const s of [1, 59, 61, 3599, 3601, MAX_DAY_SECONDS]) expect(roundUpSeconds(s, 0)).toBe(s);
  });

  it.each([
    [6, 360],
    [15, 900],
    [30, 1800],
  ])('%i minutes: exact multiples stay, one second over goes up a step', (step, stepSeconds) => {
    expect(roundUpSeconds(stepSeconds, step)).toBe(stepSeconds);
    expect(roundUpSeconds(stepSeconds * 3, step)).toBe(stepSeconds * 3);
    expect(roundUpSeconds(stepSeconds + 1, step)).toBe(stepSeconds * 2);
    expect(roundUpSeconds(stepSeconds * 3 + 1, step)).toBe(stepSeconds * 4);
    expect(roundUpSeconds(1, step)).toBe(stepSeconds);
    expect(roundUpSeconds(stepSeconds - 1, step)).toBe(stepSeconds);
    expect(roundUpSeconds(MAX_DAY_SECONDS, step)).toBe(MAX_DAY_SECONDS);
  });

  it('examples in hours', () => {
    expect(hoursOf(roundUpSeconds(seconds('1:01'), 15))).toBe(1.25);
    expect(hoursOf(roundUpSeconds(seconds('1:01'), 6))).toBe(1.1);
    expect(hoursOf(roundUpSeconds(seconds('1:01'), 30))).toBe(1.5);
    expect(hoursOf(roundUpSeconds(seconds('1.25'), 15))).toBe(1.25);
    expect(hoursOf(roundUpSeconds(seconds('0.1'), 6))).toBe(0.1);
  });

  it('is never below the input and is the smallest multiple at or above it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_DAY_SECONDS }), fc.constantFrom(6, 15, 30), (s, step) => {
        const r = roundUpSeconds(s, step);
        expect(r % (step * 60)).toBe(0);
        expect(r).toBeGreaterThanOrEqual(s);
        expect(r - s).toBeLessThan(step * 60);
      }),
    );
  });

  it('refuses steps that are not 0, 6, 15 or 30', () => {
    expect(() => roundUpSeconds(60, 10)).toThrow(RangeError);
  });
});

describe('hoursOf', () => {
  it('shows 4 decimals', () => {
    expect(hoursOf(4800)).toBe(1.3333);
    expect(hoursOf(1)).toBe(0.0003);
    expect(hoursOf(5400)).toBe(1.5);
    expect(hoursOf(86400)).toBe(24);
  });
});
