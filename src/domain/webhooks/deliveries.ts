import { eq, getTableColumns } from 'drizzle-orm';
import type * as z from 'zod';
import { events, webhookAttempts, webhookDeliveries } from '../../db/schema/index.ts';
import { notFound, unprocessable } from '../../errors.ts';
import { requireAdmin } from '../access.ts';
import { groupBy, inIds, keysetPage, mapPage } from '../queries.ts';
import type { Scope } from '../scope.ts';
import { getEndpointRow } from './queries.ts';
import { pendingDelivery, toDeliveryRecord } from './records.ts';
import type { deliveriesInput, deliveriesOutput, eventsInput, eventsOutput, redeliverInput, redeliverOutput } from './schemas.ts';

/** An endpoint's deliveries in the order they were queued, each with every attempt (status, time, first 1 KB of the answer). */
export function listDeliveries(scope: Scope, input: z.output<typeof deliveriesInput>): z.output<typeof deliveriesOutput> {
  requireAdmin(scope, 'see webhook deliveries');
  getEndpointRow(scope.db, input.endpoint_id);
  const page = keysetPage(
    scope.db
      .select({ ...getTableColumns(webhookDeliveries), eventType: events.type })
      .from(webhookDeliveries)
      .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
      .$dynamic(),
    webhookDeliveries,
    [
      eq(webhookDeliveries.endpointId, input.endpoint_id),
      input.event_id === undefined ? undefined : eq(webhookDeliveries.eventId, input.event_id),
      input.status === undefined ? undefined : eq(webhookDeliveries.status, input.status),
    ],
    input,
  );
  const ids = page.items.map((d) => d.id);
  const attempts = ids.length === 0 ? [] : scope.db.select().from(webhookAttempts).where(inIds(webhookAttempts.deliveryId, ids)).orderBy(webhookAttempts.attemptedAt, webhookAttempts.id).all();
  const byDelivery = groupBy(attempts, (a) => a.deliveryId);
  return mapPage(page, (rows) => rows.map((row) => toDeliveryRecord(row, byDelivery.get(row.id) ?? [])));
}

/**
 * Queues an event for an endpoint again, by hand (after fixing a receiver, or to replay one): a
 * new delivery with the event's own `webhook-id`, so a receiver that already has it can tell.
 */
export function redeliverEvent(scope: Scope, input: z.output<typeof redeliverInput>): z.output<typeof redeliverOutput> {
  requireAdmin(scope, 'redeliver webhook events');
  return scope.write((tx) => {
    const endpoint = getEndpointRow(tx, input.endpoint_id);
    if (!endpoint.enabled) throw unprocessable('webhook_endpoint_disabled', 'This endpoint is turned off; turn it on before redelivering to it');
    const event = tx.select({ id: events.id, type: events.type }).from(events).where(eq(events.id, input.event_id)).get();
    if (!event) throw notFound('event', `No event with id ${input.event_id} in this workspace`);
    const row = pendingDelivery(endpoint.id, event.id, scope.now.toISOString(), true);
    tx.insert(webhookDeliveries).values(row).run();
    scope.after('webhooks');
    return { delivery: toDeliveryRecord({ ...row, eventType: event.type }, []) };
  });
}

/** The workspace's events in the order they happened, to find one to redeliver. */
export function listEvents(scope: Scope, input: z.output<typeof eventsInput>): z.output<typeof eventsOutput> {
  requireAdmin(scope, 'see events');
  const page = keysetPage(scope.db.select().from(events).$dynamic(), events, [input.type === undefined ? undefined : eq(events.type, input.type)], input);
  return mapPage(page, (rows) => rows.map((e) => ({ id: e.id, type: e.type, created_at: e.createdAt, data: JSON.parse(e.data) as Record<string, unknown> })));
}
