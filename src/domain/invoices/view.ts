import * as z from 'zod';
import { requireAdmin } from '../access.ts';
import { dateOut, emailOut, idOut } from '../fields.ts';
import type { Scope } from '../scope.ts';
import { liveRecipientsOf } from './compose.ts';
import { documentContext, loadInvoiceDocument } from './document.ts';
import { getInvoice } from './get.ts';
import { listPayments } from './payments.ts';
import { findInvoice } from './queries.ts';
import { getOutput, invoiceSummary, paymentsOutput, type invoiceIdInput } from './schemas.ts';
import { summaryOf } from './summaries.ts';

export const viewOutput = getOutput.extend({
  client_name: z.string(),
  /** What each line is, in the invoice's line order, as the PDF and the public page describe it. */
  line_details: z.array(
    z.object({
      date: dateOut.nullable(),
      project_name: z.string().nullable(),
      task_name: z.string().nullable(),
      person_name: z.string().nullable(),
      notes: z.string(),
    }),
  ),
  /** `invoices.payments`: the payments recorded, and card payments that need a person. */
  payments: paymentsOutput,
  /** The client's live recipients: whom the invoice can be sent (again) to. */
  client_recipients: z.array(z.object({ id: idOut, name: z.string(), email: emailOut })),
  /** The other document of a cancellation: a void invoice's credit note, a credit note's invoice. */
  related: invoiceSummary.nullable(),
});

/** The credit note cancelling a void invoice, or the invoice a credit note cancels; null otherwise. */
function relatedDocument(scope: Scope, invoice: z.output<typeof getOutput>['invoice']) {
  const id = invoice.kind === 'credit_note' ? invoice.credited_invoice_id : invoice.credit_note_id;
  return id ? summaryOf(scope, scope.db, findInvoice(scope.db, id)) : null;
}

/**
 * tRPC `invoices.view`: the invoice page's data in one call: the invoice with its lines described
 * by name, its payments, the recipients it may be sent to and the document that cancels it (or
 * that it cancels).
 */
export function viewInvoice(scope: Scope, input: z.output<typeof invoiceIdInput>): z.output<typeof viewOutput> {
  requireAdmin(scope, 'see invoices');
  const { invoice } = getInvoice(scope, input);
  const doc = loadInvoiceDocument(scope.db, invoice.id, documentContext(scope));
  return {
    invoice,
    client_name: doc.client.name,
    line_details: doc.lines.map((l) => ({ date: l.date, project_name: l.projectName, task_name: l.taskName, person_name: l.personName, notes: l.notes })),
    payments: listPayments(scope, input),
    client_recipients: liveRecipientsOf(scope.db, invoice.client_id),
    related: relatedDocument(scope, invoice),
  };
}
