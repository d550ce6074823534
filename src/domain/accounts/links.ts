import { and, asc, eq } from 'drizzle-orm';
import type * as z from 'zod';
import { accountTokens, teamMembers } from '../../db/schema/index.ts';
import { AppError } from '../../errors.ts';
import type { Scope } from '../scope.ts';
import { passwordLink, queueResetMail } from './mail.ts';
import { meOf } from './me.ts';
import { hashPassword } from './passwords.ts';
import { accountByEmail, accountById, storePassword } from './queries.ts';
import type { linkInput, linkOutput, requestResetInput, setPasswordInput } from './schemas.ts';
import { endMemberSessions, startSession, type ClientInfo } from './sessions.ts';
import { revokeMemberKeys } from '../../workspaces/keys.ts';
import type { SignedIn } from './sign-in.ts';
import { clearSignInFailures } from './throttle.ts';
import { issueToken, linkInvalid, liveToken, withdrawTokens, type TokenRow } from './tokens.ts';

/** A link's member: they must still be active, or the link is worth nothing. */
function linkMember(scope: Scope, row: TokenRow) {
  const account = accountById(scope, row.memberId);
  if (!account?.active) throw linkInvalid();
  return account;
}

/** `auth.checkLink`: what the set-password page shows before a password is chosen. */
export function checkLink(scope: Scope, input: z.output<typeof linkInput>): z.output<typeof linkOutput> {
  const row = liveToken(scope, scope.db, input.token);
  const account = linkMember(scope, row);
  return { purpose: row.purpose, email: account.email, first_name: account.firstName, workspace_name: scope.workspace.name, expires_at: row.expiresAt };
}

/**
 * `auth.setPassword`: a link (first password, invite or reset) sets the password and signs the
 * member in. The link is checked again inside the transaction, so two uses at once cannot both
 * succeed; every other link and session of the member ends, and their personal API keys are revoked.
 */
export async function setPasswordWithLink(scope: Scope, input: z.output<typeof setPasswordInput>, client: ClientInfo): Promise<SignedIn> {
  linkMember(scope, liveToken(scope, scope.db, input.token));
  const hash = await hashPassword(input.password);
  return scope.write((tx) => {
    const row = liveToken(scope, tx, input.token);
    const { active: _active, passwordHash: _hash, ...member } = linkMember(scope, row);
    storePassword(tx, member.id, hash, scope.now);
    withdrawTokens(scope, tx, member.id);
    endMemberSessions(tx, member.id);
    // A reset recovers the account: keys made by whoever held it go with its sessions.
    revokeMemberKeys(tx, member.id, scope.now);
    clearSignInFailures(tx, member.email);
    const session = startSession(scope, tx, member.id, client);
    return { me: meOf(scope, member, session.expiresAt), session };
  });
}

/** At most one reset mail per member in this span, so the form cannot be used to flood an inbox. */
const RESET_MAIL_INTERVAL_MS = 60_000;

/**
 * `auth.requestReset`: mails a reset link to an active member with that e-mail. The answer is the
 * same whether or not the e-mail names anyone.
 */
export function requestPasswordReset(scope: Scope, input: z.output<typeof requestResetInput>): { notice_code: 'password_reset_requested' } {
  const account = accountByEmail(scope, input.email);
  if (account?.active) {
    scope.write((tx) => {
      const recent = tx
        .select({ createdAt: accountTokens.createdAt })
        .from(accountTokens)
        .where(and(eq(accountTokens.memberId, account.id), eq(accountTokens.purpose, 'reset')))
        .all()
        .some((t) => Date.parse(t.createdAt) > scope.now.getTime() - RESET_MAIL_INTERVAL_MS);
      if (!recent) queueResetMail(scope, tx, account, issueToken(scope, tx, account.id, 'reset'));
    });
  }
  return { notice_code: 'password_reset_requested' };
}

/**
 * A one-time link to set a password, for the command line (`hourbook workspace create`,
 * `hourbook password-link`): for the member with `email`, else the workspace's first active Owner.
 */
export function issuePasswordLink(scope: Scope, input: { email?: string | undefined }): { email: string; link: string; expires_at: string } {
  const member = input.email
    ? accountByEmail(scope, input.email)
    : scope.db
        .select({ id: teamMembers.id, email: teamMembers.email, active: teamMembers.active })
        .from(teamMembers)
        .where(and(eq(teamMembers.organizationRole, 'Owner'), eq(teamMembers.active, true)))
        .orderBy(asc(teamMembers.createdAt))
        .get();
  if (!member) throw new AppError('not_found', 'team_member_not_found', input.email ? `No team member has the e-mail ${input.email}` : 'The workspace has no active Owner');
  if (!member.active) throw new AppError('forbidden', 'user_inactive', `The team member ${member.email} is inactive`);
  const issued = scope.write((tx) => issueToken(scope, tx, member.id, 'set_password'));
  return { email: member.email, link: passwordLink(scope.links.publicBase, issued.token), expires_at: issued.expiresAt };
}
