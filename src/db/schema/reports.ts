import { primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Every (project, task, person) combination that has time entries, with the first and last day it
 * has them: the reports price and read entries one combination at a time
 * (src/domain/reports/entry-totals.ts). Kept by triggers on `time_entries` (after an insert, and
 * after an update of any of the four columns), which only ever add a combination or widen its
 * days, so it is always a superset of the truth: a deleted or moved entry leaves a combination
 * that a report finds empty, never one that is missing.
 *
 * The triggers, their backfill and the reports' covering index are written by hand in
 * db/migrations/0006_reports_triggers_and_month_index.sql (drizzle-kit expresses neither triggers nor an index
 * expression with commas); keep that migration when migrations are regenerated
 * (test/reports.schema.test.ts fails without it).
 */
export const timeEntryCombos = sqliteTable(
  'time_entry_combos',
  {
    projectId: text('project_id').notNull(),
    taskId: text('task_id').notNull(),
    userId: text('user_id').notNull(),
    /** The earliest `recorded_on` an entry of the combination has had. */
    firstOn: text('first_on').notNull(),
    /** The latest `recorded_on` an entry of the combination has had. */
    lastOn: text('last_on').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.taskId, t.userId] })],
);
