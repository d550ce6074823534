import { and, asc, desc, eq, gt, gte, lte } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '../../db/index.ts';
import { invoiceLines, invoiceProjects, invoiceRecipients, invoices, invoiceTaxes, outbox } from '../../db/schema/index.ts';
import { notFound } from '../../errors.ts';
import { afterCursor, keysetOrder, pageOf } from '../pagination.ts';
import { toInvoiceSummary, toLineRecord, toTaxRecord, type InvoiceRow } from './records.ts';
import type { InvoiceDetail, listInput } from './schemas.ts';

export function findInvoice(db: Db, invoiceId: string): InvoiceRow {
  const row = db.select().from(invoices).where(eq(invoices.id, invoiceId)).get();
  if (!row) throw notFound('invoice', `No invoice with id ${invoiceId}`);
  return row;
}

export function listInvoices(db: Db, input: z.output<typeof listInput>, organizationId: string, publicBase: string) {
  const rows = db
    .select()
    .from(invoices)
    .where(
      and(
        input.client_id ? eq(invoices.clientId, input.client_id) : undefined,
        input.status ? eq(invoices.status, input.status) : undefined,
        input.from ? gte(invoices.issueDate, input.from) : undefined,
        input.to ? lte(invoices.issueDate, input.to) : undefined,
        input.updated_since ? gt(invoices.updatedAt, input.updated_since) : undefined,
        afterCursor(invoices, input.cursor),
      ),
    )
    .orderBy(...keysetOrder(invoices))
    .limit(input.limit + 1)
    .all();
  const page = pageOf(rows, input.limit);
  return { items: page.items.map((r) => toInvoiceSummary(r, organizationId, publicBase)), next_cursor: page.next_cursor };
}

export function getInvoiceDetail(db: Db, invoiceId: string, organizationId: string, publicBase: string): InvoiceDetail {
  const row = findInvoice(db, invoiceId);
  const lines = db.select().from(invoiceLines).where(eq(invoiceLines.invoiceId, row.id)).orderBy(asc(invoiceLines.position)).all();
  const taxes = db.select().from(invoiceTaxes).where(eq(invoiceTaxes.invoiceId, row.id)).orderBy(asc(invoiceTaxes.position)).all();
  const projectIds = db.select({ id: invoiceProjects.projectId }).from(invoiceProjects).where(eq(invoiceProjects.invoiceId, row.id)).all();
  const recipientIds = db.select({ id: invoiceRecipients.recipientId }).from(invoiceRecipients).where(eq(invoiceRecipients.invoiceId, row.id)).all();
  return {
    ...toInvoiceSummary(row, organizationId, publicBase),
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
  };
}

/** Every message queued for an invoice (sending, reminders, copies), oldest first. */
export function listDeliveries(db: Db, invoiceId: string) {
  findInvoice(db, invoiceId);
  const rows = db.select().from(outbox).where(eq(outbox.invoiceId, invoiceId)).orderBy(asc(outbox.createdAt), asc(outbox.id)).all();
  return {
    items: rows.map((r) => ({
      id: r.id,
      kind: r.kind,
      to_address: r.toAddress,
      to_name: r.toName,
      subject: r.subject,
      status: r.status,
      attempts: r.attempts,
      next_attempt_at: r.nextAttemptAt,
      last_error: r.lastError,
      message_id: r.messageId,
      sent_at: r.sentAt,
      created_at: r.createdAt,
    })),
  };
}

/**
 * The number after `last`: its trailing digits plus one, zero padding kept (`INV-0041` →
 * `INV-0042`, `2026/099` → `2026/100`, `INV-9999` → `INV-10000`); a number without trailing
 * digits gets `-2` appended ("the second one").
 */
export function incrementNumber(last: string): string {
  const m = /^(.*?)(\d+)$/.exec(last);
  if (!m) return `${last}-2`;
  const [, prefix = '', digits = ''] = m;
  const next = (BigInt(digits) + 1n).toString();
  return prefix + next.padStart(digits.length, '0');
}

const FIRST_NUMBER = 'INV-0001';

/**
 * Proposes the next invoice number from the most recently created invoice. A proposal is only a
 * read: two callers may get the same one, and the unique index decides at create time (the loser
 * gets 409 invoice_number_taken and asks again). Numbers already used further ahead are skipped.
 */
export function nextInvoiceNumber(db: Db): string {
  const last = db.select({ number: invoices.number }).from(invoices).orderBy(desc(invoices.createdAt), desc(invoices.id)).limit(1).get();
  let candidate = last ? incrementNumber(last.number) : FIRST_NUMBER;
  for (let i = 0; i < 1000; i++) {
    if (!db.select({ id: invoices.id }).from(invoices).where(eq(invoices.number, candidate)).get()) return candidate;
    candidate = incrementNumber(candidate);
  }
  return candidate;
}
