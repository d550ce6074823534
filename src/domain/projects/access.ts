import { forbidden } from '../../errors.ts';
import { isAdmin, type ActingUser } from '../team-members/acting-user.ts';
import type { WorkspaceHandle } from '../../workspaces/handle.ts';
import { projectStatements } from './records.ts';

export function isProjectManager(handle: WorkspaceHandle, projectId: string, userId: string): boolean {
  return handle.memo(projectStatements).roleOnProject.get({ projectId, userId })?.role === 'project_manager';
}

/** Owner and Admin may change any project; anyone else only a project they manage (DESIGN.md §3). */
export function requireProjectAdmin(handle: WorkspaceHandle, actor: ActingUser, projectId: string, what: string): void {
  if (isAdmin(actor) || isProjectManager(handle, projectId, actor.id)) return;
  throw forbidden(`Only an Owner, an Admin or a project manager of this project may ${what}`);
}

