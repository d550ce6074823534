import { AppError } from '../../errors.ts';
import { fromMinor, isExactMinor } from '../money.ts';

/**
 * Report sums are added as BigInt, so no total is ever rounded by floating point; one beyond
 * 2^53 minor units could not be answered exactly and is refused instead.
 */

const MAX_EXACT = BigInt(Number.MAX_SAFE_INTEGER);

export const tooLarge = () => new AppError('unprocessable', 'amount_too_large', 'The report amounts are too large to be represented exactly; narrow the report');

/** A BigInt sum as a number, exactly, or 422 `amount_too_large`. */
export function exactNumber(value: bigint): number {
  if (value > MAX_EXACT || value < -MAX_EXACT) throw tooLarge();
  return Number(value);
}

/** A minor-unit sum as the API's amount: a number with at most the currency's decimals, exactly. */
export function amountOf(minor: bigint, currency: string): number {
  const exact = exactNumber(minor);
  if (!isExactMinor(exact)) throw tooLarge();
  return fromMinor(exact, currency);
}

/** Running sums per currency, kept in currency order for output. */
export class PerCurrency<T> {
  private readonly sums = new Map<string, T>();

  constructor(private readonly empty: () => T) {}

  of(currency: string): T {
    let sum = this.sums.get(currency);
    if (!sum) {
      sum = this.empty();
      this.sums.set(currency, sum);
    }
    return sum;
  }

  /** Every currency's sums, sorted by currency code. */
  entries(): [string, T][] {
    return [...this.sums.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }
}
