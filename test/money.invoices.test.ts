import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../src/errors.ts';
import {
  currencyDecimals,
  decimalOf,
  decimalPlaces,
  decimalText,
  formatMoney,
  fromMinor,
  hoursAmountMinor,
  hoursToSeconds,
  percentOfMinor,
  quantityAmountMinor,
  timeAmountMinor,
  toMinor,
  toScaledInteger,
  withinTolerance,
} from '../src/domain/money.ts';
import { incrementNumber } from '../src/domain/invoices/next-number.ts';
import { reminderDateFor } from '../src/domain/invoices/reminders.ts';

describe('line amounts: hours × rate, rounded half-up once per line', () => {
  it('rounds half a cent up', () => {
    // 0.5 h at 0.01/h = 0.005 → 0.01
    expect(timeAmountMinor(1800, 1)).toBe(1);
    // 1 s at 100.00/h = 2.7777… cents → 3
    expect(timeAmountMinor(1, 10000)).toBe(3);
    // 20 min at 100.00/h = 33.333… → 33.33
    expect(timeAmountMinor(1200, 10000)).toBe(3333);
    // 1.5 h at 33.33 = 49.995 → 50.00
    expect(timeAmountMinor(5400, 3333)).toBe(5000);
  });

  it('rounds each line, not the sum: three 20-minute lines at 100/h are 99.99', () => {
    const lines = [1200, 1200, 1200].map((s) => timeAmountMinor(s, 10000));
    expect(lines.reduce((a, b) => a + b, 0)).toBe(9999);
  });

  it('the fast path in doubles agrees with exact integer arithmetic, up to the edge of safe integers', () => {
    const exact = (s: number, r: number) => Number((BigInt(s) * BigInt(r) * 2n + 3600n) / 7200n);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 86_400 }), fc.maxSafeNat(), (seconds, rate) => {
        expect(timeAmountMinor(seconds, rate)).toBe(exact(seconds, rate));
      }),
      { numRuns: 5000 },
    );
    // Right at the boundary where 2 × seconds × rate + 3600 stops being a safe integer.
    for (const rate of [Math.floor((Number.MAX_SAFE_INTEGER - 3600) / 2 / 86_400), Math.floor((Number.MAX_SAFE_INTEGER - 3600) / 2 / 86_400) + 1]) {
      expect(timeAmountMinor(86_400, rate)).toBe(exact(86_400, rate));
    }
  });

  it('is exact far beyond float precision', () => {
    // 24 h at 999,999,999.99/h
    expect(timeAmountMinor(86400, 99999999999)).toBe(2399999999976);
  });

  it('matches exact rational arithmetic for any seconds and rate', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 86400 }), fc.integer({ min: 0, max: 10_000_000 }), (s, r) => {
        const exact = (BigInt(s) * BigInt(r) * 2n + 3600n) / 7200n;
        expect(timeAmountMinor(s, r)).toBe(Number(exact));
      }),
    );
  });

  it('converts decimal hours to seconds half-up', () => {
    expect(hoursToSeconds(1.5)).toBe(5400);
    expect(hoursToSeconds(0.25)).toBe(900);
    expect(hoursToSeconds(0.3333)).toBe(1200); // 1199.88 s
    expect(hoursToSeconds(0.1)).toBe(360); // no 0.1 float drift
    expect(hoursToSeconds(1 / 7200)).toBe(1); // 0.5 s → 1
  });

  it('service lines: quantity (thousandths) × unit amount, half-up', () => {
    expect(quantityAmountMinor(1500, 999)).toBe(1499); // 1.5 × 9.99 = 14.985 → 14.99
    expect(quantityAmountMinor(3000, 3333)).toBe(9999);
    expect(quantityAmountMinor(1, 1)).toBe(0); // 0.001 × 0.01
    expect(toScaledInteger(1.5, 3)).toBe(1500);
    expect(toScaledInteger(0.0005, 3)).toBeNull();
  });
});

describe('taxes: a percentage of the subtotal, as an exact decimal', () => {
  it('rounds half-up and never drifts through floats', () => {
    expect(percentOfMinor(10000, '19')).toBe(1900);
    expect(percentOfMinor(999, '7.25')).toBe(72); // 72.4275
    expect(percentOfMinor(1000, '0.5')).toBe(5);
    expect(percentOfMinor(1, '50')).toBe(1); // 0.5 → 1
    expect(percentOfMinor(12345, '8.875')).toBe(1096); // 1095.61875
    expect(percentOfMinor(100, '0')).toBe(0);
  });

  it('keeps the percentage as written', () => {
    expect(decimalText(7.25)).toBe('7.25');
    expect(decimalText(19)).toBe('19');
    expect(decimalText(0.1)).toBe('0.1');
    expect(decimalOf(8.875)).toEqual({ units: 8875n, scale: 3 });
  });
});

describe('currencies', () => {
  it('USD, EUR: cents', () => {
    expect(toMinor(10.5, 'USD')).toBe(1050);
    expect(toMinor(0.29, 'EUR')).toBe(29); // 0.29 * 100 = 28.999999999999996 in floats
    expect(toMinor(12.345, 'USD')).toBeNull();
    expect(fromMinor(1050, 'EUR')).toBe(10.5);
    expect(formatMoney(123450, 'USD')).toBe('$1,234.50');
    expect(formatMoney(123450, 'EUR')).toBe('€1,234.50');
  });

  it('JPY has no decimals', () => {
    expect(toMinor(1500, 'JPY')).toBe(1500);
    expect(toMinor(1500.5, 'JPY')).toBeNull();
    expect(timeAmountMinor(5400, 1333)).toBe(2000); // 1.5 h × ¥1,333 = 1,999.5 → ¥2,000
    expect(formatMoney(2000, 'JPY')).toBe('¥2,000');
    expect(percentOfMinor(2000, '10')).toBe(200);
  });

  it('BHD has three decimals', () => {
    expect(toMinor(1.234, 'BHD')).toBe(1234);
    expect(toMinor(1.2345, 'BHD')).toBeNull();
    expect(timeAmountMinor(1200, 10000)).toBe(3333); // 20 min at 10.000 BHD = 3.333
    expect(fromMinor(3333, 'BHD')).toBe(3.333);
    expect(formatMoney(3333, 'BHD')).toMatch(/3\.333/);
  });

  it('minor units are the digits amounts are shown with, pinned: whole forints and rupiahs, three decimals for dinars', () => {
    expect([currencyDecimals('HUF'), currencyDecimals('IDR'), currencyDecimals('IQD'), currencyDecimals('ISK')]).toEqual([0, 0, 0, 0]);
    expect([currencyDecimals('KWD'), currencyDecimals('LYD'), currencyDecimals('USD'), currencyDecimals('CHF')]).toEqual([3, 3, 2, 2]);
    expect(toMinor(1500, 'HUF')).toBe(1500);
    expect(toMinor(1500.5, 'HUF')).toBeNull();
    expect(formatMoney(150000, 'HUF')).toMatch(/^HUF\s150,000$/);
    // The pinned table is what this Node's ICU formats with, for every currency it knows.
    const differing = Intl.supportedValuesOf('currency').filter(
      (c) => new Intl.NumberFormat('en', { style: 'currency', currency: c }).resolvedOptions().maximumFractionDigits !== currencyDecimals(c),
    );
    expect(differing).toEqual([]);
  });

  it('compares a stated total within 0.01 in exact decimals', () => {
    expect(withinTolerance(100.01, 10000, 'USD')).toBe(true);
    expect(withinTolerance(99.99, 10000, 'USD')).toBe(true);
    expect(withinTolerance(100.02, 10000, 'USD')).toBe(false);
    expect(withinTolerance(100.005, 10000, 'USD')).toBe(true);
    expect(withinTolerance(2000, 2000, 'JPY')).toBe(true);
    expect(withinTolerance(2001, 2000, 'JPY')).toBe(false);
    expect(withinTolerance(3.343, 3333, 'BHD')).toBe(true);
    expect(withinTolerance(3.344, 3333, 'BHD')).toBe(false);
  });
});

describe('invoice numbers', () => {
  it.each([
    ['INV-0041', 'INV-0042'],
    ['INV-0099', 'INV-0100'],
    ['INV-9999', 'INV-10000'],
    ['2026/007', '2026/008'],
    ['41', '42'],
    ['ACME', 'ACME-2'],
  ])('%s → %s', (last, next) => expect(incrementNumber(last)).toBe(next));
});

describe('reminder dates', () => {
  it('on the due date and every 7 days after, the latest one not after today', () => {
    expect(reminderDateFor('2026-11-20', '2026-11-19')).toBeNull();
    expect(reminderDateFor('2026-11-20', '2026-11-20')).toBe('2026-11-20');
    expect(reminderDateFor('2026-11-20', '2026-11-26')).toBe('2026-11-20');
    expect(reminderDateFor('2026-11-20', '2026-11-27')).toBe('2026-11-27');
    expect(reminderDateFor('2026-11-20', '2026-12-20')).toBe('2026-12-18');
  });
});

describe('exponent notation and huge numbers', () => {
  it('reads numbers JavaScript prints in exponent form exactly', () => {
    expect(decimalOf(1e21)).toEqual({ units: 10n ** 21n, scale: 0 });
    expect(decimalOf(-1.5e22)).toEqual({ units: -15n * 10n ** 21n, scale: 0 });
    expect(decimalOf(1.5e-7)).toEqual({ units: 15n, scale: 8 });
    expect(decimalOf(1e-7)).toEqual({ units: 1n, scale: 7 });
    expect(decimalPlaces(1.25e-10)).toBe(12);
    expect(decimalText(1e21)).toBe('1000000000000000000000');
  });

  it('never throws a raw error: too large is null, not finite is a 422', () => {
    expect(toMinor(1e21, 'USD')).toBeNull();
    expect(toMinor(1e-7, 'USD')).toBeNull();
    expect(toScaledInteger(1e21, 3)).toBeNull();
    expect(() => decimalOf(Infinity)).toThrow(AppError);
    try {
      decimalOf(Number.NaN);
    } catch (err) {
      expect((err as AppError).status).toBe(422);
    }
  });

  it('round-trips any finite double through its decimal text', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (v) => {
        const d = decimalOf(v);
        expect(Number(`${d.units}e-${d.scale}`)).toBe(v === 0 ? 0 : v);
      }),
    );
  });
});

describe('a line with its own hours: exact hours × rate, one rounding', () => {
  it.each([
    [0.1234, 15000, 1851], // 18.51, not 18.50 via 444 s
    [0.0137, 100000, 1370], // 13.70, not 13.61 via 49 s
    [1.0001, 1000000, 1000100], // 10,001.00, not 10,000.00 via 3600 s
    [0.0001, 1, 0], // 0.000001 cents → 0
    [0.5, 1, 1], // half a cent rounds up
  ])('%s h at %s minor/h = %s minor', (hours, rate, amount) => {
    expect(hoursAmountMinor(decimalOf(hours), rate)).toBe(amount);
  });
});

describe('formatMoney', () => {
  const RealNumberFormat = Intl.NumberFormat;
  afterEach(() => {
    Intl.NumberFormat = RealNumberFormat;
  });

  it('builds one Intl.NumberFormat per locale and currency, not one per call', () => {
    const first = formatMoney(1, 'CHF', 'de-CH');
    let built = 0;
    Intl.NumberFormat = function (...args: ConstructorParameters<typeof Intl.NumberFormat>) {
      built++;
      return new RealNumberFormat(...args);
    } as unknown as typeof Intl.NumberFormat;
    for (let i = 0; i < 50; i++) formatMoney(i * 100, 'CHF', 'de-CH');
    expect(formatMoney(1, 'CHF', 'de-CH')).toBe(first);
    expect(built).toBe(0);
  });
});
