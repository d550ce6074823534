import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { invoices } from '../../db/schema/index.ts';
import { OPEN_STATUSES, paidMinorSql } from '../invoices/balance.ts';
import { inIds } from '../queries.ts';
import { daysBetween } from '../time/calendar.ts';
import type { AgeingBucket } from './schemas.ts';

/*
 * What the receivables report reads about open invoices. What an invoice owes, and whether it is
 * overdue, is the invoices domain's one rule (src/domain/invoices/balance.ts); this module only
 * finds the invoices and ages them.
 */

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

/** Whole days past the due date on `today` (0 before and on the due date). */
export const daysOverdue = (dueDate: string, today: string): number => Math.max(0, daysBetween(dueDate, today));

/** The ageing bucket of a balance by days past due: not due, 1–30, 31–60, 61–90, over 90. */
export function ageingBucket(dueDate: string, today: string): AgeingBucket {
  const days = daysOverdue(dueDate, today);
  if (days === 0) return 'not_due';
  if (days <= 30) return 'days_1_30';
  if (days <= 60) return 'days_31_60';
  if (days <= 90) return 'days_61_90';
  return 'over_90';
}
