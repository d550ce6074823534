import { and, eq, gt, min, sql } from 'drizzle-orm';
import type { Database, Db } from '../db/index.ts';
import { idempotencyKeys } from '../db/schema/index.ts';

/** How long a first answer is replayed. */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;

/** An answer as a door sent it. */
export interface StoredAnswer {
  status: number;
  contentType: string | null;
  body: string;
}

export type IdempotencyRow = typeof idempotencyKeys.$inferSelect;

/** The live (not expired) row of a key, if any. */
export function findLive(db: Db, principal: string, key: string, now: Date): IdempotencyRow | undefined {
  return db
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.principal, principal), eq(idempotencyKeys.key, key), gt(idempotencyKeys.expiresAt, now.toISOString())))
    .get();
}

/** Writes (or, over an expired row of the same key, rewrites) a key's answer. */
export function saveAnswer(db: Db, row: IdempotencyRow): void {
  const { principal: _p, key: _k, ...rest } = row;
  db.insert(idempotencyKeys)
    .values(row)
    .onConflictDoUpdate({ target: [idempotencyKeys.principal, idempotencyKeys.key], set: rest })
    .run();
}

/**
 * Deletes up to `limit` expired keys; returns how many went. Bounded, so one pass over a busy
 * workspace never holds the write lock for long.
 */
export function purgeExpired(db: Database, now: Date, limit: number): number {
  return db.run(sql`DELETE FROM ${idempotencyKeys} WHERE rowid IN (
    SELECT rowid FROM ${idempotencyKeys} WHERE ${idempotencyKeys.expiresAt} <= ${now.toISOString()} LIMIT ${limit})`).changes;
}

/** When the next key of this workspace expires (ms), Infinity when there is none. */
export function nextExpiry(db: Database): number {
  const row = db.select({ at: min(idempotencyKeys.expiresAt) }).from(idempotencyKeys).get();
  return row?.at ? Date.parse(row.at) : Number.POSITIVE_INFINITY;
}
