import { asc, eq, getTableColumns, sql } from 'drizzle-orm';
import type { Database, Db } from '../../db/index.ts';
import { checklistItems, projects, projectUsers, tasks, teamMembers } from '../../db/schema/index.ts';
import { notFound } from '../../errors.ts';
import { inIds } from '../queries.ts';
import type { Scope } from '../scope.ts';
import type { ChecklistItemRow, ProjectRow, ProjectWithTasks, TaskRow, TaskWithItems } from './records.ts';

const memberColumns = {
  ...getTableColumns(projectUsers),
  firstName: teamMembers.firstName,
  lastName: teamMembers.lastName,
  memberEmail: teamMembers.email,
  timeZone: teamMembers.timeZone,
  active: teamMembers.active,
};

/** Statements prepared once per open workspace file; they run inside a caller's transaction too. */
export const projectStatements = (db: Database) => ({
  projectById: db.select().from(projects).where(eq(projects.id, sql.placeholder('id'))).prepare(),
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
  const st = scope.statements(projectStatements);
  const row = getProjectRow(scope, projectId);
  return withTasks([row], st.tasksOfProject.all({ projectId }), st.itemsOfProject.all({ projectId }))[0]!;
}

/** A page of projects with their tasks and items, in the order of `ids`, in three queries. */
export function loadProjectsWithTasks(db: Db, ids: readonly string[]): ProjectWithTasks[] {
  if (ids.length === 0) return [];
  const rows = db.select().from(projects).where(inIds(projects.id, ids)).all();
  const taskRows = db.select().from(tasks).where(inIds(tasks.projectId, ids)).orderBy(asc(tasks.position), asc(tasks.id)).all();
  const items = db
    .select(getTableColumns(checklistItems))
    .from(checklistItems)
    .innerJoin(tasks, eq(tasks.id, checklistItems.taskId))
    .where(inIds(tasks.projectId, ids))
    .orderBy(asc(checklistItems.position), asc(checklistItems.id))
    .all();
  const order = new Map(ids.map((id, i) => [id, i]));
  return withTasks(rows, taskRows, items).sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
}

/** Projects with their tasks in listed order, each task with its checklist items in order (both given sorted). */
function withTasks(rows: ProjectRow[], taskRows: TaskRow[], items: ChecklistItemRow[]): ProjectWithTasks[] {
  const itemsOf = groupBy(items, (item) => item.taskId);
  const tasksOf = groupBy(
    taskRows.map((task): TaskWithItems => ({ ...task, checklistItems: itemsOf.get(task.id) ?? [] })),
    (task) => task.projectId,
  );
  return rows.map((row) => ({ ...row, tasks: tasksOf.get(row.id) ?? [] }));
}

function groupBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const row of rows) {
    const list = out.get(key(row));
    if (list) list.push(row);
    else out.set(key(row), [row]);
  }
  return out;
}
