import { eq } from 'drizzle-orm';
import type * as z from 'zod';
import { projects } from '../../db/schema/index.ts';
import { recordEvent } from '../events.ts';
import type { ActorScope } from '../scope.ts';
import { requireProjectManager } from './access.ts';
import { Problems } from './problems.ts';
import { getProjectRow, loadProjectWithTasks, projectStatements } from './queries.ts';
import { toProjectRecord, type ProjectRow } from './records.ts';
import type { UpdateProjectFields, updateProjectInput, updateProjectOutput } from './schemas.ts';
import { resolveSettings } from './settings.ts';
import { applyTaskPlan, planTasks } from './task-plan.ts';

/** What endpoint 10 does not change, each refused with the reason. */
function refuseFixedFields(current: ProjectRow, fields: UpdateProjectFields, problems: Problems): void {
  if (fields.client_id !== undefined && fields.client_id !== current.clientId) {
    problems.add('project.client_id', 'cannot change: a project and its time entries stay with the client it was created for');
  }
  if (fields.currency !== undefined && fields.currency !== current.currency) {
    problems.add('project.currency', `cannot change: the project's amounts are kept in ${current.currency}`);
  }
  if (fields.status !== undefined && fields.status !== current.status) problems.add('project.status', 'changes only through POST /projects/update_status (endpoint 12)');
  if (fields.project_users_attributes !== undefined && fields.project_users_attributes.length > 0) {
    problems.add('project.project_users_attributes', 'is accepted on create only; add users with POST /projects/{project_id}/project_users');
  }
}

/**
 * Endpoint 10: only the given fields change; the billing rules are checked on the project as it
 * would be afterwards. Tasks and checklist items with an `id` are changed, others added.
 */
export function updateProject(scope: ActorScope, input: z.output<typeof updateProjectInput>): z.output<typeof updateProjectOutput> {
  const fields = input.project;
  return scope.write((tx) => {
    const current = getProjectRow(scope, input.project_id);
    requireProjectManager(scope, current.id, 'update this project');
    const problems = new Problems();
    refuseFixedFields(current, fields, problems);
    const settings = resolveSettings(current, fields, current.currency, problems);
    const at = scope.now.toISOString();
    const st = scope.statements(projectStatements);
    const taskPlan = fields.tasks_attributes?.length
      ? planTasks({
          projectId: current.id,
          existingTasks: st.tasksOfProject.all({ projectId: current.id }),
          existingItems: st.itemsOfProject.all({ projectId: current.id }),
          attributes: fields.tasks_attributes,
          currency: current.currency,
          defaultRateMinor: settings.hourlyRateMinor,
          now: at,
          problems,
        })
      : null;
    problems.throwIfAny();

    tx.update(projects)
      .set({ ...settings, name: fields.name ?? current.name, updatedAt: at })
      .where(eq(projects.id, current.id))
      .run();
    if (taskPlan) applyTaskPlan(tx, taskPlan);
    const project = toProjectRecord(loadProjectWithTasks(scope, current.id));
    recordEvent(scope, 'project.updated', { project });
    return { notice_code: 'project_updated', project };
  });
}
