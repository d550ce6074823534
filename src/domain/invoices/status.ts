import { and, eq } from 'drizzle-orm';
import type { Database } from '../../db/index.ts';
import { invoices, outbox, timeEntries } from '../../db/schema/index.ts';
import { unprocessable } from '../../errors.ts';
import { findInvoice } from './read.ts';
import type { InvoiceRow } from './records.ts';

/**
 * Records a payment and cancels reminders not yet delivered. A void invoice cannot be paid; paying
 * twice is refused so mistakes show.
 */
export function markInvoicePaid(db: Database, invoiceId: string, now: Date): InvoiceRow {
  return db.transaction((tx) => {
    const row = findInvoice(tx, invoiceId);
    if (row.status === 'void') throw unprocessable('invoice_void', `Invoice ${row.number} is void and cannot be paid`);
    if (row.status === 'paid') throw unprocessable('invoice_already_paid', `Invoice ${row.number} is already paid`);
    const at = now.toISOString();
    const next = { ...row, status: 'paid' as const, paidAt: at, updatedAt: at };
    tx.update(invoices).set({ status: next.status, paidAt: at, updatedAt: at }).where(eq(invoices.id, row.id)).run();
    // A reminder queued just before the payment was recorded would only confuse the client.
    tx.update(outbox)
      .set({ status: 'failed', lastError: 'cancelled: the invoice was paid before delivery', claimedAt: null })
      .where(and(eq(outbox.invoiceId, row.id), eq(outbox.kind, 'invoice_reminder'), eq(outbox.status, 'pending')))
      .run();
    return next;
  });
}

/**
 * Voids an unpaid invoice: its time entries return to `unbilled` (so they can be invoiced again)
 * and messages not yet delivered are cancelled, so the client never receives a void invoice.
 */
export function voidInvoice(db: Database, invoiceId: string, now: Date): InvoiceRow {
  return db.transaction((tx) => {
    const row = findInvoice(tx, invoiceId);
    if (row.status === 'void') throw unprocessable('invoice_already_void', `Invoice ${row.number} is already void`);
    if (row.status === 'paid') throw unprocessable('invoice_paid', `Invoice ${row.number} is paid and cannot be voided`);
    const at = now.toISOString();
    tx.update(invoices).set({ status: 'void', voidedAt: at, updatedAt: at }).where(eq(invoices.id, row.id)).run();
    tx.update(timeEntries)
      .set({ status: 'unbilled', invoiceId: null, updatedAt: at })
      .where(and(eq(timeEntries.invoiceId, row.id), eq(timeEntries.status, 'billed')))
      .run();
    tx.update(outbox)
      .set({ status: 'failed', lastError: 'cancelled: the invoice was voided before delivery', claimedAt: null })
      .where(and(eq(outbox.invoiceId, row.id), eq(outbox.status, 'pending')))
      .run();
    return { ...row, status: 'void' as const, voidedAt: at, updatedAt: at };
  });
}
