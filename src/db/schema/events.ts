import { index, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { id } from './columns.ts';

/**
 * What happened in the workspace, one row per change, written in the same transaction as the change
 * (so an event exists exactly when its change committed). Webhook delivery reads from here.
 */
export const events = sqliteTable(
  'events',
  {
    /** `evt_`, the time and a random part (`eventId`): the `webhook-id` a receiver deduplicates by. */
    id: id(),
    type: text('type').notNull(),
    /** The event's `data` object as JSON. */
    data: text('data').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [index('events_created_idx').on(t.createdAt, t.id), index('events_type_idx').on(t.type, t.createdAt)],
);
