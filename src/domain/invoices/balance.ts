import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { payments, type invoiceStatuses } from '../../db/schema/index.ts';
import { inIds } from '../queries.ts';
import type { Scope } from '../scope.ts';
import { localDate } from '../time/calendar.ts';

/**
 * The one rule of what a client owes, for every screen, list, PDF, public page, reminder and
 * report:
 *
 * - **balance due** = total − the sum of the invoice's payments, for an invoice of kind `invoice`
 *   in status `sending`, `sent` or `partially_paid`; 0 for anything else (draft, paid, void, a
 *   credit note);
 * - **overdue** = the due date is before today in the workspace's time zone and the balance due is
 *   above 0.
 *
 * Each rule exists twice, as a function over a row and as SQL over the `invoices` table, and the
 * tests hold the two to the same answers.
 */

type InvoiceStatus = (typeof invoiceStatuses)[number];

/** Statuses in which an invoice has been issued to the client and not settled. */
export const OPEN_STATUSES = ['sending', 'sent', 'partially_paid'] as const satisfies readonly InvoiceStatus[];

interface BalanceFacts {
  kind: 'invoice' | 'credit_note';
  status: InvoiceStatus;
  totalMinor: number;
  dueDate: string;
}

const isOpen = (status: InvoiceStatus) => (OPEN_STATUSES as readonly InvoiceStatus[]).includes(status);

/** What the client still owes, in minor units (never negative). */
export function balanceDueMinor(invoice: Omit<BalanceFacts, 'dueDate'>, paidMinor: number): number {
  if (invoice.kind !== 'invoice' || !isOpen(invoice.status)) return 0;
  return Math.max(invoice.totalMinor - paidMinor, 0);
}

/** Overdue: due before `today` (the workspace's local date) with a balance still due. */
export function isOverdue(invoice: BalanceFacts, paidMinor: number, today: string): boolean {
  return invoice.dueDate < today && balanceDueMinor(invoice, paidMinor) > 0;
}

/** Today in the workspace's time zone: the day `overdue` is measured against. */
export const todayIn = (scope: Pick<Scope, 'now' | 'workspace'>): string => localDate(scope.now, scope.workspace.timeZone);

/**
 * The status an invoice's payments give it: the whole total paid → `paid`; some → `partially_paid`;
 * none → `sent`, or `sending` while its e-mail is still being delivered (no `sent_at` yet).
 */
export function statusAfterPayments(invoice: { totalMinor: number; sentAt: string | null }, paidMinor: number): InvoiceStatus {
  if (paidMinor > 0 && paidMinor >= invoice.totalMinor) return 'paid';
  if (paidMinor > 0) return 'partially_paid';
  return invoice.sentAt ? 'sent' : 'sending';
}

/*
 * The SQL twins name their columns in full ("invoices"."status"): drizzle writes a column of a
 * one-table select without its table, which inside the payments subquery would mean the payment's
 * own id, and in a query that joins clients or projects would be ambiguous.
 */
const col = (name: string) => sql.raw(`"invoices"."${name}"`);

/** The sum of an invoice's payments, as SQL over `invoices` (for lists and reports). */
export const paidMinorSql: SQL<number> = sql<number>`(SELECT coalesce(sum("p"."amount_minor"), 0) FROM "payments" AS "p" WHERE "p"."invoice_id" = ${col('id')})`;

/** `balanceDueMinor` as SQL over `invoices`. */
export const balanceDueSql: SQL<number> = sql<number>`(CASE WHEN ${col('kind')} = 'invoice' AND ${col('status')} IN ('sending', 'sent', 'partially_paid')
  THEN max(${col('total_minor')} - ${paidMinorSql}, 0) ELSE 0 END)`;

/** `isOverdue` as SQL over `invoices`, for `today` as the workspace's local date. */
export const overdueSql = (today: string): SQL => sql`(${col('due_date')} < ${today} AND ${balanceDueSql} > 0)`;

/** The payments received per invoice, for many invoices in one query; invoices without any are absent. */
export function paidByInvoice(db: Db, invoiceIds: readonly string[]): Map<string, number> {
  if (invoiceIds.length === 0) return new Map();
  const rows = db
    .select({ invoiceId: payments.invoiceId, paid: sql<number>`sum(${payments.amountMinor})` })
    .from(payments)
    .where(inIds(payments.invoiceId, invoiceIds))
    .groupBy(payments.invoiceId)
    .all();
  return new Map(rows.map((r) => [r.invoiceId, r.paid]));
}
