import { and, eq } from 'drizzle-orm';
import type * as z from 'zod';
import type { Transaction } from '../../db/index.ts';
import { projectUsers, tasks, timeEntries } from '../../db/schema/index.ts';
import { forbidden, unprocessable } from '../../errors.ts';
import { actsAsAdmin } from '../access.ts';
import { recordEvent } from '../events.ts';
import { inIds, missingIdsError, missingOf } from '../queries.ts';
import type { ActorScope } from '../scope.ts';
import { recordsByIds } from './records.ts';
import type { approveOutput, DecisionInput, rejectOutput } from './schemas.ts';

type Decision = 'approve' | 'reject';

/** Every project of the entries must be one the actor manages, unless they act as an Owner/Admin. */
function assertManagesAll(scope: ActorScope, tx: Transaction, projectIds: string[]): void {
  if (actsAsAdmin(scope)) return;
  const managed = new Set(
    tx
      .select({ projectId: projectUsers.projectId })
      .from(projectUsers)
      .where(and(eq(projectUsers.userId, scope.actor.id), eq(projectUsers.role, 'project_manager'), inIds(projectUsers.projectId, projectIds)))
      .all()
      .map((r) => r.projectId),
  );
  if (projectIds.some((id) => !managed.has(id))) {
    throw forbidden('Only an Owner, an Admin or a manager of the entry’s project may approve or reject its time');
  }
}

/**
 * Every named entry must exist, await approval and belong to a project the actor manages (or the
 * actor is Owner/Admin). All or nothing, in one transaction. Approved entries become `unbilled`
 * (billable task) or `non_billable`.
 */
function decide(scope: ActorScope, input: DecisionInput, decision: Decision) {
  const ids = [...new Set(input.time_entry_ids ?? (input.time_entry_id !== undefined ? [input.time_entry_id] : []))];
  return scope.write((tx) => {
    const rows = tx
      .select({ id: timeEntries.id, projectId: timeEntries.projectId, status: timeEntries.status, billable: tasks.billable })
      .from(timeEntries)
      .innerJoin(tasks, eq(tasks.id, timeEntries.taskId))
      .where(inIds(timeEntries.id, ids))
      .all();
    const missing = missingOf(
      ids,
      rows.map((r) => r.id),
    );
    if (missing.length > 0) throw missingIdsError('time_entry', missing);
    const notPending = rows.filter((r) => r.status !== 'pending_approval');
    if (notPending.length > 0) {
      throw unprocessable(
        'time_entry_not_pending',
        `Only entries awaiting approval can be ${decision === 'approve' ? 'approved' : 'rejected'}; ${notPending.map((r) => `${r.id} is ${r.status}`).join(', ')}`,
        { not_pending_ids: notPending.map((r) => r.id) },
      );
    }
    assertManagesAll(scope, tx, [...new Set(rows.map((r) => r.projectId))]);
    const set = (status: 'rejected' | 'unbilled' | 'non_billable', entryIds: string[]) => {
      if (entryIds.length > 0) tx.update(timeEntries).set({ status, updatedAt: scope.now.toISOString() }).where(inIds(timeEntries.id, entryIds)).run();
    };
    if (decision === 'reject') set('rejected', ids);
    else {
      set('unbilled', rows.filter((r) => r.billable).map((r) => r.id));
      set('non_billable', rows.filter((r) => !r.billable).map((r) => r.id));
    }
    const records = recordsByIds(tx, ids);
    for (const record of records) recordEvent(scope, decision === 'approve' ? 'time_entry.approved' : 'time_entry.rejected', { time_entry: record });
    return records;
  });
}

/** tRPC `timeEntries.approve`: the actor is the approver. */
export const approveTimeEntries = (scope: ActorScope, input: DecisionInput): z.output<typeof approveOutput> => ({
  notice_code: 'time_entries_approved',
  time_entries: decide(scope, input, 'approve'),
});

/** tRPC `timeEntries.reject`. */
export const rejectTimeEntries = (scope: ActorScope, input: DecisionInput): z.output<typeof rejectOutput> => ({
  notice_code: 'time_entries_rejected',
  time_entries: decide(scope, input, 'reject'),
});
