import { forbidden } from '../../errors.ts';
import { actsAsAdmin } from '../access.ts';
import type { Scope } from '../scope.ts';
import { projectStatements } from './queries.ts';

function isProjectManager(scope: Pick<Scope, 'statements'>, projectId: string, userId: string): boolean {
  return scope.statements(projectStatements).roleOnProject.get({ projectId, userId })?.role === 'project_manager';
}

/** Owner and Admin (or the workspace key) may change any project; anyone else only a project they manage. */
export function requireProjectManager(scope: Scope, projectId: string, what: string): void {
  if (actsAsAdmin(scope) || (scope.actor && isProjectManager(scope, projectId, scope.actor.id))) return;
  throw forbidden(`Only an Owner, an Admin or a project manager of this project may ${what}`);
}
