import { asc, eq } from 'drizzle-orm';
import type { z } from 'zod';
import { invoiceLines, invoiceProjects, invoiceRecipients, invoiceTaxes } from '../../db/schema/index.ts';
import type { Scope } from '../scope.ts';
import { findInvoice } from './queries.ts';
import { toInvoiceSummary, toLineRecord, toTaxRecord } from './records.ts';
import type { getOutput, invoiceIdInput } from './schemas.ts';
import { requireAdmin } from '../access.ts';

/** tRPC `invoices.get`: one invoice with its lines, taxes, projects and recipients. */
export function getInvoice(scope: Scope, input: z.output<typeof invoiceIdInput>): z.output<typeof getOutput> {
  requireAdmin(scope, 'see invoices');
  const { db } = scope;
  const row = findInvoice(db, input.invoice_id);
  const lines = db.select().from(invoiceLines).where(eq(invoiceLines.invoiceId, row.id)).orderBy(asc(invoiceLines.position)).all();
  const taxes = db.select().from(invoiceTaxes).where(eq(invoiceTaxes.invoiceId, row.id)).orderBy(asc(invoiceTaxes.position)).all();
  const projectIds = db.select({ id: invoiceProjects.projectId }).from(invoiceProjects).where(eq(invoiceProjects.invoiceId, row.id)).all();
  const recipientIds = db.select({ id: invoiceRecipients.recipientId }).from(invoiceRecipients).where(eq(invoiceRecipients.invoiceId, row.id)).all();
  return {
    invoice: {
      ...toInvoiceSummary(row, scope.workspace.id, scope.links.publicBase),
      due_date_period: row.dueDatePeriod,
      interval: row.interval,
      include_hours_by_person: row.includeHoursByPerson,
      include_hours_by_task: row.includeHoursByTask,
      include_time_entries: row.includeTimeEntries,
      send_automated_reminder_email: row.sendAutomatedReminderEmail,
      include_payment_link: row.includePaymentLink,
      payment_provider: row.paymentProvider,
      display_task_name: row.displayTaskName,
      display_person_name: row.displayPersonName,
      display_date: row.displayDate,
      display_note: row.displayNote,
      display_project_name: row.displayProjectName,
      send_email: row.sendEmail,
      project_ids: projectIds.map((p) => p.id),
      recipient_ids: recipientIds.map((r) => r.id),
      lines: lines.map((l) => toLineRecord(l, row.currency)),
      taxes: taxes.map((t) => toTaxRecord(t, row.currency)),
    },
  };
}
