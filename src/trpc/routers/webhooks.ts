import * as z from 'zod';
import { listDeliveries, listEvents, redeliverEvent } from '../../domain/webhooks/deliveries.ts';
import { assertMayManageEndpoints, createEndpoint, deleteEndpoint, listEndpoints, movesEndpoint, rotateEndpointSecret, updateEndpoint } from '../../domain/webhooks/endpoints.ts';
import {
  createInput,
  deleteOutput,
  deliveriesInput,
  deliveriesOutput,
  endpointIdInput,
  endpointOutput,
  eventsInput,
  eventsOutput,
  listOutput,
  overviewInput,
  overviewOutput,
  redeliverInput,
  redeliverOutput,
  rotateInput,
  updateInput,
  withSecretOutput,
} from '../../domain/webhooks/schemas.ts';
import { webhookOverview } from '../../domain/webhooks/overview.ts';
import { actingUserProcedure, router, workspaceProcedure } from '../init.ts';
import { requirePassword } from '../step-up.ts';

/**
 * Webhook endpoints, their deliveries and the events they carry (docs/webhooks.md). Owner or
 * Admin only; changes name the acting person in `email`, reads need only the key.
 */
export const webhooksRouter = router({
  list: workspaceProcedure
    .input(z.object({}).optional())
    .output(listOutput)
    .query(({ ctx }) => listEndpoints(ctx.scope)),
  /** Every endpoint with its delivery counts and latest deliveries, and the event types (the app's page). */
  overview: workspaceProcedure
    .input(overviewInput)
    .output(overviewOutput)
    .query(({ ctx, input }) => webhookOverview(ctx.scope, input)),
  /** Answers the signing secret, once. From a session, takes the member's password (`requirePassword`). */
  create: actingUserProcedure
    .meta({ secretAnswer: true })
    .input(createInput)
    .output(withSecretOutput)
    .mutation(async ({ ctx, input }) => {
      assertMayManageEndpoints(ctx.scope);
      await requirePassword(ctx, input.current_password, 'add a webhook endpoint');
      return createEndpoint(ctx.scope, input);
    }),
  /** URL, events, description, and `enabled` to turn it off or on; a new URL from a session takes the password. */
  update: actingUserProcedure
    .input(updateInput)
    .output(endpointOutput)
    .mutation(async ({ ctx, input }) => {
      assertMayManageEndpoints(ctx.scope);
      if (movesEndpoint(ctx.scope, input)) await requirePassword(ctx, input.current_password, "change a webhook endpoint's address");
      return updateEndpoint(ctx.scope, input);
    }),
  /** A new signing secret, answered once; the old one stops signing at once. From a session, takes the password. */
  rotateSecret: actingUserProcedure
    .meta({ secretAnswer: true })
    .input(rotateInput)
    .output(withSecretOutput)
    .mutation(async ({ ctx, input }) => {
      assertMayManageEndpoints(ctx.scope);
      await requirePassword(ctx, input.current_password, "rotate a webhook endpoint's signing secret");
      return rotateEndpointSecret(ctx.scope, input);
    }),
  delete: actingUserProcedure
    .input(endpointIdInput)
    .output(deleteOutput)
    .mutation(({ ctx, input }) => deleteEndpoint(ctx.scope, input)),
  /** An endpoint's deliveries with every attempt (status, time, first 1 KB of the answer). */
  deliveries: workspaceProcedure
    .input(deliveriesInput)
    .output(deliveriesOutput)
    .query(({ ctx, input }) => listDeliveries(ctx.scope, input)),
  /** Sends an event to an endpoint again. */
  redeliver: actingUserProcedure
    .input(redeliverInput)
    .output(redeliverOutput)
    .mutation(({ ctx, input }) => redeliverEvent(ctx.scope, input)),
  /** The workspace's events, oldest first (to find one to redeliver). */
  events: workspaceProcedure
    .input(eventsInput)
    .output(eventsOutput)
    .query(({ ctx, input }) => listEvents(ctx.scope, input)),
});
