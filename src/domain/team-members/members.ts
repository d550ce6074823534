import { randomUUID } from 'node:crypto';
import { and, asc, count, eq, gt, ne, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Database, Db } from '../../db/index.ts';
import { roles, teamMembers } from '../../db/schema/index.ts';
import { AppError, conflict, invalidField, notFound } from '../../errors.ts';
import { afterCursor, keysetOrder, pageOf } from '../pagination.ts';
import type { createInput, listInput, listPageInput, TeamMemberRecord, updateInput } from './schemas.ts';

type Row = typeof teamMembers.$inferSelect;

export const toTeamMemberRecord = (row: Row): TeamMemberRecord => ({
  id: row.id,
  email: row.email,
  first_name: row.firstName,
  last_name: row.lastName,
  time_zone: row.timeZone,
  profile_image_url: row.profileImageUrl,
  active: row.active,
  organization_role: row.organizationRole,
});

const DEFAULT_PAGE_SIZE = 30;

const listStatements = (db: Database) => ({
  count: db.select({ n: count() }).from(teamMembers).prepare(),
  all: db.select().from(teamMembers).orderBy(...keysetOrder(teamMembers)).prepare(),
  page: db
    .select()
    .from(teamMembers)
    .orderBy(...keysetOrder(teamMembers))
    .limit(sql.placeholder('limit'))
    .offset(sql.placeholder('offset'))
    .prepare(),
});

/**
 * The REST listing (endpoints 16, 17). Without `page_number` every member is returned as one page;
 * with it, one page is read with LIMIT/OFFSET beside a count, never the whole table.
 */
export function listTeamMemberPage(memo: <T>(b: (db: Database) => T) => T, input: z.infer<typeof listPageInput>) {
  const st = memo(listStatements);
  if (input.page_number === undefined) {
    const rows = st.all.all();
    return {
      team_members: rows.map(toTeamMemberRecord),
      pagination: { total_records: rows.length, total_pages: 1, current_page: 1, page_size: rows.length },
    };
  }
  const pageSize = input.page_size ?? DEFAULT_PAGE_SIZE;
  const total = st.count.get()?.n ?? 0;
  const rows = st.page.all({ limit: pageSize, offset: (input.page_number - 1) * pageSize });
  return {
    team_members: rows.map(toTeamMemberRecord),
    pagination: {
      total_records: total,
      total_pages: Math.max(1, Math.ceil(total / pageSize)),
      current_page: input.page_number,
      page_size: pageSize,
    },
  };
}

/** The tRPC listing: keyset pages, optionally only members changed since a time. */
export function listTeamMembers(db: Db, input: z.infer<typeof listInput>) {
  const rows = db
    .select()
    .from(teamMembers)
    .where(
      and(
        input.updated_since ? gt(teamMembers.updatedAt, input.updated_since) : undefined,
        input.active === undefined ? undefined : eq(teamMembers.active, input.active),
        afterCursor(teamMembers, input.cursor),
      ),
    )
    .orderBy(...keysetOrder(teamMembers))
    .limit(input.limit + 1)
    .all();
  const page = pageOf(rows, input.limit);
  return { items: page.items.map(toTeamMemberRecord), next_cursor: page.next_cursor };
}

function assertRoleExists(db: Db, role: string): void {
  const found = db.select({ name: roles.name }).from(roles).where(eq(roles.name, role)).get();
  if (!found) {
    const known = db.select({ name: roles.name }).from(roles).orderBy(asc(roles.name)).all();
    throw invalidField('organization_role', `must be one of the workspace's roles (case-sensitive): ${known.map((r) => r.name).join(', ')}`);
  }
}

function assertEmailFree(db: Db, email: string, exceptId?: string): void {
  const taken = db
    .select({ id: teamMembers.id })
    .from(teamMembers)
    .where(and(sql`${teamMembers.email} = ${email} COLLATE NOCASE`, exceptId ? ne(teamMembers.id, exceptId) : undefined))
    .get();
  if (taken) throw conflict('team_member_email_taken', `Another team member already has the e-mail ${email}`);
}

export function getTeamMember(db: Db, id: string): Row {
  const row = db.select().from(teamMembers).where(eq(teamMembers.id, id)).get();
  if (!row) throw notFound('team_member', `No team member with id ${id}`);
  return row;
}

const activeOwners = (db: Db) =>
  db
    .select({ n: count() })
    .from(teamMembers)
    .where(and(eq(teamMembers.organizationRole, 'Owner'), eq(teamMembers.active, true)))
    .get()?.n ?? 0;

/** PATCH semantics: only the given fields change. A workspace always keeps one active Owner. */
export function updateTeamMember(db: Database, input: z.infer<typeof updateInput>, now: Date): TeamMemberRecord {
  return db.transaction((tx) => {
    const current = getTeamMember(tx, input.team_member_id);
    if (input.email !== undefined) assertEmailFree(tx, input.email, current.id);
    if (input.organization_role !== undefined) assertRoleExists(tx, input.organization_role);
    const next = {
      ...current,
      ...(input.email !== undefined && { email: input.email }),
      ...(input.first_name !== undefined && { firstName: input.first_name }),
      ...(input.last_name !== undefined && { lastName: input.last_name }),
      ...(input.time_zone !== undefined && { timeZone: input.time_zone }),
      ...(input.organization_role !== undefined && { organizationRole: input.organization_role }),
      ...(input.active !== undefined && { active: input.active }),
    };
    const wasActiveOwner = current.active && current.organizationRole === 'Owner';
    const staysActiveOwner = next.active && next.organizationRole === 'Owner';
    if (wasActiveOwner && !staysActiveOwner && activeOwners(tx) <= 1) {
      throw new AppError('unprocessable', 'last_owner', 'This is the last active Owner of the workspace; make someone else Owner first');
    }
    next.updatedAt = now.toISOString();
    tx.update(teamMembers).set(next).where(eq(teamMembers.id, current.id)).run();
    return toTeamMemberRecord(next);
  });
}

/** Adds a team member (the command line's `member add`, and workspace creation's owner). */
export function createTeamMember(db: Db, input: z.output<typeof createInput>, defaults: { timeZone: string }, now: Date): TeamMemberRecord {
  assertEmailFree(db, input.email);
  assertRoleExists(db, input.organization_role);
  const at = now.toISOString();
  const row: Row = {
    id: randomUUID(),
    email: input.email,
    firstName: input.first_name,
    lastName: input.last_name,
    timeZone: input.time_zone ?? defaults.timeZone,
    profileImageUrl: '',
    active: true,
    organizationRole: input.organization_role,
    createdAt: at,
    updatedAt: at,
  };
  db.insert(teamMembers).values(row).run();
  return toTeamMemberRecord(row);
}
