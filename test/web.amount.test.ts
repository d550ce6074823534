import { describe, expect, it } from 'vitest';
import { amountText, minorToNumber, parseAmount, parseDecimal } from '../web/src/amount.ts';

/**
 * The app's one parser of typed amounts (web/src/amount.ts): a person's text in the workspace's
 * locale (en, de, fr) into exact minor units of 0-, 2- and 3-decimal currencies (JPY, EUR, BHD),
 * and a clear refusal of ambiguous or malformed text.
 */

const minor = (text: string, currency: string, locale: string) => {
  const r = parseAmount(text, currency, locale);
  return r.ok ? r.value : `refused: ${r.message}`;
};

describe('parseAmount', () => {
  it.each([
    // en: "," groups, "." is the decimal mark
    ['en', 'EUR', '1,234.50', 123450],
    ['en', 'EUR', '1234.5', 123450],
    ['en', 'EUR', '  12  ', 1200],
    ['en', 'EUR', '.5', 50],
    ['en', 'EUR', '1,234,567.89', 123456789],
    ['en', 'EUR', '€1,234.50', 123450],
    ['en', 'EUR', '1,234.50 EUR', 123450],
    ['en', 'EUR', '0', 0],
    ['en', 'JPY', '1,234', 1234],
    ['en', 'JPY', '¥12,000', 12000],
    ['en', 'BHD', '1,234.567', 1234567],
    ['en', 'BHD', '0.005', 5],
    // de: "." groups, "," is the decimal mark
    ['de', 'EUR', '1.234,50', 123450],
    ['de', 'EUR', '1234,5', 123450],
    ['de', 'EUR', '1.234.567,89 €', 123456789],
    ['de', 'EUR', '1 234,50', 123450],
    ['de', 'JPY', '1.234', 1234],
    ['de', 'BHD', '1.234,567', 1234567],
    // fr: a (narrow, no-break or plain) space groups, "," is the decimal mark; "." is no group mark there
    ['fr', 'EUR', '1 234,50', 123450],
    ['fr', 'EUR', '1\u202f234,50', 123450],
    ['fr', 'EUR', '1\u00a0234,50 €', 123450],
    ['fr', 'EUR', '12.5', 1250],
    ['fr', 'JPY', '12 000', 12000],
    ['fr', 'BHD', '1 234,567', 1234567],
  ])('%s %s "%s" → %s', (locale, currency, text, expected) => {
    expect(minor(text, currency, locale)).toBe(expected);
  });

  it('is exact where floats are not (0.1 + 0.2, 2^53 − 1 minor units)', () => {
    expect(minor('0.30', 'EUR', 'en')).toBe(30);
    expect(minor('1.005', 'BHD', 'en')).toBe(1005);
    expect(minor('4.35', 'EUR', 'en')).toBe(435);
    expect(minor('90,071,992,547,409.91', 'EUR', 'en')).toBe(Number.MAX_SAFE_INTEGER);
    expect(minor('90,071,992,547,409.92', 'EUR', 'en')).toBe('refused: This amount is too large');
  });

  it.each([
    ['en', 'EUR', '', 'Enter an amount'],
    ['en', 'EUR', '12,5', 'Not an amount: write it as 1,234.50'],
    ['en', 'EUR', '1.234,50', 'Not an amount: write it as 1,234.50'],
    ['en', 'EUR', '1,23,456.00', 'Not an amount: write it as 1,234.50'],
    ['en', 'EUR', '12.3.4', 'Not an amount: write it as 1,234.50'],
    ['en', 'EUR', '12.', 'Not an amount: write it as 1,234.50'],
    ['en', 'EUR', '1e3', 'Not an amount: write it as 1,234.50'],
    ['en', 'EUR', 'twelve', 'Not an amount: write it as 1,234.50'],
    ['en', 'EUR', '$12', 'Not an amount: write it as 1,234.50'],
    ['en', 'EUR', '12.345', 'EUR amounts have at most 2 decimals'],
    ['en', 'JPY', '12.5', 'JPY amounts have no decimals'],
    ['en', 'JPY', '1.000', 'JPY amounts have no decimals'],
    ['en', 'BHD', '1.2345', 'BHD amounts have at most 3 decimals'],
    // A 3-decimal currency could read "1,234" either way.
    ['en', 'BHD', '1,234', 'Ambiguous: write 1234 or 1.234'],
    ['de', 'BHD', '1.234', 'Ambiguous: write 1234 or 1,234'],
    ['de', 'EUR', '12.50', 'Not an amount: write it as 1.234,50'],
    ['de', 'EUR', '1,234.50', 'Not an amount: write it as 1.234,50'],
    ['de', 'JPY', '1,5', 'JPY amounts have no decimals'],
    ['fr', 'EUR', '1 23,50', 'Not an amount: write it as 1\u202f234,50'],
    ['fr', 'EUR', '1.234,50', 'Not an amount: write it as 1\u202f234,50'],
    ['fr', 'BHD', '1,2345', 'BHD amounts have at most 3 decimals'],
  ])('%s %s "%s" is refused: %s', (locale, currency, text, message) => {
    expect(minor(text, currency, locale)).toBe(`refused: ${message}`);
  });

  it('refuses a minus sign where only positive amounts make sense, and reads it elsewhere', () => {
    expect(parseAmount('-12.50', 'EUR', 'en', { positive: true })).toEqual({ ok: false, message: 'Enter the amount without a minus sign' });
    expect(parseAmount('-12.50', 'EUR', 'en')).toEqual({ ok: true, value: -1250 });
    expect(parseAmount('\u22121.234,50', 'EUR', 'de')).toEqual({ ok: true, value: -123450 });
  });
});

describe('the way back: what an amount field shows, what the API is sent', () => {
  it.each([
    ['en', 'EUR', 119000, '1,190.00'],
    ['de', 'EUR', 123450, '1.234,50'],
    ['fr', 'EUR', 123450, '1\u202f234,50'],
    ['en', 'JPY', 1234, '1,234'],
    ['de', 'BHD', 1234567, '1.234,567'],
  ])('%s %s %s → "%s", which reads back the same', (locale, currency, value, text) => {
    expect(amountText(value, currency, locale)).toBe(text);
    expect(minor(text, currency, locale)).toBe(value);
  });

  it('sends the exact decimal of the minor units', () => {
    expect(minorToNumber(123450, 'EUR')).toBe(1234.5);
    expect(minorToNumber(1234567, 'BHD')).toBe(1234.567);
    expect(minorToNumber(1234, 'JPY')).toBe(1234);
    expect(minorToNumber(30, 'EUR')).toBe(0.3);
  });
});

describe('parseDecimal (quantities and percentages)', () => {
  it('reads the same notation, with the decimals the field allows', () => {
    expect(parseDecimal('1,5', 'de', 3)).toEqual({ ok: true, value: 1.5 });
    expect(parseDecimal('1.5', 'en', 3)).toEqual({ ok: true, value: 1.5 });
    expect(parseDecimal('7,25', 'fr', 4)).toEqual({ ok: true, value: 7.25 });
    expect(parseDecimal('2 500', 'fr', 3)).toEqual({ ok: true, value: 2500 });
    expect(parseDecimal('19', 'de', 4)).toEqual({ ok: true, value: 19 });
    expect(parseDecimal('1.23456', 'en', 3)).toEqual({ ok: false, message: 'At most 3 decimals' });
    expect(parseDecimal('1,5', 'en', 3)).toEqual({ ok: false, message: 'Not a number: write it as 1,234.500' });
    expect(parseDecimal('', 'en', 3)).toEqual({ ok: false, message: 'Enter a number' });
  });
});
