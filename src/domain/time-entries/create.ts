import { randomUUID } from 'node:crypto';
import type { Transaction } from '../../db/index.ts';
import { timeEntryChecklistItems, timeEntryOverrides } from '../../db/schema/index.ts';
import { forbidden, notFound, unprocessable } from '../../errors.ts';
import { recordEvent } from '../events.ts';
import type { ActorScope } from '../scope.ts';
import { findActingUser, type ActingUser } from '../team-members/acting-user.ts';
import { fullName } from '../team-members/records.ts';
import { hoursOf } from '../time/hours.ts';
import { roundUpSeconds } from '../time/rounding.ts';
import { queueApprovalRequests } from './approval-mail.ts';
import { timeEntryStatements, type ProjectFacts, type ProjectUserFacts, type TaskFacts, type TimeEntryStatements } from './queries.ts';
import {
  assertChecklistItemsOfTask,
  assertClientActive,
  assertOnProject,
  assertPlausibleDate,
  assertProjectActive,
  assertWithinDay,
  checkLock,
  findProject,
  findTaskOfProject,
  initialStatus,
  mayManageProject,
} from './rules.ts';
import type { CreateInput, CreateOutput, TimeEntryRecord } from './schemas.ts';

interface Target {
  project: ProjectFacts;
  task: TaskFacts;
  projectUser: ProjectUserFacts;
  /** The actor is Owner/Admin or a manager of the project: may override locks, record for others. */
  actorManages: boolean;
}

/** The client, project and task the entry names, each checked; the user must be on the project. */
export function resolveTarget(st: TimeEntryStatements, input: Pick<CreateInput, 'client_id' | 'project_id' | 'task_id'>, user: ActingUser, actor: ActingUser): Target {
  const client = st.client.get({ id: input.client_id });
  if (!client) throw notFound('client', `No client with id ${input.client_id} in this workspace`);
  const project = findProject(st, input.project_id);
  if (project.clientId !== input.client_id) {
    throw unprocessable('project_not_of_client', `The project ${project.id} does not belong to the client ${input.client_id}`);
  }
  const task = findTaskOfProject(st, input.task_id, project);
  assertClientActive(client);
  assertProjectActive(project);
  const projectUser = st.projectUser.get({ projectId: project.id, userId: user.id });
  const actorManages = mayManageProject(actor, actor.id === user.id ? projectUser : st.projectUser.get({ projectId: project.id, userId: actor.id }));
  if (actor.id !== user.id && !actorManages) {
    throw forbidden(`Only an Owner, an Admin or a project manager of "${project.name}" may record time for someone else`);
  }
  assertOnProject(projectUser, user.email, project);
  return { project, task, projectUser, actorManages };
}

/**
 * The entry's user: the person `email` names, else the actor. Through the REST contract they are
 * the same person (the workspace key names the actor by `email`); a signed-in member may name
 * someone else, which `resolveTarget` allows only to those who manage the project.
 */
function entryUserOf(scope: ActorScope, email: string | undefined): ActingUser {
  if (email === undefined || email.toLowerCase() === scope.actor.email.toLowerCase()) return scope.actor;
  return findActingUser(scope, email);
}

interface NewEntry {
  id: string;
  seconds: number;
  notes: string;
  status: ReturnType<typeof initialStatus>;
  at: string;
}

/** The entry row, its checklist and, when a locked period was overridden, the override log line. */
function insertEntry(
  tx: Transaction,
  st: TimeEntryStatements,
  input: CreateInput,
  people: { user: ActingUser; actor: ActingUser },
  target: Target,
  entry: NewEntry,
  overriddenSince: string | null,
) {
  const { user } = people;
  st.insert.run({
    id: entry.id,
    clientId: input.client_id,
    projectId: target.project.id,
    taskId: target.task.id,
    userId: user.id,
    recordedOn: input.recorded_on,
    enteredSeconds: input.hours,
    seconds: entry.seconds,
    notes: entry.notes,
    metadata: input.metadata ? JSON.stringify(input.metadata) : null,
    status: entry.status,
    // true only when the entry really lies in a locked period (the flag on an open date is moot)
    isOverride: overriddenSince !== null,
    createdAt: entry.at,
    updatedAt: entry.at,
  });
  const checklist = input.checklist_items ?? [];
  if (checklist.length > 0) {
    tx.insert(timeEntryChecklistItems)
      .values(checklist.map((c) => ({ timeEntryId: entry.id, checklistItemId: c.id, isCompleted: c.is_completed })))
      .run();
  }
  if (overriddenSince) {
    tx.insert(timeEntryOverrides)
      .values({
        id: randomUUID(),
        timeEntryId: entry.id,
        projectId: target.project.id,
        recordedOn: input.recorded_on,
        actorId: people.actor.id,
        action: 'create',
        lockedSince: overriddenSince,
        createdAt: entry.at,
      })
      .run();
  }
}

/**
 * Endpoints 2 and 3. `email` names the entry's user; through the REST contract that person also
 * acts. An override is permitted when the actor is Owner/Admin or a manager of the project; the
 * lock and the 24-hour day are judged for the entry's user. Everything happens in one IMMEDIATE transaction, so the 24-hour check and the insert
 * see the same day even with other writers, and a refused request changes nothing.
 */
export function createTimeEntry(scope: ActorScope, input: CreateInput & { email?: string }): CreateOutput {
  const st = scope.statements(timeEntryStatements);
  const user = entryUserOf(scope, input.email);
  return scope.write((tx) => {
    const target = resolveTarget(st, input, user, scope.actor);
    assertChecklistItemsOfTask(st, target.task.id, input.checklist_items ?? []);
    assertPlausibleDate(input.recorded_on, scope.now, user.timeZone);
    const lock = checkLock(target.project, input.recorded_on, user.timeZone, scope.now, {
      requested: input.is_override,
      permitted: target.actorManages,
    });
    const seconds = roundUpSeconds(input.hours, target.project.timeRoundUpto);
    assertWithinDay(st, user.id, input.recorded_on, seconds);

    const entry: NewEntry = {
      id: randomUUID(),
      seconds,
      notes: input.notes ?? '',
      status: initialStatus(target.project, target.task, target.projectUser),
      at: scope.now.toISOString(),
    };
    insertEntry(tx, st, input, { user, actor: scope.actor }, target, entry, lock.overriddenSince);
    if (entry.status === 'pending_approval' && target.project.notifyInstantly) {
      const line = { id: entry.id, recordedOn: input.recorded_on, seconds, notes: entry.notes, userName: fullName(user), userEmail: user.email, taskName: target.task.name };
      queueApprovalRequests(scope, tx, target.project, line, st.managers.all({ projectId: target.project.id }), user.id);
    }
    const record: TimeEntryRecord = {
      id: entry.id,
      client_id: input.client_id,
      project_id: target.project.id,
      task_id: target.task.id,
      user_id: user.id,
      user_email: user.email,
      recorded_on: input.recorded_on,
      hours: hoursOf(seconds),
      seconds,
      entered_seconds: input.hours,
      notes: entry.notes,
      metadata: input.metadata ?? null,
      checklist_items: input.checklist_items ?? [],
      status: entry.status,
      is_override: lock.overriddenSince !== null,
      invoice_id: null,
      created_at: entry.at,
      updated_at: entry.at,
    };
    recordEvent(scope, 'time_entry.created', { time_entry: record });
    return {
      notice_code: 'time_entry_created',
      organization_id: scope.workspace.id,
      subdomain: scope.workspace.subdomain,
      id: entry.id,
      hours: hoursOf(seconds),
      notes: entry.notes,
      task_id: target.task.id,
      user_id: user.id,
      user_email: user.email,
      recorded_on: input.recorded_on,
      status: entry.status,
      created_at: entry.at,
      updated_at: entry.at,
    };
  });
}
