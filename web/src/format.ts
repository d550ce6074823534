/**
 * Every date, time, amount and number the app shows is formatted here, with Intl, in one locale:
 * the workspace's (its identity's locale, set by the session gate once signed in); the browser's
 * before that.
 */
import { amountText, currencyDecimals, minorToDecimal, parseAmount, parseDecimal, toMinorUnits } from './amount.ts';

let locale = typeof navigator === 'undefined' ? 'en-US' : navigator.language || 'en-US';
export const setLocale = (value: string) => {
  locale = value;
};

const cache = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat>();
function fmt<T extends Intl.NumberFormat | Intl.DateTimeFormat>(key: string, make: () => T): T {
  let f = cache.get(`${locale}|${key}`) as T | undefined;
  if (!f) {
    f = make();
    cache.set(`${locale}|${key}`, f);
  }
  return f;
}

/** Calendar dates (`YYYY-MM-DD`) are days, not instants: formatted at UTC so no zone shifts them. */
const day = (date: string) => new Date(`${date}T00:00:00Z`);

export const formatDate = (date: string) => fmt('date', () => new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' })).format(day(date));
export const formatWeekday = (date: string) => fmt('weekday', () => new Intl.DateTimeFormat(locale, { weekday: 'short', timeZone: 'UTC' })).format(day(date));
export const formatDayMonth = (date: string) => fmt('daymonth', () => new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', timeZone: 'UTC' })).format(day(date));
export const formatMonth = (date: string) => fmt('month', () => new Intl.DateTimeFormat(locale, { month: 'long', year: 'numeric', timeZone: 'UTC' })).format(day(date));
export const formatLongDay = (date: string) =>
  fmt('longday', () => new Intl.DateTimeFormat(locale, { weekday: 'long', day: 'numeric', month: 'long', timeZone: 'UTC' })).format(day(date));

/** The calendar day of an instant in `timeZone` (the workspace's): created 00:30 on Nov 29 in Berlin is Nov 29, not UTC's Nov 28. */
export const formatDayOf = (iso: string, timeZone: string) =>
  fmt(`dayof|${timeZone}`, () => new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone })).format(new Date(iso));

/** An instant, in the viewer's own zone unless one is given. */
export const formatDateTime = (iso: string, timeZone?: string) =>
  fmt(`dt|${timeZone ?? ''}`, () => new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', ...(timeZone ? { timeZone } : {}) })).format(new Date(iso));

export const formatMoney = (amount: number, currency: string) =>
  fmt(`money|${currency}`, () => new Intl.NumberFormat(locale, { style: 'currency', currency })).format(amount);

/** An amount kept in minor units (as the card processor reports it): 12345 USD → $123.45. */
export const formatMinor = (minor: number, currency: string) =>
  fmt(`money|${currency}`, () => new Intl.NumberFormat(locale, { style: 'currency', currency })).format(minorToDecimal(minor, currencyDecimals(currency)) as `${number}`);

/** What a person typed into an amount field, read in this locale (amount.ts): minor units or why not. */
export const readAmount = (text: string, currency: string, opts?: { positive?: boolean }) => parseAmount(text, currency, locale, opts);
/** A quantity or percentage typed in this locale, as the number the API takes. */
export const readDecimal = (text: string, maxDecimals: number, opts?: { positive?: boolean }) => parseDecimal(text, locale, maxDecimals, opts);
/** An amount of the API as an amount field starts out (1190 EUR → "1,190.00" in en, "1.190,00" in de). */
export const amountInputText = (amount: number, currency: string) => amountText(toMinorUnits(amount, currency), currency, locale);

/** A quantity or percentage as its field starts out: this locale's decimal mark, no grouping (1.5 → "1,5" in de). */
export const decimalInputText = (value: number, maxDecimals: number) =>
  fmt(`input|${maxDecimals}`, () => new Intl.NumberFormat(locale, { maximumFractionDigits: maxDecimals, useGrouping: false })).format(String(value) as `${number}`);

export const formatNumber = (value: number, maxDecimals = 2) => fmt(`n|${maxDecimals}`, () => new Intl.NumberFormat(locale, { maximumFractionDigits: maxDecimals })).format(value);

/** Hours as H:MM, the way people read durations (1.5 → 1:30). */
export function formatHours(hours: number): string {
  const minutes = Math.round(hours * 60);
  return `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, '0')}`;
}

/** Seconds as H:MM:SS, for a running timer. */
export function formatClock(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 3600)}:${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}
