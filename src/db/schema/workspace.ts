import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex, type AnySQLiteColumn } from 'drizzle-orm/sqlite-core';
import { id, timestamps } from './columns.ts';

/** The single row describing this workspace file (the spec's "organization"). */
export const workspace = sqliteTable('workspace', {
  id: id(),
  subdomain: text('subdomain').notNull(),
  name: text('name').notNull(),
  timeZone: text('time_zone').notNull(),
  ...timestamps,
});

export const apiKeys = sqliteTable(
  'api_keys',
  {
    id: id(),
    label: text('label').notNull(),
    /** SHA-256 of the key, hex. The key itself is shown once and never stored. */
    keyHash: text('key_hash').notNull(),
    /** The first characters of the key, so a person can tell keys apart in listings. */
    prefix: text('prefix').notNull(),
    expiresAt: text('expires_at'),
    lastUsedAt: text('last_used_at'),
    revokedAt: text('revoked_at'),
    createdAt: text('created_at').notNull(),
    /**
     * A personal key: calls made with it act as this team member and can name no one else. Null
     * for a workspace key, which speaks for the workspace (docs/auth.md).
     */
    memberId: text('member_id').references((): AnySQLiteColumn => teamMembers.id, { onDelete: 'cascade' }),
  },
  (t) => [uniqueIndex('api_keys_hash_idx').on(t.keyHash)],
);

/** Organization roles; names are case-sensitive. Owner, Admin and Member are always present. */
export const roles = sqliteTable('roles', {
  name: text('name').primaryKey(),
  createdAt: text('created_at').notNull(),
});

export const teamMembers = sqliteTable(
  'team_members',
  {
    id: id(),
    email: text('email').notNull(),
    firstName: text('first_name').notNull(),
    lastName: text('last_name').notNull(),
    timeZone: text('time_zone').notNull(),
    profileImageUrl: text('profile_image_url').notNull().default(''),
    active: integer('active', { mode: 'boolean' }).notNull().default(true),
    organizationRole: text('organization_role')
      .notNull()
      .references(() => roles.name, { onUpdate: 'cascade' }),
    ...timestamps,
  },
  (t) => [
    // E-mail addresses identify acting users; compare them without regard to case.
    uniqueIndex('team_members_email_idx').on(sql`${t.email} COLLATE NOCASE`),
    index('team_members_created_idx').on(t.createdAt, t.id),
    index('team_members_updated_idx').on(t.updatedAt),
  ],
);
