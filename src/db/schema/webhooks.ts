import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { bool, id, timestamps } from './columns.ts';
import { events } from './events.ts';

/** Where a workspace wants its events sent (docs/webhooks.md). */
export const webhookEndpoints = sqliteTable('webhook_endpoints', {
  id: id(),
  url: text('url').notNull(),
  description: text('description').notNull().default(''),
  /** JSON array of event types; `["*"]` for every event. */
  eventTypes: text('event_types').notNull(),
  /** The signing secret as stored: `plain:whsec_…`, or `enc:v1:…` when SECRET_KEY is set. */
  secret: text('secret').notNull(),
  enabled: bool('enabled').notNull().default(true),
  /** Why hourbook turned the endpoint off (it failed for 3 days); null when a person did, or it is on. */
  disabledReason: text('disabled_reason'),
  /** When the current run of failed attempts began; null after a success. */
  failingSince: text('failing_since'),
  /**
   * The last event's rowid when the endpoint was created or last turned on: while it is on, it
   * receives the events after this one. Compared with each event by the fan-out, so what an
   * endpoint gets follows when the event committed, not when the fan-out read it (fanout.ts).
   */
  enabledAfterEvent: integer('enabled_after_event').notNull().default(0),
  ...timestamps,
});

export const webhookDeliveryStatuses = ['pending', 'delivered', 'failed'] as const;

/**
 * The webhook outbox: one row per event and endpoint (and per redelivery asked for by hand),
 * written by the fan-out from the committed `events` table, so an event of a rolled-back change
 * is never sent and a committed one never lost.
 */
export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    id: id(),
    endpointId: text('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    eventId: text('event_id')
      .notNull()
      .references(() => events.id),
    status: text('status', { enum: webhookDeliveryStatuses }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: text('next_attempt_at').notNull(),
    /** Set while a worker is sending; a claim older than the lease is taken over after a crash. */
    claimedAt: text('claimed_at'),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    /** Asked for by a person (`redeliver`), not by the event itself. */
    manual: bool('manual').notNull().default(false),
    deliveredAt: text('delivered_at'),
    createdAt: text('created_at').notNull(),
  },
  (t) => [
    /**
     * Only pending deliveries, by when they are due: the worker's claims read nothing else, and a
     * delivery that is delivered (nearly all of them) leaves it instead of moving within it.
     * Queries must say `status = 'pending'` as a literal for SQLite to use it.
     */
    index('webhook_deliveries_due_idx')
      .on(t.nextAttemptAt)
      .where(sql`${t.status} = 'pending'`),
    index('webhook_deliveries_endpoint_idx').on(t.endpointId, t.createdAt),
    index('webhook_deliveries_event_idx').on(t.eventId),
  ],
);

/** Every attempt to send a delivery: what the receiver answered, or why nothing was sent. */
export const webhookAttempts = sqliteTable(
  'webhook_attempts',
  {
    id: id(),
    deliveryId: text('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    attemptedAt: text('attempted_at').notNull(),
    /** The HTTP status answered; null when no answer came (refused address, timeout, connection error). */
    statusCode: integer('status_code'),
    error: text('error'),
    /** The first 1 KB of the answer's body. */
    responseBody: text('response_body'),
    durationMs: integer('duration_ms').notNull(),
  },
  (t) => [index('webhook_attempts_delivery_idx').on(t.deliveryId, t.attemptedAt)],
);

/** One row: how far the fan-out has read the `events` table, by its rowid (commit order). */
export const webhookFanout = sqliteTable('webhook_fanout', {
  id: integer('id').primaryKey(),
  lastEventRowid: integer('last_event_rowid').notNull(),
});
