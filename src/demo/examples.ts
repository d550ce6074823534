import { and, asc, eq } from 'drizzle-orm';
import { clients, projects, projectUsers, tasks, teamMembers } from '../db/schema/index.ts';
import type { WorkspaceHandle } from '../workspaces/handle.ts';

/**
 * A ready-to-run time entry body for the demo's printout: the spec has no REST call that lists
 * projects or tasks, so a newcomer is handed real ids. Null when the workspace has none to offer.
 */
export function sampleTimeEntry(handle: WorkspaceHandle, recordedOn: string) {
  const row = handle.db
    .select({ clientId: clients.id, projectId: projects.id, taskId: tasks.id, email: teamMembers.email })
    .from(projects)
    .innerJoin(clients, eq(clients.id, projects.clientId))
    .innerJoin(tasks, and(eq(tasks.projectId, projects.id), eq(tasks.archived, false)))
    .innerJoin(projectUsers, eq(projectUsers.projectId, projects.id))
    .innerJoin(teamMembers, and(eq(teamMembers.id, projectUsers.userId), eq(teamMembers.active, true)))
    .where(and(eq(projects.status, 'active'), eq(projects.autolockEnabled, false), eq(projects.enableApprovals, false)))
    .orderBy(asc(projects.createdAt), asc(tasks.position))
    .get();
  if (!row) return null;
  return { client_id: row.clientId, project_id: row.projectId, task_id: row.taskId, email: row.email, recorded_on: recordedOn, hours: '1:30', notes: 'Tried the API' };
}
