import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { teamMembers } from './workspace.ts';

/**
 * Sign-in for team members (docs/auth.md). Everything lives in the workspace's own file, so a
 * session, a password or a link of one workspace means nothing to another.
 */

/** A member's password as a self-describing scrypt hash (`scrypt$N$r$p$salt$hash`); never the password. */
export const memberPasswords = sqliteTable('member_passwords', {
  memberId: text('member_id')
    .primaryKey()
    .references(() => teamMembers.id, { onDelete: 'cascade' }),
  passwordHash: text('password_hash').notNull(),
  updatedAt: text('updated_at').notNull(),
});

/**
 * A signed-in browser. The row's id is the SHA-256 of the cookie's value, so a copy of the file
 * holds nothing a browser could present.
 */
export const sessions = sqliteTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    memberId: text('member_id')
      .notNull()
      .references(() => teamMembers.id, { onDelete: 'cascade' }),
    createdAt: text('created_at').notNull(),
    /** Moved forward as the session is used (at most once a minute); idle expiry counts from it. */
    lastSeenAt: text('last_seen_at').notNull(),
    /** The absolute end, however active the session is. */
    expiresAt: text('expires_at').notNull(),
    userAgent: text('user_agent').notNull().default(''),
    address: text('address').notNull().default(''),
  },
  (t) => [index('sessions_member_idx').on(t.memberId)],
);

export const accountTokenPurposes = ['set_password', 'invite', 'reset'] as const;

/** One-time links (set a first password, accept an invite, reset a password); only hashes are kept. */
export const accountTokens = sqliteTable(
  'account_tokens',
  {
    id: text('id').primaryKey(),
    tokenHash: text('token_hash').notNull(),
    memberId: text('member_id')
      .notNull()
      .references(() => teamMembers.id, { onDelete: 'cascade' }),
    purpose: text('purpose', { enum: accountTokenPurposes }).notNull(),
    expiresAt: text('expires_at').notNull(),
    usedAt: text('used_at'),
    createdAt: text('created_at').notNull(),
  },
  (t) => [uniqueIndex('account_tokens_hash_idx').on(t.tokenHash), index('account_tokens_member_idx').on(t.memberId)],
);

/** Failed sign-ins, kept for the throttling window (per account and per client address). */
export const signInFailures = sqliteTable(
  'sign_in_failures',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    /** The e-mail as typed, lower-cased (it may name nobody). */
    email: text('email').notNull(),
    address: text('address').notNull(),
    at: text('at').notNull(),
  },
  (t) => [index('sign_in_failures_email_idx').on(t.email, t.at), index('sign_in_failures_address_idx').on(t.address, t.at)],
);
