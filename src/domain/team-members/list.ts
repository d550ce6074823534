import { count, eq, gt, sql } from 'drizzle-orm';
import type * as z from 'zod';
import type { Database } from '../../db/index.ts';
import { teamMembers } from '../../db/schema/index.ts';
import { keysetOrder } from '../pagination.ts';
import { keysetPage, mapPage } from '../queries.ts';
import type { Scope } from '../scope.ts';
import { toTeamMemberRecord } from './records.ts';
import { DEFAULT_PAGE_SIZE, type listInput, type listOutput, type listPageInput, type listPageOutput } from './schemas.ts';

const statements = (db: Database) => ({
  count: db.select({ n: count() }).from(teamMembers).prepare(),
  all: db.select().from(teamMembers).orderBy(...keysetOrder(teamMembers)).prepare(),
  // Addresses are unique ignoring case (the index is COLLATE NOCASE), so this is one row or none.
  byEmail: db
    .select()
    .from(teamMembers)
    .where(sql`${teamMembers.email} = ${sql.placeholder('email')} COLLATE NOCASE`)
    .prepare(),
  page: db
    .select()
    .from(teamMembers)
    .orderBy(...keysetOrder(teamMembers))
    .limit(sql.placeholder('limit'))
    .offset(sql.placeholder('offset'))
    .prepare(),
});

/**
 * Endpoints 16 and 17. Without `page_number` every member is returned as one page; with it, one
 * page is read with LIMIT/OFFSET beside a count, never the whole table. `email` narrows the list to
 * the one member with that address, paged the same way.
 */
export function listTeamMemberPage(scope: Scope, input: z.output<typeof listPageInput>): z.output<typeof listPageOutput> {
  const st = scope.statements(statements);
  const matching = input.email === undefined ? null : st.byEmail.all({ email: input.email });
  if (input.page_number === undefined) {
    const rows = matching ?? st.all.all();
    return {
      team_members: rows.map(toTeamMemberRecord),
      pagination: { total_records: rows.length, total_pages: 1, current_page: 1, page_size: rows.length },
    };
  }
  const pageSize = input.page_size ?? DEFAULT_PAGE_SIZE;
  const offset = (input.page_number - 1) * pageSize;
  const total = matching ? matching.length : (st.count.get()?.n ?? 0);
  const rows = matching ? matching.slice(offset, offset + pageSize) : st.page.all({ limit: pageSize, offset });
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

/** tRPC `teamMembers.list`: keyset pages, optionally only members changed since a time. */
export function listTeamMembers(scope: Scope, input: z.output<typeof listInput>): z.output<typeof listOutput> {
  const page = keysetPage(
    scope.db.select().from(teamMembers).$dynamic(),
    teamMembers,
    [input.updated_since ? gt(teamMembers.updatedAt, input.updated_since) : undefined, input.active === undefined ? undefined : eq(teamMembers.active, input.active)],
    input,
  );
  return mapPage(page, (rows) => rows.map(toTeamMemberRecord));
}
