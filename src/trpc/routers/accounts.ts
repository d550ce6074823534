import { z } from 'zod';
import { createKey, createKeyInput, createKeyOutput, listApiKeys, listKeysOutput, revokeKey, revokeKeyInput, revokeKeyOutput } from '../../domain/accounts/api-keys.ts';
import { inviteMember, sendAccountLink } from '../../domain/accounts/invite.ts';
import { teamOutput, teamOverview } from '../../domain/accounts/team.ts';
import { inviteInput, inviteOutput, sendLinkInput, sendLinkOutput } from '../../domain/accounts/schemas.ts';
import { router, workspaceProcedure } from '../init.ts';

/** Team members' accounts: invitations and sign-in links (Owner/Admin). */
export const accountsRouter = router({
  invite: workspaceProcedure
    .input(inviteInput)
    .output(inviteOutput)
    .mutation(({ ctx, input }) => inviteMember(ctx.scope, input)),
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
    .mutation(({ ctx, input }) => createKey(ctx.scope, input)),
  revoke: workspaceProcedure
    .input(revokeKeyInput)
    .output(revokeKeyOutput)
    .mutation(({ ctx, input }) => revokeKey(ctx.scope, input)),
});

