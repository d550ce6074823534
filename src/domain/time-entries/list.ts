import { and, eq, gt, gte, lte } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '../../db/index.ts';
import { teamMembers, timeEntries, timeEntryOverrides } from '../../db/schema/index.ts';
import { afterCursor, keysetOrder, pageOf } from '../pagination.ts';
import { rowWithEmailColumns, toRecords } from './records.ts';
import type { listInput, overridesInput } from './schemas.ts';

/** tRPC `timeEntries.list`: keyset pages in creation order, filtered. Unknown ids just match nothing. */
export function listTimeEntries(db: Db, input: z.output<typeof listInput>) {
  const rows = db
    .select(rowWithEmailColumns)
    .from(timeEntries)
    .innerJoin(teamMembers, eq(teamMembers.id, timeEntries.userId))
    .where(
      and(
        input.project_id !== undefined ? eq(timeEntries.projectId, input.project_id) : undefined,
        input.user_id !== undefined ? eq(timeEntries.userId, input.user_id) : undefined,
        input.from !== undefined ? gte(timeEntries.recordedOn, input.from) : undefined,
        input.to !== undefined ? lte(timeEntries.recordedOn, input.to) : undefined,
        input.status !== undefined ? eq(timeEntries.status, input.status) : undefined,
        input.updated_since !== undefined ? gt(timeEntries.updatedAt, input.updated_since) : undefined,
        afterCursor(timeEntries, input.cursor),
      ),
    )
    .orderBy(...keysetOrder(timeEntries))
    .limit(input.limit + 1)
    .all();
  const page = pageOf(rows, input.limit);
  return { items: toRecords(db, page.items), next_cursor: page.next_cursor };
}

/** tRPC `timeEntries.overrides`: the autolock override log (who, which entry, when, what). */
export function listOverrides(db: Db, input: z.output<typeof overridesInput>) {
  const o = timeEntryOverrides;
  const rows = db
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
    .where(and(input.project_id !== undefined ? eq(o.projectId, input.project_id) : undefined, afterCursor(o, input.cursor)))
    .orderBy(...keysetOrder(o))
    .limit(input.limit + 1)
    .all();
  const page = pageOf(rows, input.limit);
  return {
    items: page.items.map((r) => ({
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
    next_cursor: page.next_cursor,
  };
}
