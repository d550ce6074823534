import { sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { clients } from './clients.ts';
import { projects, tasks } from './projects.ts';
import { teamMembers } from './workspace.ts';

/** A member's running timer (at most one); stopping it records a time entry for the elapsed time. */
export const timers = sqliteTable('timers', {
  memberId: text('member_id')
    .primaryKey()
    .references(() => teamMembers.id, { onDelete: 'cascade' }),
  clientId: text('client_id')
    .notNull()
    .references(() => clients.id),
  projectId: text('project_id')
    .notNull()
    .references(() => projects.id),
  taskId: text('task_id')
    .notNull()
    .references(() => tasks.id),
  notes: text('notes').notNull().default(''),
  startedAt: text('started_at').notNull(),
  /**
   * `YYYY-MM-DD`: the day the timer started by the person's calendar then; stopping it records the
   * entry on this day even if the person's time zone changed meanwhile. Null for a timer started
   * before the column existed (its day is then read in the person's zone at stop).
   */
  startedOn: text('started_on'),
});
