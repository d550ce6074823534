import { formatMoney } from '../money.ts';

/**
 * Amounts and dates as a person in the workspace's locale reads them (`1.234,50 €`, `18.11.2026`
 * for de-DE; `€1,234.50`, `Nov 18, 2026` for en-US), through Intl. One formatter per locale.
 */
export interface Formats {
  locale: string;
  money: (minor: number) => string;
  /** A `YYYY-MM-DD` calendar day (no time zone: it is a day, not an instant). */
  day: (date: string) => string;
  /** A decimal number such as hours (`1,5` in de-DE), up to `decimals` places. */
  number: (value: number, decimals?: number) => string;
}

const dayFormats = new Map<string, Intl.DateTimeFormat>();
const numberFormats = new Map<string, Intl.NumberFormat>();

function dayFormat(locale: string): Intl.DateTimeFormat {
  let f = dayFormats.get(locale);
  if (!f) {
    f = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' });
    dayFormats.set(locale, f);
  }
  return f;
}

function numberFormat(locale: string, decimals: number): Intl.NumberFormat {
  const key = `${locale}|${decimals}`;
  let f = numberFormats.get(key);
  if (!f) {
    f = new Intl.NumberFormat(locale, { maximumFractionDigits: decimals });
    numberFormats.set(key, f);
  }
  return f;
}

/** A `YYYY-MM-DD` calendar day as a person in `locale` reads it (`18.11.2026`, `Nov 18, 2026`). */
export const formatDay = (locale: string, date: string): string => dayFormat(locale).format(new Date(`${date}T00:00:00.000Z`));

export function formatsFor(locale: string, currency: string): Formats {
  return {
    locale,
    money: (minor) => formatMoney(minor, currency, locale),
    day: (date) => formatDay(locale, date),
    number: (value, decimals = 4) => numberFormat(locale, decimals).format(value),
  };
}
