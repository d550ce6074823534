import { and, eq, sql } from 'drizzle-orm';
import type { Database, Db } from '../../db/index.ts';
import { invoiceLines, invoices, projects, projectUsers, tasks, timeEntries } from '../../db/schema/index.ts';
import { notFound } from '../../errors.ts';
import { inIdsPlaceholder } from '../queries.ts';
import type { Scope } from '../scope.ts';
import type { BillableEntry } from './lines.ts';
import type { InvoiceRow } from './records.ts';

export function findInvoice(db: Db, invoiceId: string): InvoiceRow {
  const row = db.select().from(invoices).where(eq(invoices.id, invoiceId)).get();
  if (!row) throw notFound('invoice', `No invoice with id ${invoiceId}`);
  return row;
}

const p = sql.placeholder;

/**
 * The statements of invoice creation, prepared once per open workspace file: the entries named by
 * a request are read in one query and marked billed in one statement, however many there are.
 */
export const invoiceStatements = (db: Database) => ({
  /**
   * Every entry named by a request, with whether its task is billable now: a task made
   * non-billable after the entry was recorded must not be invoiced either.
   */
  entries: db
    .select({
      id: timeEntries.id,
      clientId: timeEntries.clientId,
      projectId: timeEntries.projectId,
      taskId: timeEntries.taskId,
      userId: timeEntries.userId,
      seconds: timeEntries.seconds,
      status: timeEntries.status,
      invoiceId: timeEntries.invoiceId,
      billingMethod: projects.billingMethod,
      projectRateMinor: projects.hourlyRateMinor,
      projectCurrency: projects.currency,
      taskRateMinor: tasks.hourlyRateMinor,
      personRateMinor: projectUsers.hourlyRateMinor,
      taskBillable: tasks.billable,
    })
    .from(timeEntries)
    .innerJoin(projects, eq(projects.id, timeEntries.projectId))
    .innerJoin(tasks, eq(tasks.id, timeEntries.taskId))
    .leftJoin(projectUsers, and(eq(projectUsers.projectId, timeEntries.projectId), eq(projectUsers.userId, timeEntries.userId)))
    .where(inIdsPlaceholder(timeEntries.id, 'ids'))
    .prepare(),
  insertLine: db
    .insert(invoiceLines)
    .values({
      id: p('id'),
      invoiceId: p('invoiceId'),
      kind: p('kind'),
      position: p('position'),
      timeEntryId: p('timeEntryId'),
      projectId: p('projectId'),
      taskId: p('taskId'),
      userId: p('userId'),
      notes: p('notes'),
      seconds: p('seconds'),
      hours: p('hours'),
      hourlyRateMinor: p('hourlyRateMinor'),
      quantityMilli: p('quantityMilli'),
      unitAmountMinor: p('unitAmountMinor'),
      file: p('file'),
      amountMinor: p('amountMinor'),
    })
    .prepare(),
  /**
   * Only entries still `unbilled` move: if another invoice billed one in between, fewer rows change
   * and the caller rolls back, so an entry can never be billed twice. (`+status` keeps SQLite on
   * the id lookups instead of the status index.)
   */
  markBilled: db
    .update(timeEntries)
    .set({ status: 'billed', invoiceId: sql`${p('invoiceId')}`, updatedAt: sql`${p('at')}` })
    .where(and(inIdsPlaceholder(timeEntries.id, 'ids'), sql`+${timeEntries.status} = 'unbilled'`))
    .prepare(),
});

/**
 * The entries named by a request, by id (one query). When a draft is edited (`editing`), its own
 * entries count as unbilled: keeping them on the draft is not billing them again.
 */
export function billableEntries(scope: Pick<Scope, 'statements'>, ids: readonly string[], editing?: string): Map<string, BillableEntry> {
  return new Map(
    scope
      .statements(invoiceStatements)
      .entries.all({ ids: JSON.stringify(ids) })
      .map((e) => [e.id, editing && e.status === 'billed' && e.invoiceId === editing ? { ...e, status: 'unbilled' as const } : e]),
  );
}
