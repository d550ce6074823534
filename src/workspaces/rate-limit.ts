import { AppError } from '../errors.ts';

/**
 * A token bucket per API key: `perMinute` requests a minute on average, bursts up to the same
 * number. In memory, so it resets with the process — it protects the machine from a runaway
 * integration, it is not a billing quota.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly perMs: number;

  constructor(private readonly perMinute: number) {
    this.perMs = perMinute / 60_000;
  }

  /** Takes one token for the key or throws 429 `rate_limited` with the seconds to wait. */
  take(key: string, nowMs: number): void {
    if (this.perMinute <= 0) return;
    let bucket = this.buckets.get(key);
    if (!bucket) {
      if (this.buckets.size >= 10_000) this.buckets.delete(this.buckets.keys().next().value as string);
      bucket = { tokens: this.perMinute, at: nowMs };
      this.buckets.set(key, bucket);
    }
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + Math.max(0, nowMs - bucket.at) * this.perMs);
    bucket.at = nowMs;
    if (bucket.tokens < 1) {
      const retryAfter = Math.max(1, Math.ceil((1 - bucket.tokens) / this.perMs / 1000));
      throw new AppError('rate_limited', 'rate_limited', `Too many requests for this API key; retry in ${retryAfter} s`, {
        extra: { retry_after: retryAfter },
      });
    }
    bucket.tokens -= 1;
  }
}
