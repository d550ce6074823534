import { and, asc, eq } from 'drizzle-orm';
import * as z from 'zod';
import { clients, projects, tasks, teamMembers, timeEntries } from '../../db/schema/index.ts';
import { managedOnly } from '../projects/access.ts';
import type { Scope } from '../scope.ts';
import { awaitingApproval } from './queries.ts';
import { rowWithEmailColumns, toRecords } from './records.ts';
import { timeEntryRecord } from './schemas.ts';

export const pendingOutput = z.object({
  items: z.array(
    timeEntryRecord.extend({
      user_name: z.string(),
      client_name: z.string(),
      project_name: z.string(),
      task_name: z.string(),
    }),
  ),
});

/** Approving more at once than this is done page by page (approve, and the next ones appear). */
const MAX_PENDING = 2000;

/**
 * tRPC `approvals.pending`: every entry awaiting approval that the caller may decide on (all for an
 * Owner or Admin, else those of the projects they manage), by person and date, with the names a
 * reviewer reads — one query, however many people and weeks.
 */
export function pendingApprovals(scope: Scope): z.output<typeof pendingOutput> {
  const rows = scope.db
    .select({
      ...rowWithEmailColumns,
      firstName: teamMembers.firstName,
      lastName: teamMembers.lastName,
      clientName: clients.name,
      projectName: projects.name,
      taskName: tasks.name,
    })
    .from(timeEntries)
    .innerJoin(teamMembers, eq(teamMembers.id, timeEntries.userId))
    .innerJoin(projects, eq(projects.id, timeEntries.projectId))
    .innerJoin(clients, eq(clients.id, timeEntries.clientId))
    .innerJoin(tasks, eq(tasks.id, timeEntries.taskId))
    .where(and(awaitingApproval, managedOnly(scope, timeEntries.projectId)))
    .orderBy(asc(teamMembers.firstName), asc(teamMembers.lastName), asc(timeEntries.userId), asc(timeEntries.recordedOn), asc(timeEntries.createdAt))
    .limit(MAX_PENDING)
    .all();
  const records = toRecords(scope.db, rows);
  return {
    items: records.map((record, i) => {
      const row = rows[i]!;
      return { ...record, user_name: `${row.firstName} ${row.lastName}`.trim(), client_name: row.clientName, project_name: row.projectName, task_name: row.taskName };
    }),
  };
}
