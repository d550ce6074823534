import { integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/**
 * Every (project, task, person) combination that has time entries, with the first and last day it
 * has them: the reports price and read entries one combination at a time
 * (src/domain/reports/entry-totals.ts). Kept by triggers on `time_entries` (after an insert, and
 * after an update of any of the four columns), which only ever add a combination or widen its
 * days, so it is always a superset of the truth: a deleted or moved entry leaves a combination
 * that a report finds empty, never one that is missing. The same triggers set the entry's
 * `combo_id` to its combination's `id`.
 *
 * The triggers, their backfill and the reports' covering index are written by hand in
 * db/migrations/0010_entry_combination_ids.sql (drizzle-kit expresses neither triggers nor an
 * index expression with commas); keep that migration when migrations are regenerated
 * (test/reports.schema.test.ts fails without it).
 */
export const timeEntryCombos = sqliteTable(
  'time_entry_combos',
  {
    /**
     * The combination's number, never reused or changed (an INTEGER PRIMARY KEY keeps its value
     * through VACUUM): each entry carries it in `time_entries.combo_id`, so the reports' indexes
     * are keyed by one small integer instead of three UUIDs.
     */
    id: integer('id').primaryKey(),
    projectId: text('project_id').notNull(),
    taskId: text('task_id').notNull(),
    userId: text('user_id').notNull(),
    /** The earliest `recorded_on` an entry of the combination has had. */
    firstOn: text('first_on').notNull(),
    /** The latest `recorded_on` an entry of the combination has had. */
    lastOn: text('last_on').notNull(),
  },
  (t) => [uniqueIndex('time_entry_combos_key').on(t.projectId, t.taskId, t.userId)],
);
