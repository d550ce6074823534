import { eq } from 'drizzle-orm';
import type * as z from 'zod';
import { projectUsers } from '../../db/schema/index.ts';
import { notFound } from '../../errors.ts';
import type { ActorScope } from '../scope.ts';
import { requireProjectManager } from './access.ts';
import { Problems } from './problems.ts';
import { getProjectRow, projectStatements } from './queries.ts';
import { toProjectUserRecord } from './records.ts';
import type { updateProjectUserInput, updateProjectUserOutput } from './schemas.ts';

/**
 * Changes a project user's role, rate or approval type: Owner, Admin or a project manager of the
 * project. Only the given fields change; a body that changes nothing leaves `updated_at` alone. A
 * new rate applies to what is invoiced from now on; a new approval type to entries recorded from
 * now on (entries already waiting keep waiting).
 */
export function updateProjectUser(scope: ActorScope, input: z.output<typeof updateProjectUserInput>): z.output<typeof updateProjectUserOutput> {
  return scope.write((tx) => {
    const project = getProjectRow(scope, input.project_id);
    requireProjectManager(scope, project.id, "change this project's users");
    const current = scope.statements(projectStatements).userOfProject.get({ id: input.project_user_id, projectId: project.id });
    if (!current) throw notFound('project_user', `No project user with id ${input.project_user_id} on this project`);
    const changes = input.project_user ?? {};
    const problems = new Problems();
    const rate = changes.hourly_rate === undefined ? current.hourlyRateMinor : problems.minor('project_user.hourly_rate', changes.hourly_rate, project.currency);
    problems.throwIfAny();
    const next = {
      ...current,
      role: changes.role ?? current.role,
      hourlyRateMinor: rate ?? current.hourlyRateMinor,
      approvalType: changes.approval_type ?? current.approvalType,
    };
    if (next.role !== current.role || next.hourlyRateMinor !== current.hourlyRateMinor || next.approvalType !== current.approvalType) {
      next.updatedAt = scope.now.toISOString();
      tx.update(projectUsers)
        .set({ role: next.role, hourlyRateMinor: next.hourlyRateMinor, approvalType: next.approvalType, updatedAt: next.updatedAt })
        .where(eq(projectUsers.id, current.id))
        .run();
    }
    return { notice_code: 'project_user_updated', project_user: toProjectUserRecord(next, project.currency) };
  });
}
