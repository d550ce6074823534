import { confirmPassword } from '../domain/accounts/sign-in.ts';
import type { ActorScope, Scope } from '../domain/scope.ts';
import { invalidField } from '../errors.ts';
import type { BrowserRequest } from './context.ts';
import type { Credential } from './init.ts';

/**
 * What outlives a session, or hands an account, the workspace's money or its data to someone else,
 * takes more than a session: from a signed-in browser, the member's password as well
 * (`current_password`), so that a stolen cookie alone does none of it and nothing it did outlives
 * its owner's "sign out everywhere". These are: making an API key, inviting or adding an Owner or
 * Admin or making a member one, changing a member's e-mail address (a reset link would then go to the new
 * one), adding a webhook endpoint, pointing one elsewhere or rotating its secret, and setting the
 * card processor's keys. An API key is not asked: it is a credential of its own.
 *
 * Missing → 422 on `current_password` ("is required to …", which the app answers by asking for the
 * password and sending the call again); wrong → 422 `invalid_credentials`, counted as a failed
 * sign-in (`confirmPassword`), so a stolen session guesses no faster than the sign-in form allows.
 * Called after the call's own access check, so a Member hears 403, not a request for a password.
 */
export async function requirePassword(
  ctx: { credential: Credential; scope: Scope; browser?: BrowserRequest | undefined },
  password: string | undefined,
  what: string,
): Promise<void> {
  if (ctx.credential.kind !== 'session') return;
  if (password === undefined) throw invalidField('current_password', `is required to ${what}`);
  await confirmPassword(ctx.scope as ActorScope, password, ctx.browser?.client ?? { address: '', userAgent: '' });
}
