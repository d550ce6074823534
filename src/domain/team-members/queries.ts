import { and, asc, count, eq, ne, sql } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { roles, teamMembers } from '../../db/schema/index.ts';
import { conflict, invalidField, notFound } from '../../errors.ts';
import type { TeamMemberRow } from './records.ts';

export function getTeamMember(db: Db, id: string): TeamMemberRow {
  const row = db.select().from(teamMembers).where(eq(teamMembers.id, id)).get();
  if (!row) throw notFound('team_member', `No team member with id ${id}`);
  return row;
}

export function assertRoleExists(db: Db, role: string): void {
  const found = db.select({ name: roles.name }).from(roles).where(eq(roles.name, role)).get();
  if (!found) {
    const known = db.select({ name: roles.name }).from(roles).orderBy(asc(roles.name)).all();
    throw invalidField('organization_role', `must be one of the workspace's roles (case-sensitive): ${known.map((r) => r.name).join(', ')}`);
  }
}

/** E-mail addresses identify people across the workspace, ignoring case. */
export function assertEmailFree(db: Db, email: string, exceptId?: string): void {
  const taken = db
    .select({ id: teamMembers.id })
    .from(teamMembers)
    .where(and(sql`${teamMembers.email} = ${email} COLLATE NOCASE`, exceptId ? ne(teamMembers.id, exceptId) : undefined))
    .get();
  if (taken) throw conflict('team_member_email_taken', `Another team member already has the e-mail ${email}`);
}

export const activeOwnerCount = (db: Db) =>
  db
    .select({ n: count() })
    .from(teamMembers)
    .where(and(eq(teamMembers.organizationRole, 'Owner'), eq(teamMembers.active, true)))
    .get()?.n ?? 0;
