import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Database } from '../db/index.ts';
import { events } from '../db/schema/index.ts';
import type { Scope } from './scope.ts';

/** Every kind of event an integration can subscribe to. */
export const EVENT_TYPES = [
  'invoice.created',
  'invoice.updated',
  'invoice.deleted',
  'invoice.sent',
  'invoice.paid',
  'invoice.partially_paid',
  'invoice.voided',
  'invoice.overdue',
  'payment.recorded',
  'payment.deleted',
  'payment.refunded',
  'time_entry.created',
  'time_entry.updated',
  'time_entry.deleted',
  'time_entry.approved',
  'time_entry.rejected',
  'project.created',
  'project.updated',
  'project.status_changed',
  'client.created',
  'client.updated',
  'client.status_changed',
  'recipient.created',
  'recipient.updated',
  'recipient.deleted',
  'team_member.updated',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

const eventStatements = (db: Database) => ({
  insert: db
    .insert(events)
    .values({ id: sql.placeholder('id'), type: sql.placeholder('type'), data: sql.placeholder('data'), createdAt: sql.placeholder('createdAt') })
    .prepare(),
});

/**
 * `evt_`, the time in milliseconds (12 hex digits) and 80 random bits from `randomUUID` (which draws
 * from a cached pool, where `randomBytes` asks the system on every call). Ids of one moment differ
 * by their random part; the time in front makes new ids sort last, so each insert lands at the end
 * of the id index instead of on a random page of it (one page to write per commit, not one per event).
 */
function eventId(now: Date): string {
  const uuid = randomUUID();
  return `evt_${now.getTime().toString(16).padStart(12, '0')}${uuid.slice(0, 8)}${uuid.slice(24)}`;
}

/**
 * Records that something happened, inside the transaction of the change itself (call it within
 * `scope.write`): a rolled-back
 * change leaves no event, a committed one always has its event. `data` is the API object the
 * change returned (or, for a deletion, what was deleted). Delivery follows the commit.
 */
export function recordEvent(scope: Pick<Scope, 'now' | 'after' | 'statements'>, type: EventType, data: object): string {
  const id = eventId(scope.now);
  // Prepared once per workspace file (it is on every write path); it runs on the same connection,
  // so inside the transaction of the change that calls it.
  scope.statements(eventStatements).insert.run({ id, type, data: JSON.stringify(data), createdAt: scope.now.toISOString() });
  scope.after('webhooks');
  return id;
}
