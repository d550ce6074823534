import { and, eq } from 'drizzle-orm';
import type { z } from 'zod';
import { invoices, outbox, timeEntries } from '../../db/schema/index.ts';
import { unprocessable } from '../../errors.ts';
import { requireAdmin } from '../access.ts';
import { recordEvent } from '../events.ts';
import type { Scope } from '../scope.ts';
import { findInvoice } from './queries.ts';
import { toInvoiceSummary } from './records.ts';
import type { invoiceIdInput, statusChangeOutput } from './schemas.ts';

/**
 * tRPC `invoices.void`: voids an unpaid invoice. Its time entries return to `unbilled` (so they can
 * be invoiced again) and messages not yet delivered are cancelled, so the client never receives a
 * void invoice.
 */
export function voidInvoice(scope: Scope, input: z.output<typeof invoiceIdInput>): z.output<typeof statusChangeOutput> {
  requireAdmin(scope, 'void invoices');
  return scope.write((tx) => {
    const row = findInvoice(tx, input.invoice_id);
    if (row.status === 'void') throw unprocessable('invoice_already_void', `Invoice ${row.number} is already void`);
    if (row.status === 'paid') throw unprocessable('invoice_paid', `Invoice ${row.number} is paid and cannot be voided`);
    const at = scope.now.toISOString();
    tx.update(invoices).set({ status: 'void', voidedAt: at, updatedAt: at }).where(eq(invoices.id, row.id)).run();
    tx.update(timeEntries)
      .set({ status: 'unbilled', invoiceId: null, updatedAt: at })
      .where(and(eq(timeEntries.invoiceId, row.id), eq(timeEntries.status, 'billed')))
      .run();
    tx.update(outbox)
      .set({ status: 'failed', lastError: 'cancelled: the invoice was voided before delivery', claimedAt: null })
      .where(and(eq(outbox.invoiceId, row.id), eq(outbox.status, 'pending')))
      .run();
    const invoice = toInvoiceSummary({ ...row, status: 'void', voidedAt: at, updatedAt: at }, scope.workspace.id, scope.links.publicBase);
    recordEvent(scope, tx, 'invoice.voided', { invoice });
    return { invoice };
  });
}
