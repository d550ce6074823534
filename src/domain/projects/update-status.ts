import { and, eq } from 'drizzle-orm';
import type * as z from 'zod';
import { projects, projectUsers } from '../../db/schema/index.ts';
import { forbidden, invalidField } from '../../errors.ts';
import { actsAsAdmin, requireAdmin } from '../access.ts';
import { recordEvent } from '../events.ts';
import { inIds } from '../queries.ts';
import type { ActorScope } from '../scope.ts';
import { loadProjectsWithTasks } from './queries.ts';
import { toProjectRecord } from './records.ts';
import { changeStatus } from '../status-change.ts';
import type { updateStatusInput, updateStatusOutput } from './schemas.ts';

function statusMessage(moved: number, status: 'active' | 'archived'): string {
  return `${moved} project${moved === 1 ? '' : 's'} ${status === 'archived' ? 'archived' : 'activated'} successfully`;
}

/**
 * Endpoint 12. Listed ids must all exist (else 404 naming the missing ones, and nothing moves).
 * `filter.status` narrows the move to projects currently in that status; with
 * `filter.consider_all_projects` every such project of the workspace moves and `project_ids` is
 * not read. Only projects whose status actually changes are counted and touched.
 */
export function updateProjectStatus(scope: ActorScope, input: z.output<typeof updateStatusInput>): z.output<typeof updateStatusOutput> {
  const to = input.status;
  const from = input.filter?.status;
  const at = scope.now.toISOString();
  return scope.write((tx) => {
    const announce = (moved: string[]) => {
      for (const project of loadProjectsWithTasks(tx, moved)) recordEvent(scope, 'project.status_changed', { project: toProjectRecord(project) });
      return { custom_message: statusMessage(moved.length, to) };
    };
    if (input.filter?.consider_all_projects === true) {
      requireAdmin(scope, 'change the status of every project');
      const all = tx.select({ id: projects.id }).from(projects).all();
      const moved = changeStatus(tx, { resource: 'project', table: projects, ids: all.map((p) => p.id), to, from, at });
      return announce(moved);
    }
    if (input.project_ids.length === 0) throw invalidField('project_ids', 'must list at least one project id (or set filter.consider_all_projects)');
    const moved = changeStatus(tx, {
      resource: 'project',
      table: projects,
      ids: input.project_ids,
      to,
      from,
      at,
      authorize: (ids) => {
        if (actsAsAdmin(scope)) return;
        const managed = tx
          .select({ id: projectUsers.projectId })
          .from(projectUsers)
          .where(and(eq(projectUsers.userId, scope.actor.id), eq(projectUsers.role, 'project_manager'), inIds(projectUsers.projectId, ids)))
          .all().length;
        if (managed < ids.length) throw forbidden('Only an Owner, an Admin or a project manager of every listed project may change their status');
      },
    });
    return announce(moved);
  });
}
