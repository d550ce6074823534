import { randomUUID } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { accountTokens, type accountTokenPurposes } from '../../db/schema/index.ts';
import { AppError } from '../../errors.ts';
import type { Scope } from '../scope.ts';
import { newSecret, plausibleSecret, secretHash } from './secrets.ts';

export type TokenPurpose = (typeof accountTokenPurposes)[number];

const HOUR_MS = 3_600_000;
/** How long each kind of link works: invites a week (people are away), resets an hour. */
export const TOKEN_LIFETIME_MS: Record<TokenPurpose, number> = {
  set_password: 7 * 24 * HOUR_MS,
  invite: 7 * 24 * HOUR_MS,
  reset: HOUR_MS,
};

export interface IssuedToken {
  token: string;
  expiresAt: string;
}

/**
 * A new one-time link token for a member, inside the caller's transaction. Earlier unused links of
 * the member are withdrawn, so only the newest link works.
 */
export function issueToken(scope: Pick<Scope, 'now'>, tx: Db, memberId: string, purpose: TokenPurpose): IssuedToken {
  const at = scope.now.toISOString();
  withdrawTokens(scope, tx, memberId);
  const token = newSecret();
  const expiresAt = new Date(scope.now.getTime() + TOKEN_LIFETIME_MS[purpose]).toISOString();
  tx.insert(accountTokens).values({ id: randomUUID(), tokenHash: secretHash(token), memberId, purpose, expiresAt, usedAt: null, createdAt: at }).run();
  return { token, expiresAt };
}

export type TokenRow = typeof accountTokens.$inferSelect;

/** The same answer for an unknown, used or expired link: the holder can only ask for a new one. */
export const linkInvalid = () =>
  new AppError('unprocessable', 'link_invalid', 'This link has expired or was already used; ask for a new one', {
    details: [{ path: 'token', message: 'has expired or was already used' }],
  });

/** The live token row for a link, or 422 link_invalid. */
export function liveToken(scope: Pick<Scope, 'now'>, db: Db, token: string): TokenRow {
  if (!plausibleSecret(token)) throw linkInvalid();
  const row = db.select().from(accountTokens).where(eq(accountTokens.tokenHash, secretHash(token))).get();
  if (!row || row.usedAt !== null || row.expiresAt <= scope.now.toISOString()) throw linkInvalid();
  return row;
}

/** Marks every unused link of a member used (after a password was set, or the member left). */
export function withdrawTokens(scope: Pick<Scope, 'now'>, tx: Db, memberId: string): void {
  tx.update(accountTokens)
    .set({ usedAt: scope.now.toISOString() })
    .where(and(eq(accountTokens.memberId, memberId), isNull(accountTokens.usedAt)))
    .run();
}
