import type { z } from 'zod';
import { cachedInvoicePdf, invoicePdfFileName } from '../../pdf/invoice.ts';
import type { Scope } from '../scope.ts';
import { documentFor } from './document.ts';
import { findInvoice } from './queries.ts';
import type { InvoiceRow } from './records.ts';
import type { invoiceIdInput, pdfOutput } from './schemas.ts';
import { requireAdmin } from '../access.ts';

/**
 * The one way to an invoice's PDF (tRPC, the mail attachment, the public page): rendered from its
 * document once per version of the invoice, then served from the cache.
 */
export function invoicePdf(scope: Scope, invoice: InvoiceRow): Promise<Buffer> {
  return cachedInvoicePdf({ workspace: scope.workspace.subdomain, invoiceId: invoice.id, updatedAt: invoice.updatedAt }, () =>
    documentFor(scope.db, invoice, { workspaceName: scope.workspace.name, publicBase: scope.links.publicBase }),
  );
}

/** tRPC `invoices.pdf`: the PDF, base64-encoded. */
export async function getInvoicePdf(scope: Scope, input: z.output<typeof invoiceIdInput>): Promise<z.output<typeof pdfOutput>> {
  requireAdmin(scope, 'see invoices');
  const invoice = findInvoice(scope.db, input.invoice_id);
  const bytes = await invoicePdf(scope, invoice);
  return { filename: invoicePdfFileName(invoice.number), content_type: 'application/pdf', base64: bytes.toString('base64') };
}
