import { and, asc, eq } from 'drizzle-orm';
import { teamMembers } from '../db/schema/index.ts';
import { withActor, type ActorScope, type Scope } from '../domain/scope.ts';

/** The scope acting as the workspace's first active Owner, or null when it has none. */
export function asOwner(scope: Scope): ActorScope | null {
  const owner = scope.db
    .select({
      id: teamMembers.id,
      email: teamMembers.email,
      firstName: teamMembers.firstName,
      lastName: teamMembers.lastName,
      timeZone: teamMembers.timeZone,
      organizationRole: teamMembers.organizationRole,
    })
    .from(teamMembers)
    .where(and(eq(teamMembers.organizationRole, 'Owner'), eq(teamMembers.active, true)))
    .orderBy(asc(teamMembers.createdAt))
    .get();
  return owner ? withActor(scope, owner) : null;
}
