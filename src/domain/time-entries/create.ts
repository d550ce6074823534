import { randomUUID } from 'node:crypto';
import { timeEntryChecklistItems, timeEntryOverrides } from '../../db/schema/index.ts';
import { notFound, unprocessable } from '../../errors.ts';
import type { WorkspaceHandle } from '../../workspaces/handle.ts';
import type { WorkspaceInfo } from '../../workspaces/info.ts';
import type { ActingUser } from '../team-members/acting-user.ts';
import { hoursOf } from '../time/hours.ts';
import { roundUpSeconds } from '../time/rounding.ts';
import { queueApprovalRequests } from './approval-mail.ts';
import {
  assertChecklistItemsOfTask,
  assertPlausibleDate,
  assertProjectActive,
  assertWithinDay,
  checkLock,
  findProject,
  findTaskOfProject,
  initialStatus,
  mayManageProject,
} from './rules.ts';
import type { CreateInput, CreateOutput } from './schemas.ts';
import { timeEntryStatements } from './statements.ts';

export interface CreateResult {
  response: CreateOutput;
  /** Approval requests were queued: wake the outbox worker after the commit. */
  mailQueued: boolean;
}

/**
 * Endpoints 2 and 3. `user` is the team member named by `email`: the entry is theirs, and an
 * override is permitted when they are Owner/Admin or a manager of the project (the body names no
 * other person). Everything happens in one IMMEDIATE transaction, so the 24-hour check and the
 * insert see the same day even with other writers, and a refused request changes nothing.
 */
export function createTimeEntry(handle: WorkspaceHandle, workspace: WorkspaceInfo, user: ActingUser, input: CreateInput, now: Date): CreateResult {
  const st = handle.memo(timeEntryStatements);
  return handle.db.transaction(
    (tx) => {
      const client = st.client.get({ id: input.client_id });
      if (!client) throw notFound('client', `No client with id ${input.client_id} in this workspace`);
      const project = findProject(st, input.project_id);
      if (project.clientId !== input.client_id) {
        throw unprocessable('project_not_of_client', `The project ${project.id} does not belong to the client ${input.client_id}`);
      }
      const task = findTaskOfProject(st, input.task_id, project);
      // An archived client takes no new work, like an archived project (invoices and new projects
      // are refused for it too).
      if (client.status !== 'active') {
        throw unprocessable('client_archived', `The client "${client.name}" is archived; reactivate it to record time for it`);
      }
      assertProjectActive(project);
      const projectUser = st.projectUser.get({ projectId: project.id, userId: user.id });
      if (!projectUser) throw unprocessable('not_a_project_user', `${user.email} is not a user of the project "${project.name}"`);
      const checklist = input.checklist_items ?? [];
      assertChecklistItemsOfTask(st, task.id, checklist);
      assertPlausibleDate(input.recorded_on, now, user.timeZone);

      const lock = checkLock(project, input.recorded_on, user.timeZone, now, {
        requested: input.is_override,
        permitted: mayManageProject(user, projectUser),
      });
      const seconds = roundUpSeconds(input.hours, project.timeRoundUpto);
      assertWithinDay(st, user.id, input.recorded_on, seconds);

      const id = randomUUID();
      const at = now.toISOString();
      const status = initialStatus(project, task, projectUser);
      const notes = input.notes ?? '';
      st.insert.run({
        id,
        clientId: input.client_id,
        projectId: project.id,
        taskId: task.id,
        userId: user.id,
        recordedOn: input.recorded_on,
        enteredSeconds: input.hours,
        seconds,
        notes,
        metadata: input.metadata ? JSON.stringify(input.metadata) : null,
        status,
        // true only when the entry really lies in a locked period (the flag on an open date is moot)
        isOverride: lock.overriddenSince !== null,
        createdAt: at,
        updatedAt: at,
      });
      if (checklist.length > 0) {
        tx.insert(timeEntryChecklistItems)
          .values(checklist.map((c) => ({ timeEntryId: id, checklistItemId: c.id, isCompleted: c.is_completed })))
          .run();
      }
      if (lock.overriddenSince) {
        tx.insert(timeEntryOverrides)
          .values({
            id: randomUUID(),
            timeEntryId: id,
            projectId: project.id,
            recordedOn: input.recorded_on,
            actorId: user.id,
            action: 'create',
            lockedSince: lock.overriddenSince,
            createdAt: at,
          })
          .run();
      }
      let mailQueued = false;
      if (status === 'pending_approval' && project.notifyInstantly) {
        const managers = st.managers.all({ projectId: project.id });
        const line = {
          id,
          recordedOn: input.recorded_on,
          seconds,
          notes,
          userName: `${user.firstName} ${user.lastName}`.trim(),
          userEmail: user.email,
          taskName: task.name,
        };
        mailQueued = queueApprovalRequests(tx, project, line, managers, user.id, now) > 0;
      }
      return {
        mailQueued,
        response: {
          notice_code: 'time_entry_created',
          organization_id: workspace.id,
          subdomain: workspace.subdomain,
          id,
          hours: hoursOf(seconds),
          notes,
          task_id: task.id,
          user_id: user.id,
          user_email: user.email,
          recorded_on: input.recorded_on,
          status,
          created_at: at,
          updated_at: at,
        },
      };
    },
    { behavior: 'immediate' },
  );
}
