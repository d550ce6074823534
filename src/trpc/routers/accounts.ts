import * as z from 'zod';
import { checkKeyRequest, createKey, createKeyInput, createKeyOutput, listApiKeys, listKeysOutput, revokeKey, revokeKeyInput, revokeKeyOutput } from '../../domain/accounts/api-keys.ts';
import { inviteMember, inviteNeedsPassword, sendAccountLink } from '../../domain/accounts/invite.ts';
import { teamOutput, teamOverview } from '../../domain/accounts/team.ts';
import { inviteInput, inviteOutput, sendLinkInput, sendLinkOutput } from '../../domain/accounts/schemas.ts';
import { AppError } from '../../errors.ts';
import type { Scope } from '../../domain/scope.ts';
import type { BrowserRequest } from '../context.ts';
import { router, workspaceProcedure, type Credential } from '../init.ts';
import { requirePassword } from '../step-up.ts';

/** Team members' accounts: invitations and sign-in links (Owner/Admin). */
export const accountsRouter = router({
  /** An Owner or Admin invited from a session takes the inviter's password (`requirePassword`). */
  invite: workspaceProcedure
    .input(inviteInput)
    .output(inviteOutput)
    .mutation(async ({ ctx, input }) => {
      if (inviteNeedsPassword(ctx.scope, input)) await requirePassword(ctx, input.current_password, 'invite an Owner or Admin');
      return inviteMember(ctx.scope, input);
    }),
  /** The team page: members with the state of their accounts, and the workspace's roles. */
  team: workspaceProcedure
    .input(z.object({}).optional())
    .output(teamOutput)
    .query(({ ctx }) => teamOverview(ctx.scope)),
  /** The invitation again (no password yet) or a reset link (has one). */
  sendLink: workspaceProcedure
    .input(sendLinkInput)
    .output(sendLinkOutput)
    .mutation(({ ctx, input }) => sendAccountLink(ctx.scope, input)),
});

/**
 * A key outlives the session that made it, so making one takes more than a session: from a
 * signed-in browser the member's password (`requirePassword`), and never a personal key (a leaked
 * one could mint its own replacements). The workspace key, which holds every power of the
 * workspace anyway, may.
 */
async function confirmKeyMaker(ctx: { credential: Credential; scope: Scope; browser?: BrowserRequest | undefined }, password: string | undefined): Promise<void> {
  if (ctx.credential.kind === 'personal_key') {
    throw new AppError('forbidden', 'session_required', 'API keys are made by a signed-in member or with the workspace key, not with a personal key');
  }
  await requirePassword(ctx, password, 'create an API key');
}

/** The settings page's API keys: workspace keys (Owner/Admin) and personal keys. */
export const apiKeysRouter = router({
  list: workspaceProcedure
    .input(z.object({}).optional())
    .output(listKeysOutput)
    .query(({ ctx }) => listApiKeys(ctx.scope)),
  create: workspaceProcedure
    .meta({ secretAnswer: true })
    .input(createKeyInput)
    .output(createKeyOutput)
    .mutation(async ({ ctx, input }) => {
      checkKeyRequest(ctx.scope, input);
      await confirmKeyMaker(ctx, input.current_password);
      return createKey(ctx.scope, input);
    }),
  revoke: workspaceProcedure
    .input(revokeKeyInput)
    .output(revokeKeyOutput)
    .mutation(({ ctx, input }) => revokeKey(ctx.scope, input)),
});

