import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { bool, id, timestamps } from './columns.ts';
import { clients } from './clients.ts';
import { checklistItems, projects, tasks } from './projects.ts';
import { teamMembers } from './workspace.ts';

export const timeEntryStatuses = ['pending_approval', 'unbilled', 'non_billable', 'billed', 'rejected'] as const;

export const timeEntries = sqliteTable(
  'time_entries',
  {
    id: id(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id),
    taskId: text('task_id')
      .notNull()
      .references(() => tasks.id),
    userId: text('user_id')
      .notNull()
      .references(() => teamMembers.id),
    /** `YYYY-MM-DD`, the user's local date. */
    recordedOn: text('recorded_on').notNull(),
    /** The duration as sent, in seconds. */
    enteredSeconds: integer('entered_seconds').notNull(),
    /** The duration after the project's rounding; this is what is reported and billed. */
    seconds: integer('seconds').notNull(),
    notes: text('notes').notNull().default(''),
    /** JSON text of the free-form metadata object, or null. */
    metadata: text('metadata'),
    status: text('status', { enum: timeEntryStatuses }).notNull(),
    isOverride: bool('is_override').notNull().default(false),
    invoiceId: text('invoice_id'),
    /**
     * The entry's (project, task, person) combination in `time_entry_combos`. Set by the triggers
     * that keep that table (after an insert, and after a change of any of the four columns), never
     * by the application; null only inside the statement that inserts the entry.
     */
    comboId: integer('combo_id'),
    ...timestamps,
  },
  (t) => [
    index('time_entries_user_day_idx').on(t.userId, t.recordedOn),
    index('time_entries_project_day_idx').on(t.projectId, t.recordedOn),
    /**
     * Only the entries awaiting approval, by project and day: the approval list and the weekly digest
     * read nothing else by status. No index on `status` or `invoice_id` as such: billing moves every
     * entry of an invoice, and each index it moves through costs it about a millisecond per 1,000
     * entries (`npm run bench`, invoices); an invoice finds its entries through its lines.
     */
    index('time_entries_pending_idx')
      .on(t.projectId, t.recordedOn)
      .where(sql`${t.status} = 'pending_approval'`),
    index('time_entries_created_idx').on(t.createdAt, t.id),
    index('time_entries_updated_idx').on(t.updatedAt),
    /*
     * Not declared here: `time_entries_report_idx` on (combo_id, substr(recorded_on, 1, 7), status,
     * recorded_on, seconds), the covering index of the reports,
     * in which each combination's entries are ordered by month and status so its totals stream out
     * without a sort. drizzle-kit splits index expressions at commas, so it is created in the
     * hand-written migration named in src/db/schema/reports.ts.
     */
    /** Only the entries an invoice could take now: the unbilled summary reads nothing else. */
    index('time_entries_unbilled_idx')
      .on(t.comboId, t.recordedOn, t.seconds)
      .where(sql`${t.status} = 'unbilled'`),
    /** Time-entry exports page through the entries by day (keyset on day and rowid). */
    index('time_entries_day_idx').on(t.recordedOn),
  ],
);

export const timeEntryChecklistItems = sqliteTable(
  'time_entry_checklist_items',
  {
    timeEntryId: text('time_entry_id')
      .notNull()
      .references(() => timeEntries.id, { onDelete: 'cascade' }),
    checklistItemId: text('checklist_item_id')
      .notNull()
      .references(() => checklistItems.id),
    isCompleted: bool('is_completed').notNull(),
  },
  (t) => [primaryKey({ columns: [t.timeEntryId, t.checklistItemId] })],
);

/** Every autolock override: who created a locked-period entry, which entry, when. */
export const timeEntryOverrides = sqliteTable(
  'time_entry_overrides',
  {
    id: id(),
    /** Not a foreign key: the log outlives a deleted entry. */
    timeEntryId: text('time_entry_id').notNull(),
    /** Copied from the entry, so the log can be read per project after the entry is deleted. */
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id),
    /** The entry's date at the time of the override (for a moved entry, the locked one). */
    recordedOn: text('recorded_on').notNull(),
    actorId: text('actor_id')
      .notNull()
      .references(() => teamMembers.id),
    /** What was done under the override: `create`, `update` or `delete`. */
    action: text('action').notNull(),
    /** The local date from which the entry's period was locked. */
    lockedSince: text('locked_since').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [
    index('time_entry_overrides_created_idx').on(t.createdAt, t.id),
    index('time_entry_overrides_project_idx').on(t.projectId, t.createdAt, t.id),
  ],
);

/** One row per project and week for which the weekly approval digest was sent, so it is sent once. */
export const approvalDigests = sqliteTable(
  'approval_digests',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id),
    /** The local date of the scheduled send, `YYYY-MM-DD`. */
    sentFor: text('sent_for').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.sentFor] })],
);
