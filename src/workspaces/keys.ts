import { hash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { Database, Db } from '../db/index.ts';
import { apiKeys } from '../db/schema/index.ts';

const KEY_PREFIX = 'hb_';
/** last_used_at is written at most this often per key, so reads stay reads. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** One-shot hashing: no Hash object per call (the key is checked on every request). */
const sha256 = (value: string) => hash('sha256', value, 'buffer');

export interface CreatedKey {
  id: string;
  apiKey: string;
  label: string;
  expiresAt: string | null;
  memberId: string | null;
}

/** Creates a key; the plain key is returned once and only its SHA-256 is stored. */
/** With `memberId` it is a personal key: calls made with it act as that member (docs/auth.md). */
export function createApiKey(db: Db, opts: { label?: string; expiresAt?: string | null; memberId?: string | null; now: Date }): CreatedKey {
  const apiKey = KEY_PREFIX + randomBytes(32).toString('base64url');
  const row = {
    id: randomUUID(),
    label: opts.label ?? 'default',
    keyHash: sha256(apiKey).toString('hex'),
    prefix: apiKey.slice(0, 10),
    expiresAt: opts.expiresAt ?? null,
    createdAt: opts.now.toISOString(),
    memberId: opts.memberId ?? null,
  };
  db.insert(apiKeys).values(row).run();
  return { id: row.id, apiKey, label: row.label, expiresAt: row.expiresAt, memberId: row.memberId };
}

/** Revokes a key by id; false when there is no such live key. */
export function revokeApiKey(db: Db, keyId: string, now: Date): boolean {
  const result = db
    .update(apiKeys)
    .set({ revokedAt: now.toISOString() })
    .where(and(eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)))
    .run();
  return result.changes > 0;
}

/** Revokes every live personal key of a member (their account was recovered or signed out everywhere); returns how many. */
export function revokeMemberKeys(db: Db, memberId: string, now: Date): number {
  return db
    .update(apiKeys)
    .set({ revokedAt: now.toISOString() })
    .where(and(eq(apiKeys.memberId, memberId), isNull(apiKeys.revokedAt)))
    .run().changes;
}

export interface KeySummary {
  id: string;
  label: string;
  /** The first 10 characters of the key (`hb_` and 7 more): enough to tell keys apart, never the key. */
  prefix: string;
  status: 'active' | 'expired' | 'revoked';
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
}

/** Every key of the workspace, oldest first, as `key list` shows them: never the key or its hash. */
export function listApiKeys(db: Db, now: Date): KeySummary[] {
  return db
    .select()
    .from(apiKeys)
    .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id))
    .all()
    .map((k) => ({
      id: k.id,
      label: k.label,
      prefix: k.prefix,
      status: k.revokedAt ? 'revoked' : k.expiresAt && Date.parse(k.expiresAt) <= now.getTime() ? 'expired' : 'active',
      created_at: k.createdAt,
      last_used_at: k.lastUsedAt,
      expires_at: k.expiresAt,
      revoked_at: k.revokedAt,
    }));
}

const statements = (db: Database) => ({
  byHash: db
    .select()
    .from(apiKeys)
    .where(eq(apiKeys.keyHash, sql.placeholder('hash')))
    .prepare(),
  touch: db
    .update(apiKeys)
    .set({ lastUsedAt: sql`${sql.placeholder('now')}` })
    .where(eq(apiKeys.id, sql.placeholder('id')))
    .prepare(),
});

/**
 * Checks a presented key against this workspace's own key table. The lookup is by hash (an index
 * seek that reveals nothing about the key) and the final comparison is constant-time.
 */
export function verifyApiKey(
  db: Database,
  memo: <T>(build: (db: Database) => T) => T,
  presented: string | undefined,
  now: Date,
): { id: string; memberId: string | null } | null {
  if (!presented || presented.length > 200) return null;
  const digest = sha256(presented);
  const st = memo(statements);
  const row = st.byHash.get({ hash: digest.toString('hex') });
  if (!row) return null;
  if (!timingSafeEqual(Buffer.from(row.keyHash, 'hex'), digest)) return null;
  if (row.revokedAt) return null;
  if (row.expiresAt && Date.parse(row.expiresAt) <= now.getTime()) return null;
  if (!row.lastUsedAt || now.getTime() - Date.parse(row.lastUsedAt) >= LAST_USED_RESOLUTION_MS) {
    st.touch.run({ id: row.id, now: now.toISOString() });
  }
  return { id: row.id, memberId: row.memberId };
}
