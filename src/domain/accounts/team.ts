import { and, asc, gt, inArray, isNull, max } from 'drizzle-orm';
import * as z from 'zod';
import { accountTokens, memberPasswords, roles, sessions, teamMembers } from '../../db/schema/index.ts';
import { requireAdmin } from '../access.ts';
import { dateTimeOut } from '../fields.ts';
import type { Scope } from '../scope.ts';
import { keysetOrder } from '../pagination.ts';
import { BUILT_IN_ROLES } from '../roles.ts';
import { toTeamMemberRecord } from '../team-members/records.ts';
import { teamMemberRecord } from '../team-members/schemas.ts';

export const teamOutput = z.object({
  roles: z.array(z.string()),
  members: z.array(
    teamMemberRecord.extend({
      /** `active`: has a password; `invited`: a link is out; `none`: neither (added through the API). */
      account: z.enum(['active', 'invited', 'none']),
      invite_expires_at: dateTimeOut.nullable(),
      last_seen_at: dateTimeOut.nullable(),
    }),
  ),
});

const rank = (role: string) => {
  const i = (BUILT_IN_ROLES as readonly string[]).indexOf(role);
  return i < 0 ? BUILT_IN_ROLES.length : i;
};

/** The team page's data in one call: every member with the state of their account, and the roles. */
export function teamOverview(scope: Scope): z.output<typeof teamOutput> {
  requireAdmin(scope, 'manage the team');
  const { db } = scope;
  const rows = db.select().from(teamMembers).orderBy(...keysetOrder(teamMembers)).all();
  const ids = rows.map((r) => r.id);
  const withPassword = new Set(db.select({ id: memberPasswords.memberId }).from(memberPasswords).all().map((r) => r.id));
  const invites = new Map(
    db
      .select({ id: accountTokens.memberId, until: max(accountTokens.expiresAt) })
      .from(accountTokens)
      .where(and(isNull(accountTokens.usedAt), gt(accountTokens.expiresAt, scope.now.toISOString()), inArray(accountTokens.memberId, ids)))
      .groupBy(accountTokens.memberId)
      .all()
      .map((r) => [r.id, r.until]),
  );
  const seen = new Map(
    db
      .select({ id: sessions.memberId, at: max(sessions.lastSeenAt) })
      .from(sessions)
      .groupBy(sessions.memberId)
      .all()
      .map((r) => [r.id, r.at]),
  );
  return {
    roles: db
      .select({ name: roles.name })
      .from(roles)
      .orderBy(asc(roles.name))
      .all()
      .map((r) => r.name)
      // Owner, Admin, Member first, in that order; roles the workspace added after them.
      .sort((a, b) => rank(a) - rank(b)),
    members: rows.map((row) => ({
      ...toTeamMemberRecord(row),
      account: withPassword.has(row.id) ? 'active' : invites.has(row.id) ? 'invited' : 'none',
      invite_expires_at: withPassword.has(row.id) ? null : (invites.get(row.id) ?? null),
      last_seen_at: seen.get(row.id) ?? null,
    })),
  };
}
