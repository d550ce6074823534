import { eq, sql } from 'drizzle-orm';
import type { Database } from '../../db/index.ts';
import { events, webhookDeliveries, webhookEndpoints } from '../../db/schema/index.ts';
import { insertMany } from '../queries.ts';
import type { Scope } from '../scope.ts';
import { fanoutPosition, setFanoutPosition } from './queries.ts';
import { eventTypesOf, pendingDelivery, type DeliveryRow } from './records.ts';
import { ALL_EVENTS } from './schemas.ts';

const anyEnabled = (db: Database) => db.select({ id: webhookEndpoints.id }).from(webhookEndpoints).where(eq(webhookEndpoints.enabled, true)).limit(1).prepare();

/** Events turned into deliveries per transaction. */
const BATCH = 500;

/**
 * Turns committed events into deliveries: one per event and enabled endpoint that wants its type
 * and existed when it happened. Events are read in commit order (rowid, after the stored position)
 * and the position moves in the same transaction as the deliveries it created, so an event is
 * fanned out exactly once and never lost. While no endpoint is enabled nothing is read or written.
 */
export function fanOutEvents(scope: Scope): { events: number; more: boolean } {
  // Most writes happen with no endpoint at all: then not even a transaction is opened.
  if (!scope.statements(anyEnabled).get()) return { events: 0, more: false };
  return scope.write((tx) => {
    const endpoints = tx
      .select({ id: webhookEndpoints.id, eventTypes: webhookEndpoints.eventTypes, createdAt: webhookEndpoints.createdAt })
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.enabled, true))
      .all()
      .map((e) => ({ ...e, types: new Set(eventTypesOf(e)) }));
    if (endpoints.length === 0) return { events: 0, more: false };
    const rows = tx
      .select({ rowid: sql<number>`${events}.rowid`, id: events.id, type: events.type, createdAt: events.createdAt })
      .from(events)
      .where(sql`${events}.rowid > ${fanoutPosition(tx)}`)
      .orderBy(sql`${events}.rowid`)
      .limit(BATCH)
      .all();
    const last = rows.at(-1);
    if (!last) return { events: 0, more: false };
    const at = scope.now.toISOString();
    const deliveries: DeliveryRow[] = [];
    for (const event of rows) {
      for (const endpoint of endpoints) {
        if (endpoint.createdAt > event.createdAt || !(endpoint.types.has(ALL_EVENTS) || endpoint.types.has(event.type))) continue;
        deliveries.push(pendingDelivery(endpoint.id, event.id, at, false));
      }
    }
    insertMany(tx, webhookDeliveries, deliveries);
    setFanoutPosition(tx, last.rowid);
    return { events: rows.length, more: rows.length === BATCH };
  });
}
