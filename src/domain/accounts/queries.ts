import { and, eq, sql } from 'drizzle-orm';
import type { Database, Db } from '../../db/index.ts';
import { memberPasswords, projectUsers, teamMembers } from '../../db/schema/index.ts';
import type { Scope } from '../scope.ts';
import { actingUserColumns, type ActingUser } from '../team-members/acting-user.ts';

const statements = (db: Database) => ({
  /** A member by e-mail (any case) with their password hash, if they have one. */
  accountByEmail: db
    .select({ ...actingUserColumns, active: teamMembers.active, passwordHash: memberPasswords.passwordHash })
    .from(teamMembers)
    .leftJoin(memberPasswords, eq(memberPasswords.memberId, teamMembers.id))
    .where(sql`${teamMembers.email} = ${sql.placeholder('email')} COLLATE NOCASE`)
    .prepare(),
  accountById: db
    .select({ ...actingUserColumns, active: teamMembers.active, passwordHash: memberPasswords.passwordHash })
    .from(teamMembers)
    .leftJoin(memberPasswords, eq(memberPasswords.memberId, teamMembers.id))
    .where(eq(teamMembers.id, sql.placeholder('id')))
    .prepare(),
  managesAny: db
    .select({ projectId: projectUsers.projectId })
    .from(projectUsers)
    .where(and(eq(projectUsers.userId, sql.placeholder('userId')), eq(projectUsers.role, 'project_manager')))
    .limit(1)
    .prepare(),
});

export type Account = ActingUser & { active: boolean; passwordHash: string | null };

export const accountByEmail = (scope: Pick<Scope, 'statements'>, email: string): Account | undefined => scope.statements(statements).accountByEmail.get({ email });
export const accountById = (scope: Pick<Scope, 'statements'>, id: string): Account | undefined => scope.statements(statements).accountById.get({ id });
export const managesAnyProject = (scope: Pick<Scope, 'statements'>, userId: string) => scope.statements(statements).managesAny.get({ userId }) !== undefined;

/** Stores a member's (new) password hash. */
export function storePassword(tx: Db, memberId: string, passwordHash: string, now: Date): void {
  const updatedAt = now.toISOString();
  tx.insert(memberPasswords).values({ memberId, passwordHash, updatedAt }).onConflictDoUpdate({ target: memberPasswords.memberId, set: { passwordHash, updatedAt } }).run();
}
