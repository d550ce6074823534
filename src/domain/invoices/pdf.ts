import type * as z from 'zod';
import { cachedInvoicePdf, invoicePdfFileName } from '../../pdf/invoice.ts';
import type { Scope } from '../scope.ts';
import { paidByInvoice } from './balance.ts';
import { documentContext, documentFor, stateOf } from './document.ts';
import { findInvoice } from './queries.ts';
import type { InvoiceRow } from './records.ts';
import type { invoiceIdInput, pdfOutput } from './schemas.ts';
import { requireAdmin } from '../access.ts';

/**
 * The one way to an invoice's PDF (tRPC, the mail attachment, the public page): rendered from its
 * document once per version, then served from the cache. A version is the invoice's `updated_at`
 * (every change and payment moves it), the identity's (a new logo or address shows), and its state
 * (an invoice becomes overdue by the calendar alone, and its stamp must say so).
 */
export function invoicePdf(scope: Scope, invoice: InvoiceRow): Promise<Buffer> {
  const ctx = documentContext(scope);
  const state = stateOf(invoice, paidByInvoice(scope.db, [invoice.id]).get(invoice.id) ?? 0, ctx.today);
  const version = `${invoice.updatedAt}|${ctx.seller.revision}|${state}`;
  return cachedInvoicePdf({ workspace: scope.workspace.subdomain, invoiceId: invoice.id, version }, () => documentFor(scope.db, invoice, ctx));
}

/** tRPC `invoices.pdf`: the PDF, base64-encoded. */
export async function getInvoicePdf(scope: Scope, input: z.output<typeof invoiceIdInput>): Promise<z.output<typeof pdfOutput>> {
  requireAdmin(scope, 'see invoices');
  const invoice = findInvoice(scope.db, input.invoice_id);
  const bytes = await invoicePdf(scope, invoice);
  return { filename: invoicePdfFileName(invoice), content_type: 'application/pdf', base64: bytes.toString('base64') };
}
