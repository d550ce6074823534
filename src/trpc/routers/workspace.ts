import * as z from 'zod';
import { detailsOutput, workspaceDetails } from '../../domain/workspace/details.ts';
import { getIdentity, updateIdentity } from '../../domain/workspace/identity.ts';
import { assertMaySetUpCardPayments, getPaymentProcessor, removePaymentProcessor, updatePaymentProcessor } from '../../domain/workspace/payment-processor.ts';
import { identityOutput, processorOutput, updateIdentityInput, updateProcessorInput } from '../../domain/workspace/schemas.ts';
import { settingsOutput, workspaceSettings } from '../../domain/workspace/settings.ts';
import { actingUserProcedure, router, workspaceProcedure } from '../init.ts';
import { requirePassword } from '../step-up.ts';

/** The workspace's own settings: its details, its identity on invoices and mail, and card payment. */
export const workspaceRouter = router({
  /** Owner/Admin: the workspace's name, subdomain, time zone, public address and creation time. */
  details: workspaceProcedure
    .input(z.object({}).optional())
    .output(detailsOutput)
    .query(({ ctx }) => workspaceDetails(ctx.scope)),
  /** Owner/Admin: details, identity and card payment set-up in one call (the app's settings page). */
  settings: workspaceProcedure
    .input(z.object({}).optional())
    .output(settingsOutput)
    .query(({ ctx }) => workspaceSettings(ctx.scope)),
  /** Legal name, address, tax id, logo, sender, payment instructions, footer, locale. */
  identity: workspaceProcedure
    .input(z.object({}).optional())
    .output(identityOutput)
    .query(({ ctx }) => getIdentity(ctx.scope)),
  /** Owner/Admin: changes the fields given (null or "" clears one); the logo as base64. */
  updateIdentity: actingUserProcedure
    .input(updateIdentityInput)
    .output(identityOutput)
    .mutation(({ ctx, input }) => updateIdentity(ctx.scope, input)),
  /** Whether card payment is set up; secrets only as their last 4 characters. */
  paymentProcessor: workspaceProcedure
    .input(z.object({}).optional())
    .output(processorOutput)
    .query(({ ctx }) => getPaymentProcessor(ctx.scope)),
  /** Owner/Admin: the processor's secret key and webhook signing secret; from a session, with the password (`requirePassword`). */
  updatePaymentProcessor: actingUserProcedure
    .input(updateProcessorInput)
    .output(processorOutput)
    .mutation(async ({ ctx, input }) => {
      assertMaySetUpCardPayments(ctx.scope);
      await requirePassword(ctx, input.current_password, "set the card processor's keys");
      return updatePaymentProcessor(ctx.scope, input);
    }),
  /** Owner/Admin: card payment off. */
  removePaymentProcessor: actingUserProcedure
    .output(processorOutput)
    .mutation(({ ctx }) => removePaymentProcessor(ctx.scope)),
});
