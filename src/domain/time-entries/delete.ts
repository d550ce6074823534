import { eq } from 'drizzle-orm';
import { timeEntries } from '../../db/schema/index.ts';
import { recordEvent } from '../events.ts';
import type { ActorScope } from '../scope.ts';
import { editableEntry, logOverride } from './editable.ts';
import { timeEntryStatements } from './queries.ts';
import { recordsByIds } from './records.ts';
import { checkLock } from './rules.ts';
import type { DeleteInput, deleteOutput } from './schemas.ts';
import type * as z from 'zod';

/** tRPC `timeEntries.delete`. The override log keeps its rows after the entry is gone. */
export function deleteTimeEntry(scope: ActorScope, input: DeleteInput): z.output<typeof deleteOutput> {
  const st = scope.statements(timeEntryStatements);
  return scope.write((tx) => {
    const { entry, project, entryUser, actorManages } = editableEntry(tx, st, scope.actor, input.time_entry_id);
    const lock = checkLock(project, entry.recordedOn, entryUser.timeZone, scope.now, { requested: input.is_override, permitted: actorManages });
    const [deleted] = recordsByIds(tx, [entry.id]);
    tx.delete(timeEntries).where(eq(timeEntries.id, entry.id)).run();
    recordEvent(scope, 'time_entry.deleted', { time_entry: deleted });
    if (lock.overriddenSince) {
      logOverride(tx, entry, { recordedOn: entry.recordedOn, actorId: scope.actor.id, action: 'delete', lockedSince: lock.overriddenSince, at: scope.now.toISOString() });
    }
    return { notice_code: 'time_entry_deleted', time_entry_id: entry.id };
  });
}
