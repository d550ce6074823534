import { and, eq, inArray, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { projectUsers } from '../../db/schema/index.ts';
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

/** The projects a person manages, as a subquery for `inArray`. */
export const managedProjectIds = (scope: Scope, userId: string) =>
  scope.db
    .select({ id: projectUsers.projectId })
    .from(projectUsers)
    .where(and(eq(projectUsers.userId, userId), eq(projectUsers.role, 'project_manager')));

/**
 * What a listing may show the caller: everything for an Owner, an Admin or the workspace key; for
 * anyone else only the projects they manage (`column` holds a project id).
 */
export function managedOnly(scope: Scope, column: SQLiteColumn): SQL | undefined {
  if (actsAsAdmin(scope) || !scope.actor) return undefined;
  return inArray(column, managedProjectIds(scope, scope.actor.id));
}
