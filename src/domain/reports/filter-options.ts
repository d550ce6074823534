import { asc, eq } from 'drizzle-orm';
import { clients, projects, projectUsers, teamMembers } from '../../db/schema/index.ts';
import { isAdmin } from '../access.ts';
import { inIds } from '../queries.ts';
import type { Scope } from '../scope.ts';
import { fullName } from '../team-members/records.ts';
import type { FilterOptionsOutput } from './schemas.ts';

/** The projects a Member works on (any role), and those of them they manage. */
function memberProjects(scope: Scope, userId: string): { all: string[]; managed: string[] } {
  const rows = scope.db.select({ projectId: projectUsers.projectId, role: projectUsers.role }).from(projectUsers).where(eq(projectUsers.userId, userId)).all();
  return { all: rows.map((r) => r.projectId), managed: rows.filter((r) => r.role === 'project_manager').map((r) => r.projectId) };
}

/**
 * tRPC `reports.filterOptions`: what the caller may narrow a time report to, for the app's filter
 * lists. Owners, Admins and the workspace key: every client, project and person. A Member: the
 * projects they are on and those projects' clients; themselves, and the people of the projects they
 * manage (whose time they may see there, visibility.ts). Archived ones are included and marked, since
 * past time is reported on them. Names in alphabetical order.
 */
export function reportFilterOptions(scope: Scope): FilterOptionsOutput {
  const { db, actor } = scope;
  const member = actor && !isAdmin(actor) ? memberProjects(scope, actor.id) : null;
  const projectRows = db
    .select({ id: projects.id, name: projects.name, identifier: projects.identifier, client_id: projects.clientId, status: projects.status })
    .from(projects)
    .where(member ? inIds(projects.id, member.all) : undefined)
    .orderBy(asc(projects.name), asc(projects.id))
    .all();
  const clientRows = db
    .select({ id: clients.id, name: clients.name, currency: clients.currency, status: clients.status })
    .from(clients)
    .where(member ? inIds(clients.id, [...new Set(projectRows.map((p) => p.client_id))]) : undefined)
    .orderBy(asc(clients.name), asc(clients.id))
    .all();
  let peopleIds: string[] | null = null;
  if (member && actor) {
    const colleagues = db.select({ userId: projectUsers.userId }).from(projectUsers).where(inIds(projectUsers.projectId, member.managed)).all();
    peopleIds = [...new Set([actor.id, ...colleagues.map((c) => c.userId)])];
  }
  const people = db
    .select({ id: teamMembers.id, firstName: teamMembers.firstName, lastName: teamMembers.lastName, email: teamMembers.email, active: teamMembers.active })
    .from(teamMembers)
    .where(peopleIds ? inIds(teamMembers.id, peopleIds) : undefined)
    .all()
    .map((p) => ({ id: p.id, name: fullName(p), email: p.email, active: p.active }))
    .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  return { clients: clientRows, projects: projectRows, people, managed_project_ids: member ? member.managed : null };
}
