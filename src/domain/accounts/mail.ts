import type { Db } from '../../db/index.ts';
import { enqueueMail } from '../../mail/outbox.ts';
import type { Scope } from '../scope.ts';
import type { ActingUser } from '../team-members/acting-user.ts';
import { fullName } from '../team-members/records.ts';
import type { IssuedToken } from './tokens.ts';

/**
 * The page of the app where a link's token is used. The token travels in the fragment, which
 * browsers never send to a server or in a Referer, so it does not end up in access logs.
 */
export const passwordLink = (publicBase: string, token: string) => `${publicBase}/set-password#token=${token}`;

interface Person {
  email: string;
  firstName: string;
  lastName: string;
}

const until = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

/** The invitation, queued in the caller's transaction. */
export function queueInviteMail(scope: Scope, tx: Db, person: Person, link: IssuedToken, inviter: ActingUser | null): void {
  const workspace = scope.workspace.name;
  const by = inviter ? `${fullName(inviter)} invited you` : 'You are invited';
  enqueueMail(scope, tx, {
    kind: 'invite',
    to: { address: person.email, name: fullName(person) },
    replyTo: inviter?.email ?? null,
    subject: `You are invited to ${workspace} on hourbook`,
    text: `Hello ${person.firstName},

${by} to record time and work with ${workspace} on hourbook.

Choose your password here to sign in (the link works once, until ${until(link.expiresAt)}):
${passwordLink(scope.links.publicBase, link.token)}

Your e-mail address for signing in is ${person.email}.
`,
  });
}

/** The password reset link, queued in the caller's transaction. */
export function queueResetMail(scope: Scope, tx: Db, person: Person, link: IssuedToken): void {
  enqueueMail(scope, tx, {
    kind: 'password_reset',
    to: { address: person.email, name: fullName(person) },
    subject: `Reset your ${scope.workspace.name} password`,
    text: `Hello ${person.firstName},

someone (hopefully you) asked to reset your password for ${scope.workspace.name} on hourbook.
Choose a new password here (the link works once, until ${until(link.expiresAt)}):
${passwordLink(scope.links.publicBase, link.token)}

If you did not ask for this, ignore this message: your password stays as it is.
`,
  });
}
