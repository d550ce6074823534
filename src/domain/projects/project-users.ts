import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { approvalTypes, projectUserRoles, projectUsers, timers } from '../../db/schema/index.ts';
import { notFound } from '../../errors.ts';
import type { Scope } from '../scope.ts';
import { requireProjectManager } from './access.ts';
import { Problems } from './problems.ts';
import { getProjectRow, projectStatements } from './queries.ts';
import { toProjectUserDetail } from './records.ts';
import { projectUserDetail } from './schemas.ts';

/** Changing and removing a project's users (adding is endpoints 4 and 5, `projects.addUser`). */

export const updateProjectUserInput = z.object({
  project_id: z.string(),
  user_id: z.string(),
  role: z.enum(projectUserRoles, { message: 'must be project_manager or regular_user' }).optional(),
  hourly_rate: z.number({ message: 'must be a number' }).min(0, 'must not be negative').max(1_000_000_000).optional(),
  approval_type: z.enum(approvalTypes, { message: 'must be manual_approval or auto_approval' }).optional(),
});
export const updateProjectUserOutput = z.object({ notice_code: z.literal('project_user_updated'), project_user: projectUserDetail });
export const removeProjectUserInput = z.object({ project_id: z.string(), user_id: z.string() });
export const removeProjectUserOutput = z.object({ notice_code: z.literal('project_user_removed'), user_id: z.string() });

function membership(scope: Scope, projectId: string, userId: string) {
  const row = scope.statements(projectStatements).usersOfProject.all({ projectId }).find((u) => u.userId === userId);
  if (!row) throw notFound('project_user', 'This team member is not a user of the project');
  return row;
}

/** `projects.updateUser`: a user's role, rate or approval type on the project. */
export function updateProjectUser(scope: Scope, input: z.output<typeof updateProjectUserInput>): z.output<typeof updateProjectUserOutput> {
  return scope.write((tx) => {
    const project = getProjectRow(scope, input.project_id);
    requireProjectManager(scope, project.id, "change this project's users");
    const current = membership(scope, project.id, input.user_id);
    const problems = new Problems();
    const rate = input.hourly_rate === undefined ? current.hourlyRateMinor : problems.minor('hourly_rate', input.hourly_rate, project.currency);
    problems.throwIfAny();
    const next = {
      ...current,
      role: input.role ?? current.role,
      approvalType: input.approval_type ?? current.approvalType,
      hourlyRateMinor: rate ?? current.hourlyRateMinor,
      updatedAt: scope.now.toISOString(),
    };
    tx.update(projectUsers)
      .set({ role: next.role, approvalType: next.approvalType, hourlyRateMinor: next.hourlyRateMinor, updatedAt: next.updatedAt })
      .where(eq(projectUsers.id, current.id))
      .run();
    return { notice_code: 'project_user_updated', project_user: toProjectUserDetail(next, project.currency) };
  });
}

/**
 * `projects.removeUser`: the member records no more time on the project (a timer running on it
 * stops without recording). Their recorded entries stay, with their rates.
 */
export function removeProjectUser(scope: Scope, input: z.output<typeof removeProjectUserInput>): z.output<typeof removeProjectUserOutput> {
  return scope.write((tx) => {
    const project = getProjectRow(scope, input.project_id);
    requireProjectManager(scope, project.id, "change this project's users");
    const current = membership(scope, project.id, input.user_id);
    tx.delete(projectUsers).where(eq(projectUsers.id, current.id)).run();
    tx.delete(timers).where(and(eq(timers.memberId, input.user_id), eq(timers.projectId, project.id))).run();
    return { notice_code: 'project_user_removed', user_id: input.user_id };
  });
}
