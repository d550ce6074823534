import { asc, eq, getTableColumns, sql } from 'drizzle-orm';
import type { Database, Db } from '../../db/index.ts';
import { checklistItems, projects, projectUsers, tasks, teamMembers } from '../../db/schema/index.ts';
import { notFound } from '../../errors.ts';
import { inIds } from '../queries.ts';
import type { Scope } from '../scope.ts';
import type { ProjectRow, ProjectWithTasks } from './records.ts';

const memberColumns = {
  ...getTableColumns(projectUsers),
  firstName: teamMembers.firstName,
  lastName: teamMembers.lastName,
  memberEmail: teamMembers.email,
  timeZone: teamMembers.timeZone,
  active: teamMembers.active,
};

/** Tasks in their listed order, each with its checklist items in order (drizzle relations). */
const withTasks = {
  tasks: {
    orderBy: [asc(tasks.position), asc(tasks.id)],
    with: { checklistItems: { orderBy: [asc(checklistItems.position), asc(checklistItems.id)] } },
  },
};

/** Statements prepared once per open workspace file; they run inside a caller's transaction too. */
export const projectStatements = (db: Database) => ({
  projectById: db.select().from(projects).where(eq(projects.id, sql.placeholder('id'))).prepare(),
  withTasksById: db.query.projects.findFirst({ where: eq(projects.id, sql.placeholder('id')), with: withTasks }).prepare(),
  tasksOfProject: db
    .select()
    .from(tasks)
    .where(eq(tasks.projectId, sql.placeholder('projectId')))
    .orderBy(asc(tasks.position), asc(tasks.id))
    .prepare(),
  itemsOfProject: db
    .select(getTableColumns(checklistItems))
    .from(checklistItems)
    .innerJoin(tasks, eq(tasks.id, checklistItems.taskId))
    .where(eq(tasks.projectId, sql.placeholder('projectId')))
    .orderBy(asc(checklistItems.position), asc(checklistItems.id))
    .prepare(),
  usersOfProject: db
    .select(memberColumns)
    .from(projectUsers)
    .innerJoin(teamMembers, eq(teamMembers.id, projectUsers.userId))
    .where(eq(projectUsers.projectId, sql.placeholder('projectId')))
    // Users added in one request share a time; rowid keeps them in the order they were listed.
    .orderBy(asc(projectUsers.createdAt), sql`"project_users"."rowid"`)
    .prepare(),
  userOfProject: db
    .select(memberColumns)
    .from(projectUsers)
    .innerJoin(teamMembers, eq(teamMembers.id, projectUsers.userId))
    .where(sql`${projectUsers.id} = ${sql.placeholder('id')} AND ${projectUsers.projectId} = ${sql.placeholder('projectId')}`)
    .prepare(),
  roleOnProject: db
    .select({ role: projectUsers.role })
    .from(projectUsers)
    .where(sql`${projectUsers.projectId} = ${sql.placeholder('projectId')} AND ${projectUsers.userId} = ${sql.placeholder('userId')}`)
    .prepare(),
});

/** Any id (even a malformed one) that is not a project of this workspace is a 404. */
export function getProjectRow(scope: Pick<Scope, 'statements'>, projectId: string): ProjectRow {
  const row = scope.statements(projectStatements).projectById.get({ id: projectId });
  if (!row) throw notFound('project', `No project with id ${projectId} in this workspace`);
  return row;
}

/** One project with its tasks and their checklist items, as it is now (also inside a write). */
export function loadProjectWithTasks(scope: Pick<Scope, 'statements'>, projectId: string): ProjectWithTasks {
  const row = scope.statements(projectStatements).withTasksById.execute({ id: projectId }).sync();
  if (!row) throw notFound('project', `No project with id ${projectId} in this workspace`);
  return row;
}

/** A page of projects with their tasks and items, in the order of `ids`, in one relational query. */
export function loadProjectsWithTasks(db: Db, ids: readonly string[]): ProjectWithTasks[] {
  if (ids.length === 0) return [];
  const rows = db.query.projects.findMany({ where: inIds(projects.id, ids), with: withTasks }).sync();
  const order = new Map(ids.map((id, i) => [id, i]));
  return rows.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
}
