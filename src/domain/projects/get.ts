import type * as z from 'zod';
import type { Scope } from '../scope.ts';
import { loadProjectWithTasks, projectStatements } from './queries.ts';
import { toProjectRecord, toProjectUserDetail } from './records.ts';
import type { getProjectOutput, projectIdInput } from './schemas.ts';
import { requireProjectManager } from './access.ts';

/** tRPC `projects.get`: the project with its tasks, checklist items and users. */
export function getProject(scope: Scope, input: z.output<typeof projectIdInput>): z.output<typeof getProjectOutput> {
  requireProjectManager(scope, input.project_id, 'see this project');
  const project = loadProjectWithTasks(scope, input.project_id);
  const users = scope.statements(projectStatements).usersOfProject.all({ projectId: project.id });
  return { project: { ...toProjectRecord(project), project_users: users.map((u) => toProjectUserDetail(u, project.currency)) } };
}
