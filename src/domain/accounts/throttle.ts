import { asc, and, eq, gt, lt } from 'drizzle-orm';
import ipaddr from 'ipaddr.js';
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

/** Bits of an IPv6 address that name one client: a /64 is the smallest prefix a network hands out. */
const IPV6_CLIENT_PREFIX = 64;

/**
 * The client an address stands for, as the per-address limit counts it: an IPv4 address as it is
 * (also when written IPv4-mapped, `::ffff:192.0.2.1`), an IPv6 address as its /64, since one client
 * holds a whole /64 and could otherwise take a fresh address for every 30 guesses.
 */
export function addressBucket(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const prefix = ipaddr.IPv6.networkAddressFromCIDR(`${parsed.toString()}/${IPV6_CLIENT_PREFIX}`);
  return `${prefix.toString()}/${IPV6_CLIENT_PREFIX}`;
}

const windowStart = (now: Date) => new Date(now.getTime() - THROTTLE_WINDOW_MS).toISOString();

/**
 * Attempts whose password is being checked right now, per workspace and e-mail or address. A
 * failure is recorded only after scrypt (asynchronous), so without these a burst of parallel
 * guesses (or a tRPC batch of them) would all pass the check before the first failure was written.
 * Each attempt takes its slot in the same synchronous step as the check, so at most the limit's
 * number of guesses is ever being checked or counted. In memory: an attempt lives one request.
 */
const inFlight = new Map<string, number>();

const emailKey = (scope: Pick<Scope, 'workspace'>, email: string) => `${scope.workspace.id}\u0000email\u0000${email.toLowerCase()}`;
const addressKey = (scope: Pick<Scope, 'workspace'>, address: string) => `${scope.workspace.id}\u0000address\u0000${address}`;

function adjustInFlight(key: string, by: 1 | -1): void {
  const count = (inFlight.get(key) ?? 0) + by;
  if (count > 0) inFlight.set(key, count);
  else inFlight.delete(key);
}

/**
 * Seconds until the count in the window drops below `limit`, or 0 when it already is below. An
 * attempt in flight counts as a failure at `now`: that is when it would be recorded if it fails.
 */
function waitSeconds(
  db: Db,
  column: typeof signInFailures.email | typeof signInFailures.address,
  value: string,
  pending: number,
  limit: number,
  now: Date,
): number {
  const recorded = db
    .select({ at: signInFailures.at })
    .from(signInFailures)
    .where(and(eq(column, value), gt(signInFailures.at, windowStart(now))))
    .orderBy(asc(signInFailures.at))
    .all()
    .map((row) => Date.parse(row.at));
  const times = [...recorded, ...Array<number>(pending).fill(now.getTime())];
  const pivot = times[times.length - limit];
  if (pivot === undefined) return 0;
  return Math.max(1, Math.ceil((pivot + THROTTLE_WINDOW_MS - now.getTime()) / 1000));
}

/** 429 `sign_in_throttled` with `Retry-After` when this e-mail or this address failed too often lately. */
function assertSignInAllowed(scope: Pick<Scope, 'db' | 'now' | 'workspace'>, email: string, address: string): void {
  const wait = Math.max(
    waitSeconds(scope.db, signInFailures.email, email.toLowerCase(), inFlight.get(emailKey(scope, email)) ?? 0, MAX_FAILURES_PER_ACCOUNT, scope.now),
    waitSeconds(scope.db, signInFailures.address, address, inFlight.get(addressKey(scope, address)) ?? 0, MAX_FAILURES_PER_ADDRESS, scope.now),
  );
  if (wait > 0) {
    throw new AppError('rate_limited', 'sign_in_throttled', `Too many failed sign-ins; try again in ${Math.ceil(wait / 60)} minute(s)`, {
      extra: { retry_after: wait },
    });
  }
}

/** A password check holding its slot in the throttle; `release` it once its failure is recorded, or it succeeded. */
export interface SignInAttempt {
  release(): void;
}

/**
 * Checks the throttle and takes a slot for this e-mail and address, with no `await` in between so
 * no other attempt can slip through the same gap. Release it in a `finally`, after the failure is
 * written (or the success cleared the count): released earlier, the slot would be free for another
 * guess while this one is neither in flight nor counted.
 */
export function beginSignInAttempt(scope: Pick<Scope, 'db' | 'now' | 'workspace'>, email: string, address: string): SignInAttempt {
  const bucket = addressBucket(address);
  assertSignInAllowed(scope, email, bucket);
  const keys = [emailKey(scope, email), addressKey(scope, bucket)];
  for (const key of keys) adjustInFlight(key, 1);
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      for (const key of keys) adjustInFlight(key, -1);
    },
  };
}

/** Counts a failure, and forgets failures older than the window. */
export function recordSignInFailure(scope: Pick<Scope, 'now'>, tx: Db, email: string, address: string): void {
  tx.delete(signInFailures).where(lt(signInFailures.at, windowStart(scope.now))).run();
  tx.insert(signInFailures).values({ email: email.toLowerCase(), address: addressBucket(address), at: scope.now.toISOString() }).run();
}

/** A successful sign-in clears its account's count (the address keeps its own). */
export function clearSignInFailures(tx: Db, email: string): void {
  tx.delete(signInFailures).where(eq(signInFailures.email, email.toLowerCase())).run();
}
