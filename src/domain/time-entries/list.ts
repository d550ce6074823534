import { eq, gt, gte, lte, or } from 'drizzle-orm';
import { actsAsAdmin } from '../access.ts';
import { managedOnly } from '../projects/access.ts';
import type * as z from 'zod';
import { teamMembers, timeEntries, timeEntryOverrides } from '../../db/schema/index.ts';
import { keysetPage, mapPage } from '../queries.ts';
import type { Scope } from '../scope.ts';
import { rowWithEmailColumns, toRecords } from './records.ts';
import type { listInput, listOutput, overridesInput, overridesOutput } from './schemas.ts';

/** tRPC `timeEntries.list`: keyset pages in creation order, filtered. Unknown ids just match nothing. */
export function listTimeEntries(scope: Scope, input: z.output<typeof listInput>): z.output<typeof listOutput> {
  const page = keysetPage(
    scope.db.select(rowWithEmailColumns).from(timeEntries).innerJoin(teamMembers, eq(teamMembers.id, timeEntries.userId)).$dynamic(),
    timeEntries,
    [
      input.project_id !== undefined ? eq(timeEntries.projectId, input.project_id) : undefined,
      input.user_id !== undefined ? eq(timeEntries.userId, input.user_id) : undefined,
      input.from !== undefined ? gte(timeEntries.recordedOn, input.from) : undefined,
      input.to !== undefined ? lte(timeEntries.recordedOn, input.to) : undefined,
      input.status !== undefined ? eq(timeEntries.status, input.status) : undefined,
      input.updated_since !== undefined ? gt(timeEntries.updatedAt, input.updated_since) : undefined,
      // A member sees their own entries and those of the projects they manage.
      scope.actor && !actsAsAdmin(scope) ? or(eq(timeEntries.userId, scope.actor.id), managedOnly(scope, timeEntries.projectId)) : undefined,
    ],
    input,
  );
  return mapPage(page, (rows) => toRecords(scope.db, rows));
}

/** tRPC `timeEntries.overrides`: the autolock override log (who, which entry, when, what). */
export function listOverrides(scope: Scope, input: z.output<typeof overridesInput>): z.output<typeof overridesOutput> {
  const o = timeEntryOverrides;
  const page = keysetPage(
    scope.db
      .select({
        id: o.id,
        timeEntryId: o.timeEntryId,
        projectId: o.projectId,
        recordedOn: o.recordedOn,
        action: o.action,
        lockedSince: o.lockedSince,
        actorId: o.actorId,
        actorEmail: teamMembers.email,
        createdAt: o.createdAt,
      })
      .from(o)
      .innerJoin(teamMembers, eq(teamMembers.id, o.actorId))
      .$dynamic(),
    o,
    [input.project_id !== undefined ? eq(o.projectId, input.project_id) : undefined, managedOnly(scope, o.projectId)],
    input,
  );
  return mapPage(page, (rows) =>
    rows.map((r) => ({
      id: r.id,
      time_entry_id: r.timeEntryId,
      project_id: r.projectId,
      recorded_on: r.recordedOn,
      action: r.action as 'create' | 'update' | 'delete',
      locked_since: r.lockedSince,
      actor_id: r.actorId,
      actor_email: r.actorEmail,
      created_at: r.createdAt,
    })),
  );
}
