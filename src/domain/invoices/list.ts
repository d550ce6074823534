import { eq, gt, gte, lte, not } from 'drizzle-orm';
import type * as z from 'zod';
import { invoices } from '../../db/schema/index.ts';
import { keysetPage, mapPage } from '../queries.ts';
import type { Scope } from '../scope.ts';
import { overdueSql, todayIn } from './balance.ts';
import type { listInput, listOutput } from './schemas.ts';
import { requireAdmin } from '../access.ts';
import { summariesOf } from './summaries.ts';

/** tRPC `invoices.list`: keyset pages by creation (oldest or newest first), by client, status, kind, overdue, issue dates and change time. */
export function listInvoices(scope: Scope, input: z.output<typeof listInput>): z.output<typeof listOutput> {
  requireAdmin(scope, 'see invoices');
  const overdue = input.overdue === undefined ? undefined : input.overdue ? overdueSql(todayIn(scope)) : not(overdueSql(todayIn(scope)));
  const page = keysetPage(
    scope.db.select().from(invoices).$dynamic(),
    invoices,
    [
      input.client_id ? eq(invoices.clientId, input.client_id) : undefined,
      input.status ? eq(invoices.status, input.status) : undefined,
      input.kind ? eq(invoices.kind, input.kind) : undefined,
      overdue,
      input.from ? gte(invoices.issueDate, input.from) : undefined,
      input.to ? lte(invoices.issueDate, input.to) : undefined,
      input.updated_since ? gt(invoices.updatedAt, input.updated_since) : undefined,
    ],
    { ...input, direction: input.order === 'newest_first' ? 'desc' : 'asc' },
  );
  return mapPage(page, (rows) => summariesOf(scope, scope.db, rows));
}
