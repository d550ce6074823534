import { eq } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { teamMembers, timeEntries, timeEntryChecklistItems } from '../../db/schema/index.ts';
import { notFound } from '../../errors.ts';
import { groupBy, inIds } from '../queries.ts';
import { hoursOf } from '../time/hours.ts';
import type { TimeEntryRecord } from './schemas.ts';

export type TimeEntryRow = typeof timeEntries.$inferSelect;
/** `combo_id` is the reports' (kept by triggers); a record never shows it. */
type RowWithEmail = Omit<TimeEntryRow, 'comboId'> & { userEmail: string };

/** The columns of an entry plus its user's e-mail, for select lists. */
export const rowWithEmailColumns = {
  id: timeEntries.id,
  clientId: timeEntries.clientId,
  projectId: timeEntries.projectId,
  taskId: timeEntries.taskId,
  userId: timeEntries.userId,
  recordedOn: timeEntries.recordedOn,
  enteredSeconds: timeEntries.enteredSeconds,
  seconds: timeEntries.seconds,
  notes: timeEntries.notes,
  metadata: timeEntries.metadata,
  status: timeEntries.status,
  isOverride: timeEntries.isOverride,
  invoiceId: timeEntries.invoiceId,
  createdAt: timeEntries.createdAt,
  updatedAt: timeEntries.updatedAt,
  userEmail: teamMembers.email,
};

export function getEntryRow(db: Db, id: string): TimeEntryRow {
  const row = db.select().from(timeEntries).where(eq(timeEntries.id, id)).get();
  if (!row) throw notFound('time_entry', `No time entry with id ${id} in this workspace`);
  return row;
}

/** Full records for rows, with every checklist item fetched in one query. */
export function toRecords(db: Db, rows: RowWithEmail[]): TimeEntryRecord[] {
  const checklist = db
    .select()
    .from(timeEntryChecklistItems)
    .where(
      inIds(
        timeEntryChecklistItems.timeEntryId,
        rows.map((r) => r.id),
      ),
    )
    .all();
  const items = groupBy(checklist, (c) => c.timeEntryId);
  return rows.map((row) => ({
    id: row.id,
    client_id: row.clientId,
    project_id: row.projectId,
    task_id: row.taskId,
    user_id: row.userId,
    user_email: row.userEmail,
    recorded_on: row.recordedOn,
    hours: hoursOf(row.seconds),
    seconds: row.seconds,
    entered_seconds: row.enteredSeconds,
    notes: row.notes,
    metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as Record<string, unknown>),
    checklist_items: (items.get(row.id) ?? []).map((c) => ({ id: c.checklistItemId, is_completed: c.isCompleted })),
    status: row.status,
    is_override: row.isOverride,
    invoice_id: row.invoiceId,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  }));
}

export function recordsByIds(db: Db, ids: string[]): TimeEntryRecord[] {
  const rows = db.select(rowWithEmailColumns).from(timeEntries).innerJoin(teamMembers, eq(teamMembers.id, timeEntries.userId)).where(inIds(timeEntries.id, ids)).all();
  const order = new Map(ids.map((id, i) => [id, i]));
  rows.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
  return toRecords(db, rows);
}
