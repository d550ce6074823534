import { asc, eq, getTableColumns, inArray, sql } from 'drizzle-orm';
import type { Database, Db } from '../../db/index.ts';
import { checklistItems, projects, projectUsers, tasks, teamMembers } from '../../db/schema/index.ts';
import { notFound } from '../../errors.ts';
import { currencyDecimals, fromMinor, minorToDecimalString } from '../money.ts';
import type { WorkspaceHandle } from '../../workspaces/handle.ts';
import type { ProjectRecord, ProjectUserDetail, ProjectUserRecord, TaskRecord } from './schemas.ts';

export type ProjectRow = typeof projects.$inferSelect;
export type TaskRow = typeof tasks.$inferSelect;
export type ChecklistItemRow = typeof checklistItems.$inferSelect;
export type ProjectUserRow = typeof projectUsers.$inferSelect;

/** A project user with the team member fields its response needs. */
export interface ProjectUserWithMember extends ProjectUserRow {
  firstName: string;
  lastName: string;
  memberEmail: string;
  timeZone: string;
  active: boolean;
}

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
  roleOnProject: db
    .select({ role: projectUsers.role })
    .from(projectUsers)
    .where(sql`${projectUsers.projectId} = ${sql.placeholder('projectId')} AND ${projectUsers.userId} = ${sql.placeholder('userId')}`)
    .prepare(),
});

/** Any id (even a malformed one) that is not a project of this workspace is a 404. */
export function getProjectRow(handle: WorkspaceHandle, projectId: string): ProjectRow {
  const row = handle.memo(projectStatements).projectById.get({ id: projectId });
  if (!row) throw notFound('project', `No project with id ${projectId} in this workspace`);
  return row;
}

const flagText = (value: boolean) => (value ? 'true' : 'false');

export function toTaskRecord(task: TaskRow, items: readonly ChecklistItemRow[], currency: string): TaskRecord {
  return {
    id: task.id,
    name: task.name,
    billable: task.billable,
    hourly_rate: fromMinor(task.hourlyRateMinor, currency),
    archived: task.archived,
    checklist_items: items.map((i) => ({ id: i.id, description: i.description })),
  };
}

/** The one builder of the project response, for create, update, get and list. */
export function toProjectRecord(row: ProjectRow, projectTasks: readonly TaskRow[], itemsByTask: ReadonlyMap<string, ChecklistItemRow[]>): ProjectRecord {
  return {
    id: row.id,
    client_id: row.clientId,
    name: row.name,
    identifier: row.identifier,
    billing_method: row.billingMethod,
    flat_amount: row.flatAmountMinor === null ? null : minorToDecimalString(row.flatAmountMinor, currencyDecimals(row.currency)),
    status: row.status,
    last_invoice_id: row.lastInvoiceId,
    internal_notes: row.internalNotes,
    currency: row.currency,
    reply_to: row.replyTo,
    timesheet_approval_email_notification_day: row.notificationDay,
    timesheet_approval_email_notification_time: row.notificationTime,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    hourly_rate: fromMinor(row.hourlyRateMinor, row.currency),
    time_round_upto: row.timeRoundUpto,
    autolock_enabled: row.autolockEnabled,
    enable_approvals: row.enableApprovals,
    notify_timesheet_approval_request_instantly: row.notifyInstantly,
    autolock_settings: {
      end_of_the_day: flagText(row.lockEndOfDay),
      end_of_the_week: flagText(row.lockEndOfWeek),
      end_of_the_month: flagText(row.lockEndOfMonth),
    },
    tasks: projectTasks.map((t) => toTaskRecord(t, itemsByTask.get(t.id) ?? [], row.currency)),
  };
}

export function groupItemsByTask(items: readonly ChecklistItemRow[]): Map<string, ChecklistItemRow[]> {
  const byTask = new Map<string, ChecklistItemRow[]>();
  for (const item of items) {
    const list = byTask.get(item.taskId);
    if (list) list.push(item);
    else byTask.set(item.taskId, [item]);
  }
  return byTask;
}

/** One project's response: the project, its tasks and their checklist items, three queries. */
export function loadProjectRecord(handle: WorkspaceHandle, row: ProjectRow): ProjectRecord {
  const st = handle.memo(projectStatements);
  const projectTasks = st.tasksOfProject.all({ projectId: row.id });
  const items = st.itemsOfProject.all({ projectId: row.id });
  return toProjectRecord(row, projectTasks, groupItemsByTask(items));
}

/** Responses for a page of projects: one query for all their tasks and one for all their items. */
export function loadProjectRecords(db: Db, rows: readonly ProjectRow[]): ProjectRecord[] {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const allTasks = db.select().from(tasks).where(inArray(tasks.projectId, ids)).orderBy(asc(tasks.position), asc(tasks.id)).all();
  const items = db
    .select(getTableColumns(checklistItems))
    .from(checklistItems)
    .innerJoin(tasks, eq(tasks.id, checklistItems.taskId))
    .where(inArray(tasks.projectId, ids))
    .orderBy(asc(checklistItems.position), asc(checklistItems.id))
    .all();
  const tasksByProject = new Map<string, TaskRow[]>();
  for (const t of allTasks) {
    const list = tasksByProject.get(t.projectId);
    if (list) list.push(t);
    else tasksByProject.set(t.projectId, [t]);
  }
  const itemsByTask = groupItemsByTask(items);
  return rows.map((r) => toProjectRecord(r, tasksByProject.get(r.id) ?? [], itemsByTask));
}

export function toProjectUserRecord(row: ProjectUserWithMember, currency: string): ProjectUserRecord {
  return {
    id: row.id,
    user_id: row.userId,
    role: row.role,
    hourly_rate: fromMinor(row.hourlyRateMinor, currency),
    name: `${row.firstName} ${row.lastName}`.trim(),
    email: row.memberEmail,
    time_zone: row.timeZone,
  };
}

export const toProjectUserDetail = (row: ProjectUserWithMember, currency: string): ProjectUserDetail => ({
  ...toProjectUserRecord(row, currency),
  approval_type: row.approvalType,
  active: row.active,
});
