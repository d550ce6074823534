import { and, asc, eq } from 'drizzle-orm';
import { teamMembers } from '../db/schema/index.ts';
import { withActor, type ActorScope, type Scope } from '../domain/scope.ts';
import { actingUserColumns } from '../domain/team-members/acting-user.ts';

/** The scope acting as the workspace's first active Owner, or null when it has none. */
export function asOwner(scope: Scope): ActorScope | null {
  const owner = scope.db
    .select(actingUserColumns)
    .from(teamMembers)
    .where(and(eq(teamMembers.organizationRole, 'Owner'), eq(teamMembers.active, true)))
    .orderBy(asc(teamMembers.createdAt))
    .get();
  return owner ? withActor(scope, owner) : null;
}
