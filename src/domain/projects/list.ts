import { eq, gt } from 'drizzle-orm';
import type * as z from 'zod';
import { projects } from '../../db/schema/index.ts';
import { keysetPage, mapPage } from '../queries.ts';
import type { Scope } from '../scope.ts';
import { loadProjectsWithTasks } from './queries.ts';
import { toProjectRecord } from './records.ts';
import type { listProjectsInput, listProjectsOutput } from './schemas.ts';
import { managedOnly } from './access.ts';

/** tRPC `projects.list`: keyset pages by creation, filtered by client, status and change time; a member sees the projects they manage. */
export function listProjects(scope: Scope, input: z.output<typeof listProjectsInput>): z.output<typeof listProjectsOutput> {
  const page = keysetPage(
    scope.db.select({ id: projects.id, createdAt: projects.createdAt }).from(projects).$dynamic(),
    projects,
    [
      input.client_id === undefined ? undefined : eq(projects.clientId, input.client_id),
      input.status === undefined ? undefined : eq(projects.status, input.status),
      input.updated_since ? gt(projects.updatedAt, input.updated_since) : undefined,
      managedOnly(scope, projects.id),
    ],
    input,
  );
  return mapPage(page, (rows) =>
    loadProjectsWithTasks(
      scope.db,
      rows.map((r) => r.id),
    ).map(toProjectRecord),
  );
}
