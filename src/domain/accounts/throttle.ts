import { asc, and, eq, gt, lt } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { signInFailures } from '../../db/schema/index.ts';
import { AppError } from '../../errors.ts';
import type { Scope } from '../scope.ts';

/**
 * Failed sign-ins are counted in a sliding window, per e-mail (typed, whether or not it names
 * anyone, so the answer says nothing about which addresses exist) and per client address. The
 * counts live in the workspace's file, so a restart does not reset them.
 */
export const THROTTLE_WINDOW_MS = 15 * 60_000;
export const MAX_FAILURES_PER_ACCOUNT = 5;
export const MAX_FAILURES_PER_ADDRESS = 30;

const windowStart = (now: Date) => new Date(now.getTime() - THROTTLE_WINDOW_MS).toISOString();

/** Seconds until the count in the window drops below `limit`, or 0 when it already is below. */
function waitSeconds(db: Db, column: typeof signInFailures.email | typeof signInFailures.address, value: string, limit: number, now: Date): number {
  const times = db
    .select({ at: signInFailures.at })
    .from(signInFailures)
    .where(and(eq(column, value), gt(signInFailures.at, windowStart(now))))
    .orderBy(asc(signInFailures.at))
    .all();
  const pivot = times[times.length - limit];
  if (!pivot) return 0;
  return Math.max(1, Math.ceil((Date.parse(pivot.at) + THROTTLE_WINDOW_MS - now.getTime()) / 1000));
}

/** 429 `sign_in_throttled` with `Retry-After` when this e-mail or this address failed too often lately. */
export function assertSignInAllowed(scope: Pick<Scope, 'db' | 'now'>, email: string, address: string): void {
  const wait = Math.max(
    waitSeconds(scope.db, signInFailures.email, email.toLowerCase(), MAX_FAILURES_PER_ACCOUNT, scope.now),
    waitSeconds(scope.db, signInFailures.address, address, MAX_FAILURES_PER_ADDRESS, scope.now),
  );
  if (wait > 0) {
    throw new AppError('rate_limited', 'sign_in_throttled', `Too many failed sign-ins; try again in ${Math.ceil(wait / 60)} minute(s)`, {
      extra: { retry_after: wait },
    });
  }
}

/** Counts a failure, and forgets failures older than the window. */
export function recordSignInFailure(scope: Pick<Scope, 'now'>, tx: Db, email: string, address: string): void {
  tx.delete(signInFailures).where(lt(signInFailures.at, windowStart(scope.now))).run();
  tx.insert(signInFailures).values({ email: email.toLowerCase(), address, at: scope.now.toISOString() }).run();
}

/** A successful sign-in clears its account's count (the address keeps its own). */
export function clearSignInFailures(tx: Db, email: string): void {
  tx.delete(signInFailures).where(eq(signInFailures.email, email.toLowerCase())).run();
}
