import { and, asc, eq, ne, sql } from 'drizzle-orm';
import type { Database } from '../../db/index.ts';
import { checklistItems, clients, projects, projectUsers, tasks, teamMembers, timeEntries } from '../../db/schema/index.ts';

const p = sql.placeholder;

/**
 * Entries awaiting approval, as the condition of `time_entries_pending_idx` spelled out: SQLite uses
 * a partial index only for a query that states its condition, and a bound 'pending_approval' does not.
 */
export const awaitingApproval = sql`${timeEntries.status} = 'pending_approval'`;

/**
 * The prepared statements of the time entry write path, built once per open workspace file
 * (`scope.statements(timeEntryStatements)`): creating an entry is these indexed lookups and one insert.
 */
export const timeEntryStatements = (db: Database) => ({
  client: db.select({ id: clients.id, name: clients.name, status: clients.status }).from(clients).where(eq(clients.id, p('id'))).prepare(),
  project: db
    .select({
      id: projects.id,
      clientId: projects.clientId,
      name: projects.name,
      status: projects.status,
      timeRoundUpto: projects.timeRoundUpto,
      autolockEnabled: projects.autolockEnabled,
      lockEndOfDay: projects.lockEndOfDay,
      lockEndOfWeek: projects.lockEndOfWeek,
      lockEndOfMonth: projects.lockEndOfMonth,
      enableApprovals: projects.enableApprovals,
      notifyInstantly: projects.notifyInstantly,
      replyTo: projects.replyTo,
    })
    .from(projects)
    .where(eq(projects.id, p('id')))
    .prepare(),
  task: db
    .select({ id: tasks.id, projectId: tasks.projectId, name: tasks.name, billable: tasks.billable, archived: tasks.archived })
    .from(tasks)
    .where(eq(tasks.id, p('id')))
    .prepare(),
  projectUser: db
    .select({ role: projectUsers.role, approvalType: projectUsers.approvalType })
    .from(projectUsers)
    .where(and(eq(projectUsers.projectId, p('projectId')), eq(projectUsers.userId, p('userId'))))
    .prepare(),
  checklistOfTask: db.select({ id: checklistItems.id }).from(checklistItems).where(eq(checklistItems.taskId, p('taskId'))).prepare(),
  /** Rejected entries are not time worked, so they do not count toward the 24-hour day. */
  dayTotal: db
    .select({ seconds: sql<number>`coalesce(sum(${timeEntries.seconds}), 0)` })
    .from(timeEntries)
    .where(and(eq(timeEntries.userId, p('userId')), eq(timeEntries.recordedOn, p('recordedOn')), ne(timeEntries.status, 'rejected'), ne(timeEntries.id, p('exceptId'))))
    .prepare(),
  managers: db
    .select({ id: teamMembers.id, email: teamMembers.email, firstName: teamMembers.firstName, lastName: teamMembers.lastName })
    .from(projectUsers)
    .innerJoin(teamMembers, eq(teamMembers.id, projectUsers.userId))
    .where(and(eq(projectUsers.projectId, p('projectId')), eq(projectUsers.role, 'project_manager'), eq(teamMembers.active, true)))
    .orderBy(asc(teamMembers.email))
    .prepare(),
  insert: db
    .insert(timeEntries)
    .values({
      id: p('id'),
      clientId: p('clientId'),
      projectId: p('projectId'),
      taskId: p('taskId'),
      userId: p('userId'),
      recordedOn: p('recordedOn'),
      enteredSeconds: p('enteredSeconds'),
      seconds: p('seconds'),
      notes: p('notes'),
      metadata: p('metadata'),
      status: p('status'),
      isOverride: p('isOverride'),
      invoiceId: null,
      createdAt: p('createdAt'),
      updatedAt: p('updatedAt'),
    })
    .prepare(),
});

export type TimeEntryStatements = ReturnType<typeof timeEntryStatements>;
export type ProjectFacts = NonNullable<ReturnType<TimeEntryStatements['project']['get']>>;
export type TaskFacts = NonNullable<ReturnType<TimeEntryStatements['task']['get']>>;
export type ProjectUserFacts = NonNullable<ReturnType<TimeEntryStatements['projectUser']['get']>>;
