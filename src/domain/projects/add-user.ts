import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type * as z from 'zod';
import { projectUsers, teamMembers } from '../../db/schema/index.ts';
import { conflict, invalidField } from '../../errors.ts';
import type { ActorScope } from '../scope.ts';
import { requireProjectManager } from './access.ts';
import { Problems } from './problems.ts';
import { memberProblem } from './project-users-plan.ts';
import { getProjectRow, projectStatements } from './queries.ts';
import { toProjectUserRecord, type ProjectUserRow } from './records.ts';
import type { addProjectUserInput, addProjectUserOutput } from './schemas.ts';

/** Endpoints 4 and 5: puts a team member on a project. */
export function addProjectUser(scope: ActorScope, input: z.output<typeof addProjectUserInput>): z.output<typeof addProjectUserOutput> {
  return scope.write((tx) => {
    const project = getProjectRow(scope, input.project_id);
    requireProjectManager(scope, project.id, 'add users to this project');
    const { user_id: userId } = input.project_user;
    const member = tx.select().from(teamMembers).where(eq(teamMembers.id, userId)).get();
    const problem = memberProblem(member);
    if (problem || !member) throw invalidField('project_user.user_id', problem ?? 'is not a team member of this workspace');
    if (scope.statements(projectStatements).roleOnProject.get({ projectId: project.id, userId })) {
      throw conflict('project_user_exists', `${member.email} is already a user of this project`);
    }
    const problems = new Problems();
    const rate =
      input.project_user.hourly_rate === undefined
        ? project.hourlyRateMinor
        : problems.minor('project_user.hourly_rate', input.project_user.hourly_rate, project.currency);
    problems.throwIfAny();
    const at = scope.now.toISOString();
    const row: ProjectUserRow = {
      id: randomUUID(),
      projectId: project.id,
      userId,
      role: input.project_user.role,
      hourlyRateMinor: rate ?? 0,
      approvalType: input.project_user.approval_type,
      createdAt: at,
      updatedAt: at,
    };
    tx.insert(projectUsers).values(row).run();
    const withMember = { ...row, firstName: member.firstName, lastName: member.lastName, memberEmail: member.email, timeZone: member.timeZone, active: member.active };
    return { notice_code: 'project_user_added', project_user: toProjectUserRecord(withMember, project.currency) };
  });
}
