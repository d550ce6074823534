import type { Formats } from '../domain/invoices/format.ts';
import { currencyDecimals, minorToDecimalString } from '../domain/money.ts';
import { withoutBidiControls } from './fonts.ts';

/**
 * Amounts, numbers and dates as the PDF writes them: in the workspace's locale (its separators,
 * its order, its calendar), but always with Latin digits and without bidi control characters.
 * pdfkit draws a string's glyphs in one direction and does no bidi reordering: Arabic-Indic digits
 * (ar-BH) came out reversed ("٨٢٢٫٦٢٦" for 626.228) and the invisible U+061C as an empty box. So a
 * number is formatted with `numberingSystem: 'latn'`, and a text that would still hold right-to-left
 * letters (the symbol "د.ب.", a Hebrew or Persian month name) or characters the font cannot draw
 * (a Devanagari month) falls back: amounts to the ISO currency code ("-626.228 BHD"), dates to the
 * locale's numeric form ("28/11/2026").
 */

/** Hebrew, Arabic, Syriac, Thaana, NKo, Samaritan, … and their presentation forms: drawn right to left. */
const RTL = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc\u{10800}-\u{10fff}\u{1e800}-\u{1efff}]/u;

/** Whether the PDF can draw a text as it reads: no right-to-left letters, a glyph for every character. */
export type Drawable = (text: string) => boolean;

const plain = (text: string) => withoutBidiControls(text);

export function pdfFormatsFor(locale: string, currency: string, drawable: Drawable): Formats {
  const ok = (text: string) => !RTL.test(text) && drawable(text);
  const decimals = currencyDecimals(currency);
  const moneyOptions: Intl.NumberFormatOptions = { style: 'currency', currency, minimumFractionDigits: decimals, maximumFractionDigits: decimals, numberingSystem: 'latn' };
  const symbol = new Intl.NumberFormat(locale, moneyOptions);
  const code = new Intl.NumberFormat(locale, { ...moneyOptions, currencyDisplay: 'code' });
  // The symbol is kept unless the locale writes it in a right-to-left script or the font lacks it.
  const money = ok(plain(symbol.format(-1234.5))) ? symbol : code;

  const dayOptions = { timeZone: 'UTC', numberingSystem: 'latn' } as const;
  const medium = new Intl.DateTimeFormat(locale, { ...dayOptions, dateStyle: 'medium' });
  const numeric = new Intl.DateTimeFormat(locale, { ...dayOptions, year: 'numeric', month: '2-digit', day: '2-digit' });
  const days = new Map<string, string>();
  const day = (date: string) => {
    let text = days.get(date);
    if (text === undefined) {
      const instant = new Date(`${date}T00:00:00.000Z`);
      text = [medium, numeric].map((f) => plain(f.format(instant))).find(ok) ?? date;
      days.set(date, text);
    }
    return text;
  };

  const numbers = new Map<number, Intl.NumberFormat>();
  const number = (value: number, places = 4) => {
    let f = numbers.get(places);
    if (!f) numbers.set(places, (f = new Intl.NumberFormat(locale, { maximumFractionDigits: places, numberingSystem: 'latn' })));
    return plain(f.format(value));
  };

  return {
    locale,
    money: (minor) => plain(money.format(Number(minorToDecimalString(minor, decimals)))),
    day,
    number,
  };
}
