import { and, eq } from 'drizzle-orm';
import type { z } from 'zod';
import { invoices, outbox } from '../../db/schema/index.ts';
import { unprocessable } from '../../errors.ts';
import { requireAdmin } from '../access.ts';
import { recordEvent } from '../events.ts';
import type { Scope } from '../scope.ts';
import { findInvoice } from './queries.ts';
import { toInvoiceSummary } from './records.ts';
import type { invoiceIdInput, statusChangeOutput } from './schemas.ts';

/**
 * tRPC `invoices.markPaid`: records a payment and cancels reminders not yet delivered. A void
 * invoice cannot be paid; paying twice is refused so mistakes show.
 */
export function markInvoicePaid(scope: Scope, input: z.output<typeof invoiceIdInput>): z.output<typeof statusChangeOutput> {
  requireAdmin(scope, 'record payments');
  return scope.write((tx) => {
    const row = findInvoice(tx, input.invoice_id);
    if (row.status === 'void') throw unprocessable('invoice_void', `Invoice ${row.number} is void and cannot be paid`);
    if (row.status === 'paid') throw unprocessable('invoice_already_paid', `Invoice ${row.number} is already paid`);
    const at = scope.now.toISOString();
    tx.update(invoices).set({ status: 'paid', paidAt: at, updatedAt: at }).where(eq(invoices.id, row.id)).run();
    // A reminder queued just before the payment was recorded would only confuse the client.
    tx.update(outbox)
      .set({ status: 'failed', lastError: 'cancelled: the invoice was paid before delivery', claimedAt: null })
      .where(and(eq(outbox.invoiceId, row.id), eq(outbox.kind, 'invoice_reminder'), eq(outbox.status, 'pending')))
      .run();
    const invoice = toInvoiceSummary({ ...row, status: 'paid', paidAt: at, updatedAt: at }, scope.workspace.id, scope.links.publicBase);
    recordEvent(scope, tx, 'invoice.paid', { invoice });
    return { invoice };
  });
}
