import { and, eq, inArray } from 'drizzle-orm';
import { projectUsers, tasks, timeEntries } from '../../db/schema/index.ts';
import { AppError, forbidden, unprocessable } from '../../errors.ts';
import type { WorkspaceHandle } from '../../workspaces/handle.ts';
import type { ActingUser } from '../team-members/acting-user.ts';
import { recordsByIds } from './records.ts';
import { isAdmin } from '../team-members/acting-user.ts';
import type { DecisionInput, TimeEntryRecord } from './schemas.ts';

export type Decision = 'approve' | 'reject';

/**
 * tRPC `timeEntries.approve` / `timeEntries.reject`: every named entry must exist, await approval
 * and belong to a project the actor manages (or the actor is Owner/Admin). All or nothing, in one
 * transaction. Approved entries become `unbilled` (billable task) or `non_billable`.
 */
export function decideTimeEntries(handle: WorkspaceHandle, actor: ActingUser, input: DecisionInput, decision: Decision, now: Date): TimeEntryRecord[] {
  const ids = [...new Set(input.time_entry_ids ?? (input.time_entry_id !== undefined ? [input.time_entry_id] : []))];
  return handle.db.transaction(
    (tx) => {
      const rows = tx
        .select({ id: timeEntries.id, projectId: timeEntries.projectId, status: timeEntries.status, billable: tasks.billable })
        .from(timeEntries)
        .innerJoin(tasks, eq(tasks.id, timeEntries.taskId))
        .where(inArray(timeEntries.id, ids))
        .all();
      if (rows.length !== ids.length) {
        const found = new Set(rows.map((r) => r.id));
        const missing = ids.filter((id) => !found.has(id));
        throw new AppError('not_found', 'time_entry_not_found', `No time entry with id ${missing.join(', ')} in this workspace`, {
          extra: { missing_ids: missing },
        });
      }
      const notPending = rows.filter((r) => r.status !== 'pending_approval');
      if (notPending.length > 0) {
        throw unprocessable(
          'time_entry_not_pending',
          `Only entries awaiting approval can be ${decision === 'approve' ? 'approved' : 'rejected'}; ${notPending.map((r) => `${r.id} is ${r.status}`).join(', ')}`,
          { not_pending_ids: notPending.map((r) => r.id) },
        );
      }
      if (!isAdmin(actor)) {
        const projectIds = [...new Set(rows.map((r) => r.projectId))];
        const managed = new Set(
          tx
            .select({ projectId: projectUsers.projectId })
            .from(projectUsers)
            .where(and(eq(projectUsers.userId, actor.id), eq(projectUsers.role, 'project_manager'), inArray(projectUsers.projectId, projectIds)))
            .all()
            .map((r) => r.projectId),
        );
        if (projectIds.some((id) => !managed.has(id))) {
          throw forbidden('Only an Owner, an Admin or a manager of the entry’s project may approve or reject its time');
        }
      }
      const at = now.toISOString();
      if (decision === 'reject') {
        tx.update(timeEntries).set({ status: 'rejected', updatedAt: at }).where(inArray(timeEntries.id, ids)).run();
      } else {
        const billable = rows.filter((r) => r.billable).map((r) => r.id);
        const nonBillable = rows.filter((r) => !r.billable).map((r) => r.id);
        if (billable.length > 0) tx.update(timeEntries).set({ status: 'unbilled', updatedAt: at }).where(inArray(timeEntries.id, billable)).run();
        if (nonBillable.length > 0) {
          tx.update(timeEntries).set({ status: 'non_billable', updatedAt: at }).where(inArray(timeEntries.id, nonBillable)).run();
        }
      }
      return recordsByIds(tx, ids);
    },
    { behavior: 'immediate' },
  );
}
