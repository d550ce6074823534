import { sql } from 'drizzle-orm';
import type { Database } from '../../db/index.ts';
import { teamMembers } from '../../db/schema/index.ts';
import { AppError } from '../../errors.ts';
import type { Scope } from '../scope.ts';

export interface ActingUser {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
  timeZone: string;
  organizationRole: string;
}

/** The team member columns an acting user is read with. */
export const actingUserColumns = {
  id: teamMembers.id,
  email: teamMembers.email,
  firstName: teamMembers.firstName,
  lastName: teamMembers.lastName,
  timeZone: teamMembers.timeZone,
  organizationRole: teamMembers.organizationRole,
};

const statements = (db: Database) => ({
  byEmail: db
    .select({ ...actingUserColumns, active: teamMembers.active })
    .from(teamMembers)
    .where(sql`${teamMembers.email} = ${sql.placeholder('email')} COLLATE NOCASE`)
    .prepare(),
});

/** The team member named by a request's `email`; must exist (422) and be active (403). */
export function findActingUser(scope: Pick<Scope, 'statements'>, email: string): ActingUser {
  const row = scope.statements(statements).byEmail.get({ email });
  if (!row) {
    throw new AppError('unprocessable', 'user_not_found', `No team member of this workspace has the e-mail ${email}`, {
      details: [{ path: 'email', message: 'is not a team member of this workspace' }],
    });
  }
  if (!row.active) throw new AppError('forbidden', 'user_inactive', `The team member ${row.email} is inactive`);
  const { active: _active, ...user } = row;
  return user;
}
