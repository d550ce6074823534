import { AppError } from '../errors.ts';

/**
 * Money is kept in integer minor units of its currency (cents for USD, yen for JPY). Conversion
 * from the API's decimal numbers goes through their decimal text, never through float arithmetic.
 */

/**
 * Currencies kept in whole units: CLDR's currency digits (what Node 20's ICU formats with), which
 * follow ISO 4217 except where the subunit is not in use (HUF, IDR, COP, PKR, IQD, ...: ISO says 2
 * or 3). Pinned here rather than read from ICU at run time: stored `*_minor` amounts mean what
 * these digits say, and an ICU upgrade that changed one would misread every stored amount.
 */
const ZERO_DECIMALS = new Set([
  'AFN', 'ALL', 'BIF', 'CLP', 'COP', 'DJF', 'GNF', 'HUF', 'IDR', 'IQD', 'IRR', 'ISK', 'JPY', 'KMF', 'KPW', 'KRW', 'LAK',
  'LBP', 'MGA', 'MMK', 'PKR', 'PYG', 'RWF', 'SLL', 'SOS', 'SYP', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF', 'YER',
]);
/** Currencies with three decimals (CLDR, as ISO 4217 save IQD). Every other currency has two. */
const THREE_DECIMALS = new Set(['BHD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND']);

/** How many decimals a currency's amounts have (USD 2, JPY 0, HUF 0, BHD 3): its minor unit. */
export const currencyDecimals = (currency: string): number => (ZERO_DECIMALS.has(currency) ? 0 : THREE_DECIMALS.has(currency) ? 3 : 2);

/**
 * Splits a finite number's shortest decimal text into sign, integer digits and fraction digits.
 * Exponent forms (`1e+21`, `1.5e-7`) are expanded digit by digit, so the result is exact for any
 * finite number; a non-finite one is a 422, never a raw exception.
 */
function decimalParts(value: number): { negative: boolean; int: string; frac: string } {
  if (!Number.isFinite(value)) throw new AppError('unprocessable', 'validation_failed', 'must be a finite number');
  const text = String(value);
  const negative = text.startsWith('-');
  const unsigned = negative ? text.slice(1) : text;
  const m = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/i.exec(unsigned);
  if (!m) throw new AppError('unprocessable', 'validation_failed', `not a decimal number: ${text}`);
  const intDigits = m[1] ?? '0';
  const fracDigits = m[2] ?? '';
  const exponent = Number(m[3] ?? 0);
  // Move the decimal point `exponent` places within the digit string.
  const digits = intDigits + fracDigits;
  const point = intDigits.length + exponent;
  const int = point <= 0 ? '0' : digits.slice(0, point).padEnd(point, '0');
  const frac = point <= 0 ? '0'.repeat(-point) + digits : digits.slice(point);
  return { negative, int: int.replace(/^0+(?=\d)/, ''), frac };
}

/** Digits after the decimal point of a number as written (1.5 → 1, 2 → 0). */
export function decimalPlaces(value: number): number {
  return decimalParts(value).frac.replace(/0+$/, '').length;
}

/**
 * The most minor units an amount may have. An integer up to 10^15 has at most 15 significant
 * digits, so both it and its value in major units (what responses carry, a JSON number) survive a
 * round trip through a double exactly. 2^53, the end of exact integers, is not enough once the
 * decimal point moves: 8,999,999,999,999,991 fils is exact, 8999999999999.991 KWD is answered as
 * 8999999999999.99. For currencies of two decimals this is 10^13 major units, the inputs' bound.
 */
export const MAX_EXACT_MINOR = 10 ** 15;

/** Whether `minor` is an amount every door can state exactly (see MAX_EXACT_MINOR). */
export const isExactMinor = (minor: number): boolean => Number.isSafeInteger(minor) && Math.abs(minor) <= MAX_EXACT_MINOR;

/**
 * An amount in the currency's minor units. Returns null when the value has more decimals than the
 * currency allows (12.345 USD) or is too large to be exact; callers turn that into a 422.
 */
export function toMinor(value: number, currency: string): number | null {
  const decimals = currencyDecimals(currency);
  const { negative, int, frac } = decimalParts(value);
  if (frac.replace(/0+$/, '').length > decimals) return null;
  const minor = Number(int + frac.padEnd(decimals, '0').slice(0, decimals));
  if (!isExactMinor(minor)) return null;
  return negative ? -minor : minor;
}

/**
 * Why `toMinor` refused `value`, as a field's message: too many decimals for the currency, or
 * (a whole amount of at most those decimals) too large to be exact (beyond MAX_EXACT_MINOR).
 */
export function minorAmountProblem(value: number, currency: string): string {
  const decimals = currencyDecimals(currency);
  if (decimalPlaces(value) <= decimals) return 'is too large: amounts are kept exact up to 10^15 of the currency\'s smallest unit';
  return decimals === 0 ? `must be a whole amount in ${currency}` : `must have at most ${decimals} decimal${decimals === 1 ? '' : 's'} in ${currency}`;
}

/** A number for JSON responses, with at most the currency's decimals (1050 USD → 10.5). */
export function fromMinor(minor: number, currency: string): number {
  const decimals = currencyDecimals(currency);
  return Number(minorToDecimalString(minor, decimals));
}

/** Exact decimal text of a minor amount (1050, 2 → "10.50"). */
export function minorToDecimalString(minor: number, decimals: number): string {
  const negative = minor < 0;
  const digits = String(Math.abs(minor)).padStart(decimals + 1, '0');
  const text = decimals === 0 ? digits : `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
  return negative ? `-${text}` : text;
}

/**
 * `numerator / denominator` rounded half-up (away from zero at .5), in exact integer arithmetic.
 * Every rounding of money goes through here.
 */
function divRoundHalfUp(numerator: bigint, denominator: bigint): bigint {
  if (denominator <= 0n) throw new RangeError('denominator must be positive');
  const negative = numerator < 0n;
  const n = negative ? -numerator : numerator;
  const q = (n * 2n + denominator) / (denominator * 2n);
  return negative ? -q : q;
}

const moneyFormats = new Map<string, Intl.NumberFormat>();

/** One formatter per (locale, currency): building an Intl.NumberFormat costs far more than using it. */
function moneyFormat(locale: string, currency: string): Intl.NumberFormat {
  const key = `${locale}|${currency}`;
  let f = moneyFormats.get(key);
  if (!f) {
    const decimals = currencyDecimals(currency);
    f = new Intl.NumberFormat(locale, { style: 'currency', currency, minimumFractionDigits: decimals, maximumFractionDigits: decimals });
    moneyFormats.set(key, f);
  }
  return f;
}

/** A human amount with its currency, e.g. `$1,234.50`, `¥1,235`, `1.234,50 €` (locale-aware). */
export function formatMoney(minor: number, currency: string, locale = 'en-US'): string {
  return moneyFormat(locale, currency).format(Number(minorToDecimalString(minor, currencyDecimals(currency))));
}

/** An exact decimal: `units / 10^scale` (1.25 → {units: 125n, scale: 2}). */
interface Decimal {
  units: bigint;
  scale: number;
}

/** The exact decimal a number was written as (its shortest round-trip text), never via float maths. */
export function decimalOf(value: number): Decimal {
  const { negative, int, frac } = decimalParts(value);
  const digits = frac.replace(/0+$/, '');
  const units = BigInt(int + digits);
  return { units: negative ? -units : units, scale: digits.length };
}

/** Canonical decimal text of a number (7.25 → "7.25", 19 → "19"), for storing percentages. */
export function decimalText(value: number): string {
  const { units, scale } = decimalOf(value);
  return scale === 0 ? units.toString() : minorToDecimalString(Number(units), scale);
}

/** Parses decimal text written by `decimalText` back into an exact decimal. */
function parseDecimalText(text: string): Decimal {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) throw new AppError('unprocessable', 'validation_failed', `not a decimal: ${text}`);
  const frac = m[3] ?? '';
  const units = BigInt((m[2] ?? '0') + frac);
  return { units: m[1] ? -units : units, scale: frac.length };
}

const pow10 = (n: number): bigint => 10n ** BigInt(n);

/**
 * A value scaled to an integer number of `1/10^scale` units (hours → seconds is not this; quantity
 * 1.5 at scale 3 → 1500). Null when the value has more decimals than the scale allows.
 */
export function toScaledInteger(value: number, scale: number): number | null {
  const d = decimalOf(value);
  if (d.scale > scale) return null;
  const scaled = d.units * pow10(scale - d.scale);
  return scaled > BigInt(Number.MAX_SAFE_INTEGER) || scaled < -BigInt(Number.MAX_SAFE_INTEGER) ? null : Number(scaled);
}

/** Decimal hours as whole seconds, rounded half-up (1.5 → 5400, 0.3333 → 1200). */
export function hoursToSeconds(hours: number): number {
  const d = decimalOf(hours);
  return Number(divRoundHalfUp(d.units * 3600n, pow10(d.scale)));
}

/** Amount of a time line billed at the entry's duration: seconds × hourly rate / 3600, rounded half-up once. */
export function timeAmountMinor(seconds: number, hourlyRateMinor: number): number {
  // Exact in doubles while 2 × seconds × rate + 3600 stays a safe integer (every realistic line);
  // BigInt otherwise. Invoices price thousands of lines through here.
  const twice = 2 * seconds * hourlyRateMinor;
  if (twice >= 0 && twice + 3600 <= Number.MAX_SAFE_INTEGER && Number.isInteger(seconds) && Number.isInteger(hourlyRateMinor)) {
    const n = twice + 3600;
    return (n - (n % 7200)) / 7200; // an exact multiple divides exactly
  }
  return Number(divRoundHalfUp(BigInt(seconds) * BigInt(hourlyRateMinor), 3600n));
}

/**
 * Amount of a time line that states its own hours: the exact decimal hours × hourly rate, rounded
 * half-up once (0.1234 h × 150.00 = 18.51, never first rounded to whole seconds).
 */
export function hoursAmountMinor(hours: Decimal, hourlyRateMinor: number): number {
  return Number(divRoundHalfUp(hours.units * BigInt(hourlyRateMinor), pow10(hours.scale)));
}

/** Amount of a service line: quantity (in thousandths) × unit amount, rounded half-up once. */
export function quantityAmountMinor(quantityMilli: number, unitAmountMinor: number): number {
  return Number(divRoundHalfUp(BigInt(quantityMilli) * BigInt(unitAmountMinor), 1000n));
}

/** `percentage` % of an amount (percentage as exact decimal text, e.g. "7.25"), rounded half-up. */
export function percentOfMinor(amountMinor: number, percentage: string): number {
  const p = parseDecimalText(percentage);
  return Number(divRoundHalfUp(BigInt(amountMinor) * p.units, 100n * pow10(p.scale)));
}

/**
 * Whether a stated amount (a JSON number, any decimals) is within `tolerance` of an exact minor
 * amount, compared in exact decimal arithmetic: 10.005 vs 10.00 USD with 0.01 → true.
 */
export function withinTolerance(stated: number, minor: number, currency: string, tolerance = 0.01): boolean {
  const s = decimalOf(stated);
  const t = decimalOf(tolerance);
  const decimals = currencyDecimals(currency);
  const scale = Math.max(s.scale, t.scale, decimals);
  const statedScaled = s.units * pow10(scale - s.scale);
  const minorScaled = BigInt(minor) * pow10(scale - decimals);
  const diff = statedScaled - minorScaled;
  return (diff < 0n ? -diff : diff) <= t.units * pow10(scale - t.scale);
}
