import { AppError, type ErrorDetail } from '../../errors.ts';
import { minorAmountProblem, toMinor } from '../money.ts';

/**
 * Collects every rule a request breaks, so one 422 names them all (each with its body path)
 * instead of making the caller fix them one round trip at a time.
 */
export class Problems {
  private readonly details: ErrorDetail[] = [];

  add(path: string, message: string): void {
    this.details.push({ path, message });
  }

  /** Throws 422 `validation_failed` when anything was added. */
  throwIfAny(): void {
    const first = this.details[0];
    if (first) {
      throw new AppError('unprocessable', 'validation_failed', `Invalid request: ${first.path}: ${first.message}`, { details: this.details });
    }
  }

  /** An amount in the currency's minor units, or null (and a problem) when it has too many decimals or is too large. */
  minor(path: string, value: number, currency: string): number | null {
    const minor = toMinor(value, currency);
    if (minor === null) this.add(path, minorAmountProblem(value, currency));
    return minor;
  }
}
