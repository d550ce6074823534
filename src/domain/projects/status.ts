import { and, eq, inArray, ne } from 'drizzle-orm';
import type { Transaction } from '../../db/index.ts';
import { projects, projectUsers } from '../../db/schema/index.ts';
import { AppError, forbidden, invalidField } from '../../errors.ts';
import type { WorkspaceHandle } from '../../workspaces/handle.ts';
import { isAdmin, requireAdmin, type ActingUser } from '../team-members/acting-user.ts';
import type { UpdateStatusInput } from './schemas.ts';

const SLICE = 500;

/** How many of the projects the user manages, in one query per slice of ids. */
function managedCount(tx: Transaction, userId: string, ids: string[]): number {
  let n = 0;
  for (let i = 0; i < ids.length; i += SLICE) {
    n += tx
      .select({ id: projectUsers.projectId })
      .from(projectUsers)
      .where(and(eq(projectUsers.userId, userId), eq(projectUsers.role, 'project_manager'), inArray(projectUsers.projectId, ids.slice(i, i + SLICE))))
      .all().length;
  }
  return n;
}

export function statusMessage(moved: number, status: 'active' | 'archived'): string {
  return `${moved} project${moved === 1 ? '' : 's'} ${status === 'archived' ? 'archived' : 'activated'} successfully`;
}

/**
 * Endpoint 12. Listed ids must all exist (else 404 naming the missing ones, and nothing moves).
 * `filter.status` narrows the move to projects currently in that status; with
 * `filter.consider_all_projects` every such project of the workspace moves and `project_ids` is
 * not read. Only projects whose status actually changes are counted and touched.
 */
export function updateProjectStatus(handle: WorkspaceHandle, actor: ActingUser, input: UpdateStatusInput, now: Date): { custom_message: string } {
  const target = input.status;
  const from = input.filter?.status;
  const at = now.toISOString();
  return handle.db.transaction((tx) => {
    if (input.filter?.consider_all_projects === true) {
      requireAdmin(actor, 'change the status of every project');
      const moved = tx
        .update(projects)
        .set({ status: target, updatedAt: at })
        .where(and(ne(projects.status, target), from ? eq(projects.status, from) : undefined))
        .run().changes;
      return { custom_message: statusMessage(moved, target) };
    }

    const ids = [...new Set(input.project_ids)];
    if (ids.length === 0) throw invalidField('project_ids', 'must list at least one project id (or set filter.consider_all_projects)');
    const found: { id: string; status: 'active' | 'archived' }[] = [];
    for (let i = 0; i < ids.length; i += SLICE) {
      found.push(...tx.select({ id: projects.id, status: projects.status }).from(projects).where(inArray(projects.id, ids.slice(i, i + SLICE))).all());
    }
    if (found.length < ids.length) {
      const known = new Set(found.map((p) => p.id));
      const missing = ids.filter((id) => !known.has(id));
      throw new AppError('not_found', 'project_not_found', `No project with id ${missing.join(', ')} in this workspace; nothing was changed`, {
        extra: { missing_ids: missing },
      });
    }
    if (!isAdmin(actor) && managedCount(tx, actor.id, ids) < ids.length) {
      throw forbidden('Only an Owner, an Admin or a project manager of every listed project may change their status');
    }
    const moving = found.filter((p) => p.status !== target && (from === undefined || p.status === from)).map((p) => p.id);
    for (let i = 0; i < moving.length; i += SLICE) {
      tx.update(projects)
        .set({ status: target, updatedAt: at })
        .where(inArray(projects.id, moving.slice(i, i + SLICE)))
        .run();
    }
    return { custom_message: statusMessage(moving.length, target) };
  });
}
