import { desc, eq } from 'drizzle-orm';
import * as z from 'zod';
import { apiKeys, teamMembers } from '../../db/schema/index.ts';
import { AppError, invalidField, notFound } from '../../errors.ts';
import { createApiKey, revokeApiKey } from '../../workspaces/keys.ts';
import { actsAsAdmin, requireAdmin } from '../access.ts';
import { dateTimeOut, emailOut, flexibleDate, idIn, idOut, nonEmptyText } from '../fields.ts';
import type { Scope } from '../scope.ts';
import { currentPassword } from './passwords.ts';

/**
 * The settings page's API keys. Workspace keys speak for the workspace (the REST contract's keys)
 * and are an Owner's or Admin's to manage. A personal key acts as the member who made it and can
 * name no one else, so any member may hold their own.
 */

export const apiKeyRecord = z.object({
  id: idOut,
  label: z.string(),
  /** The key's first characters, to tell keys apart; the key itself is shown once, at creation. */
  prefix: z.string(),
  created_at: dateTimeOut,
  last_used_at: dateTimeOut.nullable(),
  expires_at: dateTimeOut.nullable(),
  revoked_at: dateTimeOut.nullable(),
  /** The member a personal key acts as; null for a workspace key. */
  member: z.object({ id: idOut, email: emailOut }).nullable(),
});

export const listKeysOutput = z.object({ items: z.array(apiKeyRecord) });
export const createKeyInput = z.object({
  label: nonEmptyText(100),
  expires_on: flexibleDate.optional(),
  personal: z.boolean().default(false),
  current_password: currentPassword,
});
export const createKeyOutput = z.object({ notice_code: z.literal('api_key_created'), api_key: z.string(), key: apiKeyRecord });
export const revokeKeyInput = z.object({ key_id: idIn() });
export const revokeKeyOutput = z.object({ notice_code: z.literal('api_key_revoked'), key: apiKeyRecord });

const keyColumns = {
  id: apiKeys.id,
  label: apiKeys.label,
  prefix: apiKeys.prefix,
  createdAt: apiKeys.createdAt,
  lastUsedAt: apiKeys.lastUsedAt,
  expiresAt: apiKeys.expiresAt,
  revokedAt: apiKeys.revokedAt,
  memberId: apiKeys.memberId,
  memberEmail: teamMembers.email,
};

const keysQuery = (scope: Scope) => scope.db.select(keyColumns).from(apiKeys).leftJoin(teamMembers, eq(teamMembers.id, apiKeys.memberId));
type KeyRow = ReturnType<ReturnType<typeof keysQuery>['all']>[number];

const toRecord = (r: KeyRow): z.output<typeof apiKeyRecord> => ({
  id: r.id,
  label: r.label,
  prefix: r.prefix,
  created_at: r.createdAt,
  last_used_at: r.lastUsedAt,
  expires_at: r.expiresAt,
  revoked_at: r.revokedAt,
  member: r.memberId && r.memberEmail ? { id: r.memberId, email: r.memberEmail } : null,
});

/** `apiKeys.list`: every key for an Owner or Admin, newest first; a member sees their personal keys. */
export function listApiKeys(scope: Scope): z.output<typeof listKeysOutput> {
  const mine = actsAsAdmin(scope) ? undefined : eq(apiKeys.memberId, scope.actor?.id ?? '');
  return { items: keysQuery(scope).where(mine).orderBy(desc(apiKeys.createdAt)).all().map(toRecord) };
}

function keyRecord(scope: Scope, id: string) {
  const row = keysQuery(scope).where(eq(apiKeys.id, id)).get();
  if (!row) throw notFound('api_key', `No API key with id ${id}`);
  return toRecord(row);
}

/**
 * Whether the caller may make this key, and when it expires: a door that asks for more proof (the
 * password, from a session) asks only once this passed, so a refusal comes first.
 */
export function checkKeyRequest(scope: Scope, input: z.output<typeof createKeyInput>): string | null {
  if (input.personal && !scope.actor) throw new AppError('unprocessable', 'personal_key_needs_member', 'A personal key belongs to a signed-in member; this call names none');
  if (!input.personal) requireAdmin(scope, 'create workspace API keys');
  const expiresAt = input.expires_on ? `${input.expires_on}T00:00:00.000Z` : null;
  if (expiresAt && expiresAt <= scope.now.toISOString()) throw invalidField('expires_on', 'must be in the future');
  return expiresAt;
}

/** `apiKeys.create`: the key is in this answer once and never again (only its hash is stored). */
export function createKey(scope: Scope, input: z.output<typeof createKeyInput>): z.output<typeof createKeyOutput> {
  const expiresAt = checkKeyRequest(scope, input);
  return scope.write((tx) => {
    const created = createApiKey(tx, { label: input.label, expiresAt, memberId: input.personal ? scope.actor?.id : null, now: scope.now });
    return { notice_code: 'api_key_created', api_key: created.apiKey, key: keyRecord(scope, created.id) };
  });
}

/** `apiKeys.revoke`: an Owner or Admin revokes any key; a member their own personal keys. */
export function revokeKey(scope: Scope, input: z.output<typeof revokeKeyInput>): z.output<typeof revokeKeyOutput> {
  return scope.write((tx) => {
    const current = keyRecord(scope, input.key_id);
    if (!(actsAsAdmin(scope) || (current.member && current.member.id === scope.actor?.id))) {
      throw new AppError('forbidden', 'forbidden', 'Only an Owner or Admin may revoke this key');
    }
    if (!revokeApiKey(tx, current.id, scope.now)) throw new AppError('unprocessable', 'api_key_revoked', 'This key is already revoked');
    return { notice_code: 'api_key_revoked', key: keyRecord(scope, current.id) };
  });
}
