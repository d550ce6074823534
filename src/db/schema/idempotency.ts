import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * The first answer to each `Idempotency-Key`, replayed to a repeat of the same request for 24 hours
 * (docs/idempotency.md). A success is written in the same transaction as the change it answers, so
 * a crash between commit and answer still finds it.
 */
export const idempotencyKeys = sqliteTable(
  'idempotency_keys',
  {
    /** Whose key it is: `api_key:<key id>` (keys of different callers never meet). */
    principal: text('principal').notNull(),
    key: text('key').notNull(),
    /** SHA-256 of the request's method, path and canonical JSON body: a repeat must match it. */
    requestHash: text('request_hash').notNull(),
    method: text('method').notNull(),
    path: text('path').notNull(),
    status: integer('status').notNull(),
    contentType: text('content_type'),
    /** The answer's body exactly as it was sent ("" for a 204). */
    body: text('body').notNull(),
    createdAt: text('created_at').notNull(),
    expiresAt: text('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.principal, t.key] }), index('idempotency_keys_expires_idx').on(t.expiresAt)],
);
