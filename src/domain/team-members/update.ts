import { eq } from 'drizzle-orm';
import type * as z from 'zod';
import { teamMembers } from '../../db/schema/index.ts';
import { AppError } from '../../errors.ts';
import { isAdmin, requireAdmin } from '../access.ts';
import { endMemberSessions } from '../accounts/sessions.ts';
import { withdrawTokens } from '../accounts/tokens.ts';
import { recordEvent } from '../events.ts';
import type { Scope } from '../scope.ts';
import { activeOwnerCount, assertEmailFree, assertRoleExists, getTeamMember } from './queries.ts';
import { toTeamMemberRecord } from './records.ts';
import type { updateInput, updateOutput } from './schemas.ts';

const CHANGE = 'change team members';

/**
 * Whether a change moves the member's account to another e-mail address (a reset link would then
 * go there) or makes them an Owner or Admin: from a session it takes the changer's password
 * (src/trpc/step-up.ts). Asked after the access check and the member's lookup (403, 404 first).
 */
export function updateNeedsPassword(scope: Scope, input: z.output<typeof updateInput>): boolean {
  requireAdmin(scope, CHANGE);
  if (input.email === undefined && input.organization_role === undefined) return false;
  const current = getTeamMember(scope.db, input.team_member_id);
  const newAddress = input.email !== undefined && input.email.toLowerCase() !== current.email.toLowerCase();
  const madeAdmin = input.organization_role !== undefined && input.organization_role !== current.organizationRole && isAdmin({ organizationRole: input.organization_role });
  return newAddress || madeAdmin;
}

/** Endpoint 18, PATCH semantics: only the given fields change. A workspace always keeps one active Owner. */
export function updateTeamMember(scope: Scope, input: z.output<typeof updateInput>): z.output<typeof updateOutput> {
  requireAdmin(scope, CHANGE);
  return scope.write((tx) => {
    const current = getTeamMember(tx, input.team_member_id);
    if (input.email !== undefined) assertEmailFree(tx, input.email, current.id);
    if (input.organization_role !== undefined) assertRoleExists(tx, input.organization_role);
    const next = {
      ...current,
      ...(input.email !== undefined && { email: input.email }),
      ...(input.first_name !== undefined && { firstName: input.first_name }),
      ...(input.last_name !== undefined && { lastName: input.last_name }),
      ...(input.time_zone !== undefined && { timeZone: input.time_zone }),
      ...(input.organization_role !== undefined && { organizationRole: input.organization_role }),
      ...(input.active !== undefined && { active: input.active }),
    };
    const wasActiveOwner = current.active && current.organizationRole === 'Owner';
    const staysActiveOwner = next.active && next.organizationRole === 'Owner';
    if (wasActiveOwner && !staysActiveOwner && activeOwnerCount(tx) <= 1) {
      throw new AppError('unprocessable', 'last_owner', 'This is the last active Owner of the workspace; make someone else Owner first');
    }
    next.updatedAt = scope.now.toISOString();
    tx.update(teamMembers).set(next).where(eq(teamMembers.id, current.id)).run();
    // A deactivated member is signed out at once, and their unused links stop working.
    if (current.active && !next.active) {
      endMemberSessions(tx, current.id);
      withdrawTokens(scope, tx, current.id);
    } else if (next.email.toLowerCase() !== current.email.toLowerCase()) {
      // A link mailed to the old address (an invite to a mistyped one, a reset) must not sign
      // anyone in as the member once the address is no longer theirs.
      withdrawTokens(scope, tx, current.id);
    }
    const teamMember = toTeamMemberRecord(next);
    recordEvent(scope, 'team_member.updated', { team_member: teamMember });
    return { team_member: teamMember };
  });
}
