import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { invoices, payments } from '../../db/schema/index.ts';
import { inIds } from '../queries.ts';
import { daysBetween } from '../time/calendar.ts';
import type { AgeingBucket } from './schemas.ts';

/**
 * What an invoice still owes, in one place (the receivables report and the invoice export read it
 * from here; the invoices domain may take it over): the balance due of an invoice is its total
 * minus the sum of its payments, for invoices (not credit notes) that went to the client and are
 * neither paid nor void (`sending`, `sent`, `partially_paid`). It is overdue once its due date is
 * before today in the workspace's time zone and a balance remains; its age is counted in days
 * past the due date.
 */

/** Statuses of an invoice that may still have a balance due. */
export const OPEN_STATUSES = ['sending', 'sent', 'partially_paid'] as const;

type InvoiceRow = typeof invoices.$inferSelect;

export interface OpenInvoice {
  id: string;
  number: string;
  clientId: string;
  kind: InvoiceRow['kind'];
  status: InvoiceRow['status'];
  currency: string;
  issueDate: string;
  dueDate: string;
  totalMinor: number;
  paidMinor: number;
}

/** The sum of an invoice's payments, in SQL over `invoices`: one indexed lookup per invoice. */
export const paidMinorSql = sql<number>`coalesce((SELECT sum(p.amount_minor) FROM ${payments} p WHERE p.invoice_id = "invoices"."id"), 0)`;

/** Every invoice that may still owe money (of the given clients), with what was paid on it. */
export function openInvoices(db: Db, clientIds: readonly string[] | null): OpenInvoice[] {
  return db
    .select({
      id: invoices.id,
      number: invoices.number,
      clientId: invoices.clientId,
      kind: invoices.kind,
      status: invoices.status,
      currency: invoices.currency,
      issueDate: invoices.issueDate,
      dueDate: invoices.dueDate,
      totalMinor: invoices.totalMinor,
      paidMinor: paidMinorSql,
    })
    .from(invoices)
    .where(and(eq(invoices.kind, 'invoice'), inArray(invoices.status, [...OPEN_STATUSES]), clientIds ? inIds(invoices.clientId, clientIds) : undefined))
    .all();
}

type Owing = Pick<OpenInvoice, 'kind' | 'status' | 'totalMinor' | 'paidMinor'>;

const isOpen = (invoice: Pick<OpenInvoice, 'kind' | 'status'>) => invoice.kind === 'invoice' && (OPEN_STATUSES as readonly string[]).includes(invoice.status);

/** Total minus payments for an open invoice (never below zero: an overpayment owes nothing); 0 for any other. */
export const balanceDueMinor = (invoice: Owing): number => (isOpen(invoice) ? Math.max(0, invoice.totalMinor - invoice.paidMinor) : 0);

/** Whole days past the due date on `today` (0 before and on the due date). */
export const daysOverdue = (dueDate: string, today: string): number => Math.max(0, daysBetween(dueDate, today));

/** Overdue: the due date is before today (workspace time zone) and a balance remains. */
export const isOverdue = (invoice: Owing & Pick<OpenInvoice, 'dueDate'>, today: string): boolean =>
  invoice.dueDate < today && balanceDueMinor(invoice) > 0;

/** The ageing bucket of a balance by days past due: not due, 1–30, 31–60, 61–90, over 90. */
export function ageingBucket(dueDate: string, today: string): AgeingBucket {
  const days = daysOverdue(dueDate, today);
  if (days === 0) return 'not_due';
  if (days <= 30) return 'days_1_30';
  if (days <= 60) return 'days_31_60';
  if (days <= 90) return 'days_61_90';
  return 'over_90';
}
