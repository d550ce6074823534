/**
 * Money is kept in integer minor units of its currency (cents for USD, yen for JPY). Conversion
 * from the API's decimal numbers goes through their decimal text, never through float arithmetic.
 */

const decimalsCache = new Map<string, number>();

/** How many decimals a currency has (USD 2, JPY 0, BHD 3), from ICU's currency data. */
export function currencyDecimals(currency: string): number {
  let d = decimalsCache.get(currency);
  if (d === undefined) {
    d = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    decimalsCache.set(currency, d);
  }
  return d;
}

/** Splits a finite number's shortest decimal text into sign, integer digits and fraction digits. */
function decimalParts(value: number): { negative: boolean; int: string; frac: string } {
  if (!Number.isFinite(value)) throw new RangeError('not a finite number');
  // toString may give exponent form (1e21, 1e-7); toFixed(20) is exact enough for those extremes.
  const text = /e/i.test(String(value)) ? value.toFixed(20).replace(/0+$/, '') : String(value);
  const negative = text.startsWith('-');
  const [int = '0', frac = ''] = (negative ? text.slice(1) : text).split('.');
  return { negative, int, frac };
}

/** Digits after the decimal point of a number as written (1.5 → 1, 2 → 0). */
export function decimalPlaces(value: number): number {
  return decimalParts(value).frac.replace(/0+$/, '').length;
}

/**
 * An amount in the currency's minor units. Returns null when the value has more decimals than the
 * currency allows (12.345 USD) or is too large to be exact; callers turn that into a 422.
 */
export function toMinor(value: number, currency: string): number | null {
  const decimals = currencyDecimals(currency);
  const { negative, int, frac } = decimalParts(value);
  if (frac.replace(/0+$/, '').length > decimals) return null;
  const minor = Number(int + frac.padEnd(decimals, '0').slice(0, decimals));
  if (!Number.isSafeInteger(minor)) return null;
  return negative ? -minor : minor;
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
export function divRoundHalfUp(numerator: bigint, denominator: bigint): bigint {
  if (denominator <= 0n) throw new RangeError('denominator must be positive');
  const negative = numerator < 0n;
  const n = negative ? -numerator : numerator;
  const q = (n * 2n + denominator) / (denominator * 2n);
  return negative ? -q : q;
}

/** A human amount with its currency, e.g. `$1,234.50`, `¥1,235`, `1.234,50 €` (locale-aware). */
export function formatMoney(minor: number, currency: string, locale = 'en-US'): string {
  const decimals = currencyDecimals(currency);
  return new Intl.NumberFormat(locale, { style: 'currency', currency, minimumFractionDigits: decimals, maximumFractionDigits: decimals }).format(
    Number(minorToDecimalString(minor, decimals)),
  );
}
