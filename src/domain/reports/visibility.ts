import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { projects, projectUsers } from '../../db/schema/index.ts';
import { forbidden } from '../../errors.ts';
import { isAdmin, requireAdmin } from '../access.ts';
import { inIds } from '../queries.ts';
import type { Scope } from '../scope.ts';

/**
 * Which time entries a report counts: the filters of the request, narrowed to what the caller may
 * see. The workspace's key (no person named), an Owner and an Admin see every entry; a Member sees
 * their own entries and every entry of the projects they manage (`project_manager`).
 */
export interface EntryScope {
  /** Projects whose entries count; null: every project. */
  projects: ReadonlySet<string> | null;
  /** People whose entries count; null: everyone. */
  users: ReadonlySet<string> | null;
  /** Set for a Member: only their own entries and those of the projects they manage are visible. */
  member: { id: string; managed: ReadonlySet<string> } | null;
}

export interface EntryFilters {
  client_ids?: readonly string[] | undefined;
  project_ids?: readonly string[] | undefined;
  user_ids?: readonly string[] | undefined;
}

function managedProjects(db: Db, userId: string): Set<string> {
  const rows = db
    .select({ projectId: projectUsers.projectId })
    .from(projectUsers)
    .where(and(eq(projectUsers.userId, userId), eq(projectUsers.role, 'project_manager')))
    .all();
  return new Set(rows.map((r) => r.projectId));
}

/**
 * The entries a request may count. A Member naming someone else in `user_ids` gets 403 unless the
 * request is limited (`project_ids`) to projects they manage: other people's time is theirs to see
 * only there. Unknown ids simply match nothing, as in every listing.
 */
export function entryScope(scope: Scope, filters: EntryFilters): EntryScope {
  const actor = scope.actor;
  const member = actor && !isAdmin(actor) ? { id: actor.id, managed: managedProjects(scope.db, actor.id) } : null;
  if (member && filters.user_ids?.some((u) => u !== member.id)) {
    const onManaged = filters.project_ids !== undefined && filters.project_ids.every((p) => member.managed.has(p));
    if (!onManaged) {
      throw forbidden("A Member sees other people's time only on projects they manage: name those projects in project_ids");
    }
  }
  let projectSet: Set<string> | null = filters.project_ids ? new Set(filters.project_ids) : null;
  if (filters.client_ids) {
    const ofClients = scope.db.select({ id: projects.id }).from(projects).where(inIds(projects.clientId, filters.client_ids)).all();
    const ids = ofClients.map((p) => p.id).filter((id) => !projectSet || projectSet.has(id));
    projectSet = new Set(ids);
  }
  return { projects: projectSet, users: filters.user_ids ? new Set(filters.user_ids) : null, member };
}

/**
 * Which combinations count in a report of this scope, as an SQL condition over the project and
 * person columns `project` and `user`, with the values of its named parameters; an empty
 * condition when everything counts.
 */
export function visibleSql(entries: EntryScope, project: string, user: string): { sql: string; params: Record<string, string> } {
  const parts: string[] = [];
  const params: Record<string, string> = {};
  const ids = (name: string, set: ReadonlySet<string>) => {
    params[name] = JSON.stringify([...set]);
    return `(SELECT value FROM json_each(:${name}))`;
  };
  if (entries.projects) parts.push(`${project} IN ${ids('scopeProjects', entries.projects)}`);
  if (entries.users) parts.push(`${user} IN ${ids('scopeUsers', entries.users)}`);
  const m = entries.member;
  if (m) {
    params.scopeMember = m.id;
    parts.push(`(${user} = :scopeMember OR ${project} IN ${ids('scopeManaged', m.managed)})`);
  }
  return { sql: parts.join(' AND '), params };
}

/** Money reports (receivables, payments, invoices) are for Owners and Admins (and the workspace key). */
export const requireMoneyReader = (scope: Scope) => requireAdmin(scope, 'see invoices, payments and receivables');
