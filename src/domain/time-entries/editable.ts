import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Transaction } from '../../db/index.ts';
import { teamMembers, timeEntryOverrides } from '../../db/schema/index.ts';
import { forbidden, notFound, unprocessable } from '../../errors.ts';
import type { ActingUser } from '../team-members/acting-user.ts';
import type { ProjectFacts, TimeEntryStatements } from './queries.ts';
import { getEntryRow, type TimeEntryRow } from './records.ts';
import { assertProjectActive, findProject, mayManageProject } from './rules.ts';

export interface Editable {
  entry: TimeEntryRow;
  project: ProjectFacts;
  entryUser: { id: string; email: string; firstName: string; lastName: string; timeZone: string };
  /** The actor is Owner/Admin or a manager of the entry's project: may override locks and approve. */
  actorManages: boolean;
}

/**
 * An entry the actor may change: its own user, a manager of its project, an Owner or Admin may.
 * Billed entries are on an invoice and archived projects are read-only.
 */
export function editableEntry(tx: Transaction, st: TimeEntryStatements, actor: ActingUser, entryId: string): Editable {
  const entry = getEntryRow(tx, entryId);
  const project = findProject(st, entry.projectId);
  const actorManages = mayManageProject(actor, st.projectUser.get({ projectId: project.id, userId: actor.id }));
  if (entry.userId !== actor.id && !actorManages) {
    throw forbidden("Only the entry's own user, a manager of its project, an Owner or an Admin may change this time entry");
  }
  if (entry.status === 'billed') {
    throw unprocessable('time_entry_billed', `The time entry ${entry.id} is on an invoice; void the invoice to change it`);
  }
  assertProjectActive(project);
  const entryUser = tx
    .select({ id: teamMembers.id, email: teamMembers.email, firstName: teamMembers.firstName, lastName: teamMembers.lastName, timeZone: teamMembers.timeZone })
    .from(teamMembers)
    .where(eq(teamMembers.id, entry.userId))
    .get();
  if (!entryUser) throw notFound('team_member', `The user of time entry ${entry.id} no longer exists`);
  return { entry, project, entryUser, actorManages };
}

/** Every change made under an autolock override is recorded: who, which entry, when. */
export function logOverride(
  tx: Transaction,
  entry: TimeEntryRow,
  change: { recordedOn: string; actorId: string; action: 'update' | 'delete'; lockedSince: string; at: string },
): void {
  tx.insert(timeEntryOverrides)
    .values({
      id: randomUUID(),
      timeEntryId: entry.id,
      projectId: entry.projectId,
      recordedOn: change.recordedOn,
      actorId: change.actorId,
      action: change.action,
      lockedSince: change.lockedSince,
      createdAt: change.at,
    })
    .run();
}
