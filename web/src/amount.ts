/**
 * Numbers as a person types them, read in the workspace's locale: the one parser behind every
 * amount field of the app (payments, prices, rates) and its decimal fields (quantities, percents).
 *
 * `1,234.50` (en), `1.234,50` (de), `1 234,50` (fr, any space) are the same amount; grouping must
 * sit where the locale puts it, a currency's symbol or code may stand before or after. Money comes
 * out exactly in the currency's minor units through digit strings, never through float arithmetic.
 * Ambiguous or malformed text is refused with a message for beside the field. Pure (no DOM): the
 * caller passes the locale (format.ts does, with the workspace's).
 */

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

interface Separators {
  group: string;
  decimal: string;
  /** The decimal mark also taken when the locale's is `,` or `.` and the other is no group mark here (fr: `12.5`). */
  altDecimal: string | null;
  /** Digits per group after the first (3; 2 for Indian grouping: 12,34,567). */
  innerGroup: number;
}

const SPACES = /[\s\u00a0\u202f\u2009]/g;
const APOSTROPHES = /['\u2019]/g;
const separatorCache = new Map<string, Separators>();

function separatorsOf(locale: string): Separators {
  let s = separatorCache.get(locale);
  if (!s) {
    const parts = new Intl.NumberFormat(locale, { useGrouping: true }).formatToParts(12345678.5);
    const decimal = parts.find((p) => p.type === 'decimal')?.value ?? '.';
    // Spaces of any width are one separator to a person; so are both apostrophes (de-CH).
    const group = (parts.find((p) => p.type === 'group')?.value ?? ',').replace(SPACES, ' ').replace(APOSTROPHES, "'");
    const ints = parts.filter((p) => p.type === 'integer');
    const other = decimal === ',' ? '.' : decimal === '.' ? ',' : null;
    s = { group, decimal, altDecimal: other !== null && other !== group ? other : null, innerGroup: ints.length > 2 ? ints[1]!.value.length : 3 };
    separatorCache.set(locale, s);
  }
  return s;
}

/** How many decimals a currency has (EUR 2, JPY 0, BHD 3), from ICU's data as the server reads it. */
export function currencyDecimals(currency: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

/** Exact decimal text of a minor amount (123450, 2 → "1234.50"). */
export function minorToDecimal(minor: number, decimals: number): string {
  const digits = String(Math.abs(minor)).padStart(decimals + 1, '0');
  const text = decimals === 0 ? digits : `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
  return minor < 0 ? `-${text}` : text;
}

/** A minor amount as the number the API takes (123450 EUR → 1234.5): parsed from its exact text. */
export const minorToNumber = (minor: number, currency: string) => Number(minorToDecimal(minor, currencyDecimals(currency)));

/** How an amount is written here, as a hint in messages (en, EUR: "1,234.50"; de, JPY: "1.234"). */
function example(locale: string, decimals: number): string {
  const value = decimals ? `1234.${'5'.padEnd(decimals, '0')}` : '1234';
  return new Intl.NumberFormat(locale, { minimumFractionDigits: decimals, maximumFractionDigits: decimals }).format(value as `${number}`);
}

/** An amount the API gave (a JSON number with at most the currency's decimals) in minor units, from its exact text. */
export function toMinorUnits(amount: number, currency: string): number {
  const decimals = currencyDecimals(currency);
  const [int = '0', frac = ''] = String(Math.abs(amount)).split('.');
  const value = Number(int + frac.padEnd(decimals, '0').slice(0, decimals));
  return amount < 0 ? -value : value;
}

/** A minor amount as an amount field shows it (123450 EUR, de → "1.234,50"). */
export function amountText(minor: number, currency: string, locale: string): string {
  const decimals = currencyDecimals(currency);
  return new Intl.NumberFormat(locale, { minimumFractionDigits: decimals, maximumFractionDigits: decimals }).format(minorToDecimal(minor, decimals) as `${number}`);
}

interface Digits {
  negative: boolean;
  int: string;
  frac: string;
}

/** Whether the integer part's groups sit where the locale puts them: 1–3 digits, then groups of 3 (or 2, then 3). */
function groupsFit(groups: string[], inner: number): boolean {
  const [first, ...rest] = groups;
  if (!first || first.length > (rest.length > 1 ? inner : 3)) return false;
  return rest.every((g, i) => g.length === (i === rest.length - 1 ? 3 : inner));
}

/** Text → sign, integer digits and fraction digits, or why not (`decimals`: what this field allows, for the ambiguity check). */
function digitsOf(raw: string, locale: string, decimals: number): Parsed<Digits> {
  const sep = separatorsOf(locale);
  const malformed: Parsed<Digits> = { ok: false, message: `Not a number: write it as ${example(locale, decimals)}` };
  let text = raw.trim().replace(SPACES, ' ').replace(APOSTROPHES, "'");
  const negative = /^[-\u2212]/.test(text);
  if (negative) text = text.slice(1).trim();
  // The locale's decimal mark, or the alternative when the locale's is absent (fr: "12.5").
  const decimal = text.includes(sep.decimal) || sep.altDecimal === null || !text.includes(sep.altDecimal) ? sep.decimal : sep.altDecimal;
  const groupMarks = new Set([sep.group, ' ']);
  if (text === '' || [...text].some((c) => !/\d/.test(c) && c !== decimal && !groupMarks.has(c))) return malformed;
  const pieces = text.split(decimal);
  if (pieces.length > 2) return malformed;
  const [intText = '', frac = ''] = pieces;
  if (pieces.length === 2 && !/^\d+$/.test(frac)) return malformed;
  const groups = [...groupMarks].reduce((parts, mark) => parts.flatMap((p) => p.split(mark)), [intText]);
  if (groups.length > 1 && (!groups.every((g) => /^\d+$/.test(g)) || !groupsFit(groups, sep.innerGroup))) return malformed;
  if (intText === '' && frac === '') return malformed;
  // "1,234" where a 3-decimal field could read the mark either way (the other convention's decimal): ask.
  if (pieces.length === 1 && groups.length === 2 && decimals >= 3 && intText.includes(sep.group) && sep.group !== ' ') {
    const int = groups.join('');
    return { ok: false, message: `Ambiguous: write ${int} or ${groups[0]}${sep.decimal}${groups[1]}` };
  }
  return { ok: true, value: { negative, int: groups.join('') || '0', frac } };
}

interface ReadOptions {
  /** Refuse a minus sign (payments, rates). */
  positive?: boolean;
}

/** The currency's symbols (narrow and usual) and its code, which a person may type with the amount. */
function currencyMarks(currency: string, locale: string): string[] {
  const symbol = (display: 'symbol' | 'narrowSymbol') =>
    new Intl.NumberFormat(locale, { style: 'currency', currency, currencyDisplay: display }).formatToParts(1).find((p) => p.type === 'currency')?.value ?? currency;
  return [...new Set([currency, symbol('symbol'), symbol('narrowSymbol')])].sort((a, b) => b.length - a.length);
}

/**
 * An amount of `currency` typed in `locale`, exactly in minor units (EUR "1.234,50" in de → 123450).
 * More decimals than the currency has, grouping out of place, two decimal marks, letters: refused.
 */
export function parseAmount(text: string, currency: string, locale: string, opts: ReadOptions = {}): Parsed<number> {
  let t = text.trim();
  if (t === '') return { ok: false, message: 'Enter an amount' };
  const upper = t.toUpperCase();
  for (const mark of currencyMarks(currency, locale)) {
    const m = mark.toUpperCase();
    if (upper.startsWith(m)) t = t.slice(mark.length);
    else if (upper.endsWith(m)) t = t.slice(0, -mark.length);
    else continue;
    break;
  }
  const decimals = currencyDecimals(currency);
  const parsed = digitsOf(t, locale, decimals);
  if (!parsed.ok) return { ok: false, message: parsed.message.replace('Not a number', 'Not an amount') };
  const { negative, int, frac } = parsed.value;
  if (frac.length > decimals) return { ok: false, message: decimals === 0 ? `${currency} amounts have no decimals` : `${currency} amounts have at most ${decimals} decimals` };
  if (negative && opts.positive) return { ok: false, message: 'Enter the amount without a minus sign' };
  const minor = BigInt(int + frac.padEnd(decimals, '0'));
  if (minor > BigInt(Number.MAX_SAFE_INTEGER)) return { ok: false, message: 'This amount is too large' };
  return { ok: true, value: negative && minor !== 0n ? -Number(minor) : Number(minor) };
}

/**
 * A decimal number (a quantity, a percentage) typed in `locale`, with at most `maxDecimals`
 * decimals, as the number the API takes: built from its exact decimal text.
 */
export function parseDecimal(text: string, locale: string, maxDecimals: number, opts: ReadOptions = {}): Parsed<number> {
  if (text.trim() === '') return { ok: false, message: 'Enter a number' };
  const parsed = digitsOf(text, locale, maxDecimals);
  if (!parsed.ok) return parsed;
  const { negative, int, frac } = parsed.value;
  const digits = frac.replace(/0+$/, '');
  if (digits.length > maxDecimals) return { ok: false, message: maxDecimals === 0 ? 'Enter a whole number' : `At most ${maxDecimals} decimals` };
  if (negative && opts.positive) return { ok: false, message: 'Enter the number without a minus sign' };
  const value = Number(`${negative ? '-' : ''}${int}${digits ? `.${digits}` : ''}`);
  return Number.isFinite(value) && Math.abs(value) <= Number.MAX_SAFE_INTEGER ? { ok: true, value } : { ok: false, message: 'This number is too large' };
}
