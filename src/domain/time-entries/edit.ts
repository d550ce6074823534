import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Transaction } from '../../db/index.ts';
import { teamMembers, timeEntries, timeEntryChecklistItems, timeEntryOverrides } from '../../db/schema/index.ts';
import { forbidden, notFound, unprocessable } from '../../errors.ts';
import type { WorkspaceHandle } from '../../workspaces/handle.ts';
import type { ActingUser } from '../team-members/acting-user.ts';
import { roundUpSeconds } from '../time/rounding.ts';
import { queueApprovalRequests } from './approval-mail.ts';
import { getEntryRow, recordsByIds, type TimeEntryRow } from './records.ts';
import {
  approvedStatus,
  assertChecklistItemsOfTask,
  assertPlausibleDate,
  assertProjectActive,
  assertWithinDay,
  checkLock,
  findProject,
  findTaskOfProject,
  initialStatus,
  mayManageProject,
  type EntryStatus,
} from './rules.ts';
import type { DeleteInput, TimeEntryRecord, UpdateInput } from './schemas.ts';
import type { ProjectFacts, TaskFacts, ProjectUserFacts } from './statements.ts';
import { timeEntryStatements, type TimeEntryStatements } from './statements.ts';

interface EditScope {
  entry: TimeEntryRow;
  project: ProjectFacts;
  entryUser: { id: string; email: string; firstName: string; lastName: string; timeZone: string };
  /** The actor is Owner/Admin or a manager of the entry's project: may override locks and approve. */
  actorManages: boolean;
}

/**
 * Who may change an entry: its own user, a manager of its project, an Owner or Admin. Billed
 * entries are on an invoice and archived projects are read-only.
 */
function editScope(tx: Transaction, st: TimeEntryStatements, actor: ActingUser, entryId: string): EditScope {
  const entry = getEntryRow(tx, entryId);
  const project = findProject(st, entry.projectId);
  const actorManages = mayManageProject(actor, st.projectUser.get({ projectId: project.id, userId: actor.id }));
  if (entry.userId !== actor.id && !actorManages) {
    throw forbidden("Only the entry's own user, a manager of its project, an Owner or an Admin may change this time entry");
  }
  if (entry.status === 'billed') {
    throw unprocessable('time_entry_billed', `The time entry ${entry.id} is on an invoice; void the invoice to change it`);
  }
  assertProjectActive(project);
  const entryUser = tx
    .select({ id: teamMembers.id, email: teamMembers.email, firstName: teamMembers.firstName, lastName: teamMembers.lastName, timeZone: teamMembers.timeZone })
    .from(teamMembers)
    .where(eq(teamMembers.id, entry.userId))
    .get();
  if (!entryUser) throw notFound('team_member', `The user of time entry ${entry.id} no longer exists`);
  return { entry, project, entryUser, actorManages };
}

function logOverride(tx: Transaction, entry: TimeEntryRow, recordedOn: string, actorId: string, action: 'update' | 'delete', lockedSince: string, at: string) {
  tx.insert(timeEntryOverrides)
    .values({ id: randomUUID(), timeEntryId: entry.id, projectId: entry.projectId, recordedOn, actorId, action, lockedSince, createdAt: at })
    .run();
}

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

export interface EditResult<T> {
  value: T;
  mailQueued: boolean;
}

/** tRPC `timeEntries.update`: only the given fields change, re-checked as on create. */
export function updateTimeEntry(handle: WorkspaceHandle, actor: ActingUser, input: UpdateInput, now: Date): EditResult<TimeEntryRecord> {
  const st = handle.memo(timeEntryStatements);
  return handle.db.transaction(
    (tx) => {
      const { entry, project, entryUser, actorManages } = editScope(tx, st, actor, input.time_entry_id);
      const taskChanged = input.task_id !== undefined && input.task_id !== entry.taskId;
      const task = taskChanged ? findTaskOfProject(st, input.task_id as string, project) : st.task.get({ id: entry.taskId });
      if (!task) throw notFound('task', `The task of time entry ${entry.id} no longer exists`);

      const recordedOn = input.recorded_on ?? entry.recordedOn;
      const dateChanged = recordedOn !== entry.recordedOn;
      if (dateChanged) assertPlausibleDate(recordedOn, now, entryUser.timeZone);

      // Both the period the entry leaves and the one it moves into must be open (or overridden).
      const override = { requested: input.is_override, permitted: actorManages };
      const from = checkLock(project, entry.recordedOn, entryUser.timeZone, now, override);
      const into = dateChanged ? checkLock(project, recordedOn, entryUser.timeZone, now, override) : from;
      const overriddenSince = from.overriddenSince ?? into.overriddenSince;

      if (input.checklist_items) assertChecklistItemsOfTask(st, task.id, input.checklist_items);

      const enteredSeconds = input.hours ?? entry.enteredSeconds;
      const seconds = input.hours !== undefined ? roundUpSeconds(input.hours, project.timeRoundUpto) : entry.seconds;
      const hoursChanged = seconds !== entry.seconds;
      if (dateChanged || hoursChanged) assertWithinDay(st, entry.userId, recordedOn, seconds, entry.id);

      const entryProjectUser = st.projectUser.get({ projectId: project.id, userId: entry.userId });
      const status = statusAfterEdit(entry, project, task, entryProjectUser, actorManages, taskChanged || dateChanged || hoursChanged);
      const at = now.toISOString();
      const notes = input.notes === undefined ? entry.notes : (input.notes ?? '');
      const metadata = input.metadata === undefined ? entry.metadata : input.metadata === null ? null : JSON.stringify(input.metadata);
      tx.update(timeEntries)
        .set({
          taskId: task.id,
          recordedOn,
          enteredSeconds,
          seconds,
          notes,
          metadata,
          status,
          isOverride: entry.isOverride || overriddenSince !== null,
          updatedAt: at,
        })
        .where(eq(timeEntries.id, entry.id))
        .run();

      // Checklist items belong to a task: a new task without a new list leaves none.
      if (input.checklist_items || taskChanged) {
        tx.delete(timeEntryChecklistItems).where(eq(timeEntryChecklistItems.timeEntryId, entry.id)).run();
        const items = input.checklist_items ?? [];
        if (items.length > 0) {
          tx.insert(timeEntryChecklistItems)
            .values(items.map((c) => ({ timeEntryId: entry.id, checklistItemId: c.id, isCompleted: c.is_completed })))
            .run();
        }
      }
      if (overriddenSince) logOverride(tx, entry, from.overriddenSince ? entry.recordedOn : recordedOn, actor.id, 'update', overriddenSince, at);

      let mailQueued = false;
      if (status === 'pending_approval' && entry.status !== 'pending_approval' && project.notifyInstantly) {
        const line = {
          id: entry.id,
          recordedOn,
          seconds,
          notes,
          userName: `${entryUser.firstName} ${entryUser.lastName}`.trim(),
          userEmail: entryUser.email,
          taskName: task.name,
        };
        mailQueued = queueApprovalRequests(tx, project, line, st.managers.all({ projectId: project.id }), entry.userId, now) > 0;
      }
      const [record] = recordsByIds(tx, [entry.id]);
      if (!record) throw notFound('time_entry', `No time entry with id ${entry.id} in this workspace`);
      return { value: record, mailQueued };
    },
    { behavior: 'immediate' },
  );
}

/** tRPC `timeEntries.delete`. The override log keeps its rows after the entry is gone. */
export function deleteTimeEntry(handle: WorkspaceHandle, actor: ActingUser, input: DeleteInput, now: Date): string {
  const st = handle.memo(timeEntryStatements);
  return handle.db.transaction(
    (tx) => {
      const { entry, project, entryUser, actorManages } = editScope(tx, st, actor, input.time_entry_id);
      const lock = checkLock(project, entry.recordedOn, entryUser.timeZone, now, { requested: input.is_override, permitted: actorManages });
      tx.delete(timeEntries)
        .where(eq(timeEntries.id, entry.id))
        .run();
      if (lock.overriddenSince) logOverride(tx, entry, entry.recordedOn, actor.id, 'delete', lock.overriddenSince, now.toISOString());
      return entry.id;
    },
    { behavior: 'immediate' },
  );
}
