import { z } from 'zod';
import { requireAdmin } from '../access.ts';
import { dateOut } from '../fields.ts';
import type { Scope } from '../scope.ts';
import { documentContext, loadInvoiceDocument } from './document.ts';
import { getInvoice } from './get.ts';
import { getOutput, type invoiceIdInput } from './schemas.ts';

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
});

/** tRPC `invoices.view`: the invoice page's data, the invoice with its lines described by name. */
export function viewInvoice(scope: Scope, input: z.output<typeof invoiceIdInput>): z.output<typeof viewOutput> {
  requireAdmin(scope, 'see invoices');
  const { invoice } = getInvoice(scope, input);
  const doc = loadInvoiceDocument(scope.db, invoice.id, documentContext(scope));
  return {
    invoice,
    client_name: doc.client.name,
    line_details: doc.lines.map((l) => ({ date: l.date, project_name: l.projectName, task_name: l.taskName, person_name: l.personName, notes: l.notes })),
  };
}
