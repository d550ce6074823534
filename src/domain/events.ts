import { randomBytes } from 'node:crypto';
import type { Db } from '../db/index.ts';
import { events } from '../db/schema/index.ts';
import type { Scope } from './scope.ts';

/** Every kind of event an integration can subscribe to. */
export const EVENT_TYPES = [
  'invoice.created',
  'invoice.sent',
  'invoice.paid',
  'invoice.partially_paid',
  'invoice.voided',
  'invoice.overdue',
  'payment.recorded',
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

/**
 * Records that something happened, inside the transaction of the change itself: a rolled-back
 * change leaves no event, a committed one always has its event. `data` is the API object the
 * change returned (or, for a deletion, what was deleted). Delivery follows the commit.
 */
export function recordEvent(scope: Pick<Scope, 'now' | 'after'>, tx: Db, type: EventType, data: object): string {
  const id = `evt_${randomBytes(16).toString('base64url')}`;
  tx.insert(events)
    .values({ id, type, data: JSON.stringify(data), createdAt: scope.now.toISOString() })
    .run();
  scope.after('webhooks');
  return id;
}
