import { asc, eq } from 'drizzle-orm';
import type * as z from 'zod';
import type { Db } from '../../db/index.ts';
import { invoiceProjects, invoiceTaxes } from '../../db/schema/index.ts';
import type { Scope } from '../scope.ts';
import { findInvoice, readLines } from './queries.ts';
import { invoiceRecipientIds } from './store.ts';
import { toLineRecord, toTaxRecord, type InvoiceRow } from './records.ts';
import type { getOutput, invoiceIdInput } from './schemas.ts';
import { requireAdmin } from '../access.ts';
import { summaryOf } from './summaries.ts';

/** One invoice with its lines, taxes, projects and recipients, read through `db` (a transaction after a write). */
export function invoiceDetailOf(scope: Scope, db: Db, row: InvoiceRow): z.output<typeof getOutput> {
  const lines = readLines(db, row.id);
  const taxes = db.select().from(invoiceTaxes).where(eq(invoiceTaxes.invoiceId, row.id)).orderBy(asc(invoiceTaxes.position)).all();
  const projectIds = db.select({ id: invoiceProjects.projectId }).from(invoiceProjects).where(eq(invoiceProjects.invoiceId, row.id)).all();
  return {
    invoice: {
      ...summaryOf(scope, db, row),
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
      recipient_ids: invoiceRecipientIds(db, row.id),
      lines: lines.map((l) => toLineRecord(l, row.currency)),
      taxes: taxes.map((t) => toTaxRecord(t, row.currency)),
    },
  };
}

/** tRPC `invoices.get`: one invoice with its lines, taxes, projects and recipients. */
export function getInvoice(scope: Scope, input: z.output<typeof invoiceIdInput>): z.output<typeof getOutput> {
  requireAdmin(scope, 'see invoices');
  return invoiceDetailOf(scope, scope.db, findInvoice(scope.db, input.invoice_id));
}
