import type { webhookAttempts, webhookDeliveries, webhookEndpoints } from '../../db/schema/index.ts';
import type { DeliveryRecord, EndpointRecord } from './schemas.ts';
import { timeOrderedUuid } from '../time-ordered-id.ts';

export type EndpointRow = typeof webhookEndpoints.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type AttemptRow = typeof webhookAttempts.$inferSelect;

export const eventTypesOf = (row: Pick<EndpointRow, 'eventTypes'>) => JSON.parse(row.eventTypes) as string[];

export const toEndpointRecord = (row: EndpointRow): EndpointRecord => ({
  id: row.id,
  url: row.url,
  description: row.description,
  events: eventTypesOf(row),
  enabled: row.enabled,
  disabled_reason: row.disabledReason,
  failing_since: row.failingSince,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
});

export const toDeliveryRecord = (row: DeliveryRow & { eventType: string }, attempts: AttemptRow[]): DeliveryRecord => ({
  id: row.id,
  endpoint_id: row.endpointId,
  event_id: row.eventId,
  event_type: row.eventType,
  status: row.status,
  attempts: row.attempts,
  next_attempt_at: row.status === 'pending' ? row.nextAttemptAt : null,
  delivered_at: row.deliveredAt,
  last_status_code: row.lastStatusCode,
  last_error: row.lastError,
  manual: row.manual,
  created_at: row.createdAt,
  attempt_log: attempts.map((a) => ({
    attempted_at: a.attemptedAt,
    status_code: a.statusCode,
    error: a.error,
    response_body: a.responseBody,
    duration_ms: a.durationMs,
  })),
});

/** A delivery waiting for its first attempt, due at once. */
export const pendingDelivery = (endpointId: string, eventId: string, at: string, manual: boolean): DeliveryRow => ({
  id: timeOrderedUuid(new Date(at)),
  endpointId,
  eventId,
  status: 'pending',
  attempts: 0,
  nextAttemptAt: at,
  claimedAt: null,
  lastStatusCode: null,
  lastError: null,
  manual,
  deliveredAt: null,
  createdAt: at,
});
