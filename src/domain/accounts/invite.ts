import type * as z from 'zod';
import { AppError } from '../../errors.ts';
import { isAdmin, requireAdmin } from '../access.ts';
import type { Scope } from '../scope.ts';
import { insertTeamMember } from '../team-members/create.ts';
import { getTeamMember } from '../team-members/queries.ts';
import { queueInviteMail, queueResetMail } from './mail.ts';
import { accountById } from './queries.ts';
import type { inviteInput, inviteOutput, sendLinkInput, sendLinkOutput } from './schemas.ts';
import { issueToken } from './tokens.ts';

const INVITE = 'invite team members';

/** Whether an invitation makes an Owner or Admin, which takes the inviter's password (src/trpc/step-up.ts); 403 first for a Member. */
export function inviteNeedsPassword(scope: Scope, input: z.output<typeof inviteInput>): boolean {
  requireAdmin(scope, INVITE);
  return isAdmin({ organizationRole: input.organization_role });
}

/**
 * `accounts.invite`: adds the team member and mails them a link to choose a password (7 days,
 * once), in one transaction: the member exists only if the invitation is queued.
 */
export function inviteMember(scope: Scope, input: z.output<typeof inviteInput>): z.output<typeof inviteOutput> {
  requireAdmin(scope, INVITE);
  return scope.write((tx) => {
    const member = insertTeamMember(tx, input, scope.workspace.timeZone, scope.now);
    const link = issueToken(scope, tx, member.id, 'invite');
    queueInviteMail(scope, tx, { email: member.email, firstName: member.first_name, lastName: member.last_name }, link, scope.actor);
    return { notice_code: 'team_member_invited', team_member: member, link_expires_at: link.expiresAt };
  });
}

/**
 * `accounts.sendLink`: mails an active member a fresh link: the invitation again while they have
 * no password, else a password reset. Earlier links stop working.
 */
export function sendAccountLink(scope: Scope, input: z.output<typeof sendLinkInput>): z.output<typeof sendLinkOutput> {
  requireAdmin(scope, 'send sign-in links');
  return scope.write((tx) => {
    const row = getTeamMember(tx, input.team_member_id);
    if (!row.active) throw new AppError('unprocessable', 'user_inactive', `${row.email} is deactivated; reactivate them first`);
    const person = { email: row.email, firstName: row.firstName, lastName: row.lastName };
    const hasPassword = accountById(scope, row.id)?.passwordHash != null;
    const purpose = hasPassword ? 'reset' : 'invite';
    const link = issueToken(scope, tx, row.id, purpose);
    if (hasPassword) queueResetMail(scope, tx, person, link);
    else queueInviteMail(scope, tx, person, link, scope.actor);
    return { notice_code: 'link_sent', purpose, link_expires_at: link.expiresAt };
  });
}
