import type * as z from 'zod';
import type { Scope } from '../scope.ts';
import { getProjectRow, projectStatements } from './queries.ts';
import { toProjectUserRecord } from './records.ts';
import type { listProjectUsersOutput, projectIdInput } from './schemas.ts';
import { requireProjectManager } from './access.ts';

/** Endpoint 6: every user of a project, in the order they joined. */
export function listProjectUsers(scope: Scope, input: z.output<typeof projectIdInput>): z.output<typeof listProjectUsersOutput> {
  requireProjectManager(scope, input.project_id, 'see this project');
  const project = getProjectRow(scope, input.project_id);
  const rows = scope.statements(projectStatements).usersOfProject.all({ projectId: project.id });
  return { project_users: rows.map((row) => toProjectUserRecord(row, project.currency)) };
}
