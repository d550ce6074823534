import { eq } from 'drizzle-orm';
import type * as z from 'zod';
import { invoiceProjects, invoiceRecipients, invoiceReminders, invoices } from '../../db/schema/index.ts';
import { requireAdmin } from '../access.ts';
import { recordEvent } from '../events.ts';
import type { Scope } from '../scope.ts';
import { findInvoice } from './queries.ts';
import { toInvoiceRecord } from './records.ts';
import type { deleteOutput, invoiceIdInput } from './schemas.ts';
import { deleteLinesAndTaxes, refreshLastInvoice, releaseEntries } from './store.ts';
import { assertEditableDraft } from './update.ts';

/**
 * `invoices.delete`: removes a draft (never issued, so nothing to keep) with its lines, taxes,
 * projects and recipients; its time entries return to `unbilled` (`releaseEntries`) and its number is free again.
 * Messages it ever had stay in the outbox log. Anything but a draft → 422 (void it instead).
 * Event: `invoice.deleted` `{invoice}` as it was, so a receiver told of the draft forgets it (and
 * is not surprised when its number comes back on another invoice).
 */
export function deleteInvoice(scope: Scope, input: z.output<typeof invoiceIdInput>): z.output<typeof deleteOutput> {
  requireAdmin(scope, 'delete invoices');
  return scope.write((tx) => {
    const row = findInvoice(tx, input.invoice_id);
    assertEditableDraft(row, 'deleted');
    const at = scope.now.toISOString();
    const projectIds = tx.select({ id: invoiceProjects.projectId }).from(invoiceProjects).where(eq(invoiceProjects.invoiceId, row.id)).all().map((p) => p.id);
    releaseEntries(tx, row.id, at);
    deleteLinesAndTaxes(tx, row.id);
    tx.delete(invoiceProjects).where(eq(invoiceProjects.invoiceId, row.id)).run();
    tx.delete(invoiceRecipients).where(eq(invoiceRecipients.invoiceId, row.id)).run();
    tx.delete(invoiceReminders).where(eq(invoiceReminders.invoiceId, row.id)).run();
    tx.delete(invoices).where(eq(invoices.id, row.id)).run();
    refreshLastInvoice(tx, projectIds, at);
    recordEvent(scope, 'invoice.deleted', { invoice: toInvoiceRecord(row, scope.workspace.id) });
    return { deleted: true, invoice_id: row.id };
  });
}
