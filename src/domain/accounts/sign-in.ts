import type * as z from 'zod';
import { AppError } from '../../errors.ts';
import type { ActorScope, Scope } from '../scope.ts';
import { meOf } from './me.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import { accountByEmail, accountById, storePassword } from './queries.ts';
import type { changePasswordInput, MeRecord, signInInput } from './schemas.ts';
import { endMemberSessions, endSession, startSession, type ClientInfo, type SessionGrant } from './sessions.ts';
import { beginSignInAttempt, clearSignInFailures, recordSignInFailure } from './throttle.ts';
import { withdrawTokens } from './tokens.ts';
import { revokeMemberKeys } from '../../workspaces/keys.ts';

/** What a sign-in gives the door: the member for the app, and the session for the cookie. */
export interface SignedIn {
  me: MeRecord;
  session: SessionGrant;
}

/** One answer for an unknown e-mail, a member without a password and a wrong password. */
const wrongCredentials = () => new AppError('unauthorized', 'invalid_credentials', 'The e-mail address or the password is not right');

/**
 * `auth.signIn`. Throttled per e-mail and per address (429 with Retry-After). An e-mail that names
 * nobody is checked against a dummy hash, so it is answered like a wrong password, as slowly.
 * Hashing runs outside any transaction; only the outcome is written. The attempt holds its throttle
 * slot until then, so parallel guesses cannot all be checked before the first failure is counted.
 */
export async function signIn(scope: Scope, input: z.output<typeof signInInput>, client: ClientInfo): Promise<SignedIn> {
  const attempt = beginSignInAttempt(scope, input.email, client.address);
  try {
    return await checkedSignIn(scope, input, client);
  } finally {
    attempt.release();
  }
}

/** The sign-in proper, run while its attempt holds the throttle slot. */
async function checkedSignIn(scope: Scope, input: z.output<typeof signInInput>, client: ClientInfo): Promise<SignedIn> {
  const account = accountByEmail(scope, input.email);
  const verified = await verifyPassword(input.password, account?.passwordHash ?? null);
  if (!account || !verified.ok) {
    scope.write((tx) => recordSignInFailure(scope, tx, input.email, client.address));
    throw wrongCredentials();
  }
  // Said only to someone who knows the password: it reveals nothing to a guesser.
  if (!account.active) throw new AppError('forbidden', 'user_inactive', 'This account is deactivated; ask an Owner or Admin of the workspace');
  const upgraded = verified.outdated ? await hashPassword(input.password) : null;
  const { active: _active, passwordHash: _hash, ...member } = account;
  return scope.write((tx) => {
    clearSignInFailures(tx, input.email);
    if (upgraded) storePassword(tx, member.id, upgraded, scope.now);
    const session = startSession(scope, tx, member.id, client);
    return { me: meOf(scope, member, session.expiresAt), session };
  });
}

/** `auth.signOut`: this browser's session ends. */
export function signOut(scope: Scope, input: { session_id: string }): { notice_code: 'signed_out' } {
  endSession(scope, input.session_id);
  return { notice_code: 'signed_out' };
}

/**
 * `auth.signOutEverywhere`: every session of the member ends, this one included, every personal
 * API key of theirs is revoked (a key made from a stolen session must not outlive it), and so are
 * their unused links (a reset link asked for by whoever had the session).
 */
export function signOutEverywhere(scope: ActorScope): { notice_code: 'signed_out_everywhere'; sessions_ended: number; keys_revoked: number } {
  return scope.write((tx) => {
    withdrawTokens(scope, tx, scope.actor.id);
    return {
      notice_code: 'signed_out_everywhere' as const,
      sessions_ended: endMemberSessions(tx, scope.actor.id),
      keys_revoked: revokeMemberKeys(tx, scope.actor.id, scope.now),
    };
  });
}

/**
 * The signed-in member proves they know their password, for what a session alone must not do
 * (change the password, make an API key). A wrong one counts as a failed sign-in, so a stolen
 * session cannot guess faster than a sign-in form allows.
 */
export async function confirmPassword(scope: ActorScope, password: string, client: ClientInfo): Promise<void> {
  // Held until the failure is recorded, as at sign-in: a stolen session must not guess in parallel.
  const attempt = beginSignInAttempt(scope, scope.actor.email, client.address);
  try {
    const account = accountById(scope, scope.actor.id);
    const verified = await verifyPassword(password, account?.passwordHash ?? null);
    if (!verified.ok) {
      scope.write((tx) => recordSignInFailure(scope, tx, scope.actor.email, client.address));
      throw new AppError('unprocessable', 'invalid_credentials', 'The current password is not right', {
        details: [{ path: 'current_password', message: 'is not right' }],
      });
    }
  } finally {
    attempt.release();
  }
}

/**
 * `auth.changePassword`: the current password is checked (`confirmPassword`), then every other
 * session of the member ends, so a stolen session does not outlive the change, and so do their
 * unused reset links (one would set the password again).
 */
export async function changePassword(
  scope: ActorScope,
  input: z.output<typeof changePasswordInput> & { session_id: string | null },
  client: ClientInfo,
): Promise<{ notice_code: 'password_changed' }> {
  await confirmPassword(scope, input.current_password, client);
  const hash = await hashPassword(input.new_password);
  scope.write((tx) => {
    storePassword(tx, scope.actor.id, hash, scope.now);
    endMemberSessions(tx, scope.actor.id, input.session_id ?? undefined);
    withdrawTokens(scope, tx, scope.actor.id);
  });
  return { notice_code: 'password_changed' };
}
