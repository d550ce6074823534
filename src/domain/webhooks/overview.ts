import { count, desc, eq, getTableColumns } from 'drizzle-orm';
import type * as z from 'zod';
import { events, webhookAttempts, webhookDeliveries } from '../../db/schema/index.ts';
import { requireAdmin } from '../access.ts';
import { EVENT_TYPES } from '../events.ts';
import { groupBy, inIds } from '../queries.ts';
import type { Scope } from '../scope.ts';
import { listEndpoints } from './endpoints.ts';
import { toDeliveryRecord } from './records.ts';
import type { overviewInput, overviewOutput } from './schemas.ts';

type Counts = z.output<typeof overviewOutput>['items'][number]['delivery_counts'];

/** Deliveries per endpoint and state, one grouped query. */
function countsByEndpoint(scope: Scope): Map<string, Counts> {
  const rows = scope.db
    .select({ endpointId: webhookDeliveries.endpointId, status: webhookDeliveries.status, n: count() })
    .from(webhookDeliveries)
    .groupBy(webhookDeliveries.endpointId, webhookDeliveries.status)
    .all();
  const counts = new Map<string, Counts>();
  for (const r of rows) {
    const c = counts.get(r.endpointId) ?? { pending: 0, delivered: 0, failed: 0 };
    c[r.status] = r.n;
    counts.set(r.endpointId, c);
  }
  return counts;
}

/** An endpoint's latest deliveries, newest first (its index on endpoint and time). */
const latestDeliveries = (scope: Scope, endpointId: string, limit: number) =>
  scope.db
    .select({ ...getTableColumns(webhookDeliveries), eventType: events.type })
    .from(webhookDeliveries)
    .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
    .where(eq(webhookDeliveries.endpointId, endpointId))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(limit)
    .all();

/**
 * `webhooks.overview`: the webhooks page's data in one call: every endpoint with how many of its
 * deliveries are pending, delivered or failed and its latest deliveries (each with its latest
 * attempt), and the event types an endpoint may subscribe to. Endpoints are few, so one bounded
 * indexed read each.
 */
export function webhookOverview(scope: Scope, input: z.output<typeof overviewInput>): z.output<typeof overviewOutput> {
  requireAdmin(scope, 'see webhook endpoints');
  const endpoints = listEndpoints(scope).items;
  const counts = countsByEndpoint(scope);
  const recent = new Map(endpoints.map((e) => [e.id, latestDeliveries(scope, e.id, input.recent)]));
  const ids = [...recent.values()].flat().map((d) => d.id);
  const attempts = ids.length === 0 ? [] : scope.db.select().from(webhookAttempts).where(inIds(webhookAttempts.deliveryId, ids)).orderBy(webhookAttempts.attemptedAt, webhookAttempts.id).all();
  const byDelivery = groupBy(attempts, (a) => a.deliveryId);
  return {
    event_types: [...EVENT_TYPES],
    items: endpoints.map((endpoint) => ({
      endpoint,
      delivery_counts: counts.get(endpoint.id) ?? { pending: 0, delivered: 0, failed: 0 },
      recent_deliveries: (recent.get(endpoint.id) ?? []).map((row) => {
        const { attempt_log: log, ...delivery } = toDeliveryRecord(row, byDelivery.get(row.id) ?? []);
        return { ...delivery, last_attempt: log.at(-1) ?? null };
      }),
    })),
  };
}
