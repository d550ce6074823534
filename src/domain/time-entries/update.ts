import { eq } from 'drizzle-orm';
import type * as z from 'zod';
import type { Transaction } from '../../db/index.ts';
import { timeEntries, timeEntryChecklistItems } from '../../db/schema/index.ts';
import { notFound } from '../../errors.ts';
import { recordEvent } from '../events.ts';
import type { ActorScope } from '../scope.ts';
import { fullName } from '../team-members/records.ts';
import { roundUpSeconds } from '../time/rounding.ts';
import { queueApprovalRequests } from './approval-mail.ts';
import { editableEntry, logOverride, type Editable } from './editable.ts';
import { timeEntryStatements, type ProjectFacts, type ProjectUserFacts, type TaskFacts, type TimeEntryStatements } from './queries.ts';
import { recordsByIds, type TimeEntryRow } from './records.ts';
import {
  approvedStatus,
  assertClientActive,
  assertOnProject,
  assertChecklistItemsOfTask,
  assertPlausibleDate,
  assertWithinDay,
  checkLock,
  findTaskOfProject,
  initialStatus,
  type EntryStatus,
} from './rules.ts';
import type { UpdateInput, updateOutput } from './schemas.ts';

/**
 * The status after an edit. A rejected or pending entry is (re)submitted as if new. An approved one
 * stays approved when no approval is needed, when a manager edits it, or when only its notes,
 * metadata or checklist changed; otherwise its changed work goes back for approval.
 */
function statusAfterEdit(
  entry: TimeEntryRow,
  project: ProjectFacts,
  task: TaskFacts,
  entryProjectUser: ProjectUserFacts | undefined,
  actorManages: boolean,
  workChanged: boolean,
): EntryStatus {
  const initial = initialStatus(project, task, entryProjectUser);
  const wasApproved = entry.status === 'unbilled' || entry.status === 'non_billable';
  if (wasApproved && (initial !== 'pending_approval' || actorManages || !workChanged)) return approvedStatus(task);
  return initial;
}

interface Change {
  task: TaskFacts;
  taskChanged: boolean;
  recordedOn: string;
  enteredSeconds: number;
  seconds: number;
  status: EntryStatus;
  /** Where an override was used: the date whose lock it lifted and since when that was locked. */
  override: { recordedOn: string; lockedSince: string } | null;
}

/** The entry as the request would leave it, every rule checked as on create. */
/**
 * Time moved or added by an edit is new work, refused as on create: for an archived client, or a
 * person taken off the project since. Notes, metadata and checklists of such an entry may still be
 * corrected, and it may be deleted.
 */
function assertTakesTime(st: TimeEntryStatements, entry: TimeEntryRow, project: ProjectFacts, entryProjectUser: ProjectUserFacts | undefined, email: string): void {
  const client = st.client.get({ id: entry.clientId });
  if (client) assertClientActive(client);
  assertOnProject(entryProjectUser, email, project);
}

function planChange(scope: ActorScope, st: TimeEntryStatements, target: Editable, input: UpdateInput): Change {
  const { entry, project, entryUser, actorManages } = target;
  const taskChanged = input.task_id !== undefined && input.task_id !== entry.taskId;
  const task = taskChanged ? findTaskOfProject(st, input.task_id as string, project) : st.task.get({ id: entry.taskId });
  if (!task) throw notFound('task', `The task of time entry ${entry.id} no longer exists`);

  const recordedOn = input.recorded_on ?? entry.recordedOn;
  const dateChanged = recordedOn !== entry.recordedOn;
  if (dateChanged) assertPlausibleDate(recordedOn, scope.now, entryUser.timeZone);
  // Both the period the entry leaves and the one it moves into must be open (or overridden).
  const override = { requested: input.is_override, permitted: actorManages };
  const from = checkLock(project, entry.recordedOn, entryUser.timeZone, scope.now, override);
  const into = dateChanged ? checkLock(project, recordedOn, entryUser.timeZone, scope.now, override) : from;

  if (input.checklist_items) assertChecklistItemsOfTask(st, task.id, input.checklist_items);
  const seconds = input.hours !== undefined ? roundUpSeconds(input.hours, project.timeRoundUpto) : entry.seconds;
  const hoursChanged = seconds !== entry.seconds;
  // A rejected entry does not count in its day; any edit resubmits it, so it must fit there again.
  if (dateChanged || hoursChanged || entry.status === 'rejected') assertWithinDay(st, entry.userId, recordedOn, seconds, entry.id);

  const entryProjectUser = st.projectUser.get({ projectId: project.id, userId: entry.userId });
  if (taskChanged || dateChanged || hoursChanged) assertTakesTime(st, entry, project, entryProjectUser, entryUser.email);
  const lockedSince = from.overriddenSince ?? into.overriddenSince;
  return {
    task,
    taskChanged,
    recordedOn,
    enteredSeconds: input.hours ?? entry.enteredSeconds,
    seconds,
    status: statusAfterEdit(entry, project, task, entryProjectUser, actorManages, taskChanged || dateChanged || hoursChanged),
    override: lockedSince ? { recordedOn: from.overriddenSince ? entry.recordedOn : recordedOn, lockedSince } : null,
  };
}

function writeChange(tx: Transaction, entry: TimeEntryRow, change: Change, input: UpdateInput, at: string): string {
  const notes = input.notes === undefined ? entry.notes : (input.notes ?? '');
  const metadata = input.metadata === undefined ? entry.metadata : input.metadata === null ? null : JSON.stringify(input.metadata);
  tx.update(timeEntries)
    .set({
      taskId: change.task.id,
      recordedOn: change.recordedOn,
      enteredSeconds: change.enteredSeconds,
      seconds: change.seconds,
      notes,
      metadata,
      status: change.status,
      isOverride: entry.isOverride || change.override !== null,
      updatedAt: at,
    })
    .where(eq(timeEntries.id, entry.id))
    .run();
  // Checklist items belong to a task: a new task without a new list leaves none.
  if (input.checklist_items || change.taskChanged) {
    tx.delete(timeEntryChecklistItems).where(eq(timeEntryChecklistItems.timeEntryId, entry.id)).run();
    const items = input.checklist_items ?? [];
    if (items.length > 0) {
      tx.insert(timeEntryChecklistItems)
        .values(items.map((c) => ({ timeEntryId: entry.id, checklistItemId: c.id, isCompleted: c.is_completed })))
        .run();
    }
  }
  return notes;
}

/** tRPC `timeEntries.update`: only the given fields change, re-checked as on create. */
export function updateTimeEntry(scope: ActorScope, input: UpdateInput): z.output<typeof updateOutput> {
  const st = scope.statements(timeEntryStatements);
  return scope.write((tx) => {
    const target = editableEntry(tx, st, scope.actor, input.time_entry_id);
    const { entry, project, entryUser } = target;
    const change = planChange(scope, st, target, input);
    const at = scope.now.toISOString();
    const notes = writeChange(tx, entry, change, input, at);
    if (change.override) logOverride(tx, entry, { ...change.override, actorId: scope.actor.id, action: 'update', at });
    if (change.status === 'pending_approval' && entry.status !== 'pending_approval' && project.notifyInstantly) {
      const line = { id: entry.id, recordedOn: change.recordedOn, seconds: change.seconds, notes, userName: fullName(entryUser), userEmail: entryUser.email, taskName: change.task.name };
      queueApprovalRequests(scope, tx, project, line, st.managers.all({ projectId: project.id }), entry.userId);
    }
    const [record] = recordsByIds(tx, [entry.id]);
    if (!record) throw notFound('time_entry', `No time entry with id ${entry.id} in this workspace`);
    recordEvent(scope, 'time_entry.updated', { time_entry: record });
    return { notice_code: 'time_entry_updated', time_entry: record };
  });
}
