import { AppError, forbidden, invalidField, notFound, unprocessable } from '../../errors.ts';
import { isAdmin } from '../access.ts';
import type { ActingUser } from '../team-members/acting-user.ts';
import { addDays, localDate } from '../time/calendar.ts';
import { hoursOf, MAX_DAY_SECONDS } from '../time/hours.ts';
import { lockStateOf } from '../time/autolock.ts';
import type { ProjectFacts, ProjectUserFacts, TaskFacts, TimeEntryStatements } from './queries.ts';

/** Entries may be dated up to a year ahead (planned work), not further: that is a typo. */
const MAX_DAYS_AHEAD = 366;
/** Nothing before this date is real time tracking; it is a mistyped year. */
const EARLIEST_DATE = '2000-01-01';

export function findProject(st: TimeEntryStatements, projectId: string): ProjectFacts {
  const project = st.project.get({ id: projectId });
  if (!project) throw notFound('project', `No project with id ${projectId} in this workspace`);
  return project;
}

/** The task must exist (404), belong to the project and not be archived (422). */
export function findTaskOfProject(st: TimeEntryStatements, taskId: string, project: ProjectFacts): TaskFacts {
  const task = st.task.get({ id: taskId });
  if (!task) throw notFound('task', `No task with id ${taskId} in this workspace`);
  if (task.projectId !== project.id) {
    throw unprocessable('task_not_in_project', `The task ${taskId} does not belong to the project ${project.id}`);
  }
  if (task.archived) throw unprocessable('task_archived', `The task "${task.name}" is archived; time cannot be recorded on it`);
  return task;
}

export function assertProjectActive(project: ProjectFacts): void {
  if (project.status !== 'active') {
    throw unprocessable('project_archived', `The project "${project.name}" is archived; reactivate it to record or change time on it`);
  }
}

/**
 * An archived client takes no new work, like an archived project (invoices and new projects are
 * refused for it too).
 */
export function assertClientActive(client: { name: string; status: string }): void {
  if (client.status !== 'active') {
    throw unprocessable('client_archived', `The client "${client.name}" is archived; reactivate it to record time for it`);
  }
}

/** Time is recorded only by a person on the project (a person taken off it records no more). */
export function assertOnProject(projectUser: ProjectUserFacts | undefined, email: string, project: ProjectFacts): asserts projectUser is ProjectUserFacts {
  if (!projectUser) throw unprocessable('not_a_project_user', `${email} is not a user of the project "${project.name}"`);
}

/** Checklist items must be items of the entry's task, each named once. */
export function assertChecklistItemsOfTask(st: TimeEntryStatements, taskId: string, items: { id: string }[]): void {
  if (items.length === 0) return;
  const known = new Set(st.checklistOfTask.all({ taskId }).map((r) => r.id));
  const seen = new Set<string>();
  items.forEach((item, i) => {
    if (!known.has(item.id)) {
      throw new AppError('unprocessable', 'checklist_item_not_in_task', `The checklist item ${item.id} is not an item of this entry's task`, {
        details: [{ path: `checklist_items.${i}.id`, message: "is not a checklist item of the entry's task" }],
      });
    }
    if (seen.has(item.id)) throw invalidField(`checklist_items.${i}.id`, 'names the same checklist item twice');
    seen.add(item.id);
  });
}

/** Dates are judged on the wall calendar of the entry's user. */
export function assertPlausibleDate(recordedOn: string, now: Date, timeZone: string): void {
  if (recordedOn < EARLIEST_DATE) throw invalidField('recorded_on', `must be on or after ${EARLIEST_DATE}`);
  const latest = addDays(localDate(now, timeZone), MAX_DAYS_AHEAD);
  if (recordedOn > latest) throw invalidField('recorded_on', `must be at most ${MAX_DAYS_AHEAD} days ahead (latest ${latest})`);
}

/** Owner/Admin, or a project manager of this project. */
export const mayManageProject = (actor: ActingUser, actorProjectUser: ProjectUserFacts | undefined) =>
  isAdmin(actor) || actorProjectUser?.role === 'project_manager';

interface LockCheck {
  /** The local date from which the locked period was locked, when an override was used. */
  overriddenSince: string | null;
}

/**
 * Autolock (docs/design.md §5), judged in the time zone of the entry's user. A locked date needs
 * `is_override` (else 422 time_entry_locked) by someone who may manage the project (else 403
 * override_not_permitted). An override on an unlocked date is simply not needed.
 */
export function checkLock(
  project: ProjectFacts,
  recordedOn: string,
  entryUserTimeZone: string,
  now: Date,
  override: { requested: boolean; permitted: boolean },
): LockCheck {
  const state = lockStateOf(
    recordedOn,
    { enabled: project.autolockEnabled, endOfDay: project.lockEndOfDay, endOfWeek: project.lockEndOfWeek, endOfMonth: project.lockEndOfMonth },
    now,
    entryUserTimeZone,
  );
  if (!state.locked) return { overriddenSince: null };
  if (!override.requested) {
    throw unprocessable('time_entry_locked', `Time on ${recordedOn} is locked for this project since ${state.lockedSince}`, {
      locked_since: state.lockedSince,
    });
  }
  if (!override.permitted) {
    throw forbidden('Only an Owner, an Admin or a project manager of this project may override the time lock', 'override_not_permitted');
  }
  return { overriddenSince: state.lockedSince };
}

/** A user's entries on one day may not add up to more than 24 hours. */
export function assertWithinDay(st: TimeEntryStatements, userId: string, recordedOn: string, seconds: number, exceptId = ''): void {
  const already = st.dayTotal.get({ userId, recordedOn, exceptId })?.seconds ?? 0;
  if (already + seconds > MAX_DAY_SECONDS) {
    throw unprocessable(
      'daily_limit_exceeded',
      `This entry would bring the user's time on ${recordedOn} to ${hoursOf(already + seconds)} hours; a day holds at most 24`,
      { recorded_hours: hoursOf(already), remaining_hours: hoursOf(MAX_DAY_SECONDS - already) },
    );
  }
}

export type EntryStatus = 'pending_approval' | 'unbilled' | 'non_billable';

/** Approved (or not needing approval): billable work is unbilled, the rest non-billable. */
export const approvedStatus = (task: TaskFacts): EntryStatus => (task.billable ? 'unbilled' : 'non_billable');

/**
 * With approvals on, entries wait for a manager, except for project users whose approval type is
 * `auto_approval`: their entries are approved as they are recorded.
 */
export function initialStatus(project: ProjectFacts, task: TaskFacts, entryUser: ProjectUserFacts | undefined): EntryStatus {
  if (project.enableApprovals && entryUser?.approvalType !== 'auto_approval') return 'pending_approval';
  return approvedStatus(task);
}
