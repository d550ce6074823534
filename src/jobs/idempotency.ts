import { nextExpiry, purgeExpired } from '../idempotency/store.ts';
import type { Job } from './runner.ts';

/** Expired keys removed per statement, and statements per pass: bounded work, short write locks. */
const PER_STATEMENT = 500;
const STATEMENTS_PER_PASS = 10;

/**
 * Deletes idempotency keys whose 24 hours are over (an expired key is already ignored when a
 * request looks it up; this only reclaims the space). Each pass removes at most 5,000 keys per
 * workspace, in statements of 500; a workspace is next visited when its earliest key expires
 * (a key created meanwhile is found by the runner's periodic revisit).
 */
export const idempotencyKeysJob: Job = {
  name: 'idempotency-keys',
  run(handle, services) {
    for (let i = 0; i < STATEMENTS_PER_PASS; i++) {
      if (purgeExpired(handle.db, services.clock(), PER_STATEMENT) < PER_STATEMENT) return nextExpiry(handle.db);
    }
    // More remain: the next 5,000 a minute from now, so a backlog never holds the write lock for long.
    return services.clock().getTime() + 60_000;
  },
};
