import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Transaction } from '../../db/index.ts';
import { clients, invoiceProjects, invoices, projects } from '../../db/schema/index.ts';
import { conflict, invalidField } from '../../errors.ts';
import { requireAdmin } from '../access.ts';
import { recordEvent } from '../events.ts';
import type { ClientRow } from '../clients/records.ts';
import { inIds, isUniqueViolation } from '../queries.ts';
import type { RecipientRow } from '../recipients/records.ts';
import type { ActorScope, Scope } from '../scope.ts';
import { localDate } from '../time/calendar.ts';
import { dueDateAfter } from './dates.ts';
import type { BillableEntry } from './lines.ts';
import { assertTotal, priceInvoice, type PricedInvoice } from './price.ts';
import { billableEntries } from './queries.ts';
import { freshDocument, toInvoiceRecord, type InvoiceRow } from './records.ts';
import { queueSending } from './sending.ts';
import { activeClient, insertPriced, projectsOf, projectsOfLines, recipientsOf, setInvoiceRecipients, timeEntryIdsOf } from './store.ts';
import type { CreateInput, createOutput } from './schemas.ts';
import type * as z from 'zod';

export const numberTaken = (number: string) => conflict('invoice_number_taken', `Invoice number ${number} is already used in this workspace`);

function resolveDates(scope: Scope, input: CreateInput, defaultDays: number) {
  const issueDate = input.issue_date ?? localDate(scope.now, scope.workspace.timeZone);
  const dueDate = input.due_date ?? dueDateAfter(issueDate, input.due_date_period ?? defaultDays, input.due_date_period === undefined ? 'issue_date' : 'due_date_period');
  if (dueDate < issueDate) throw invalidField('due_date', `must not be before the issue date ${issueDate}`);
  return { issueDate, dueDate };
}

function invoiceRow(scope: ActorScope, input: CreateInput, client: ClientRow, priced: PricedInvoice, dates: { issueDate: string; dueDate: string }): InvoiceRow {
  const details = input.invoice_details;
  const sendEmail = input.send_email ?? false;
  const at = scope.now.toISOString();
  return {
    id: randomUUID(),
    clientId: client.id,
    creatorId: scope.actor.id,
    number: input.number,
    status: sendEmail ? 'sending' : 'draft',
    currency: client.currency,
    ...dates,
    // The payment terms in days, when they set the due date; a due date given outright wins over them.
    dueDatePeriod: input.due_date === undefined ? (input.due_date_period ?? null) : null,
    interval: input.interval ?? null,
    notes: input.notes ?? '',
    subtotalMinor: priced.subtotalMinor,
    taxMinor: priced.taxMinor,
    totalMinor: priced.totalMinor,
    includeHoursByPerson: input.include_hours_by_person ?? client.includeHoursByPersonInInvoice,
    includeHoursByTask: input.include_hours_by_task ?? false,
    includeTimeEntries: input.include_time_entries ?? false,
    sendAutomatedReminderEmail: input.send_automated_reminder_email ?? false,
    includePaymentLink: input.include_payment_link ?? false,
    paymentProvider: input.payment_provider ?? null,
    displayTaskName: input.display_task_name ?? true,
    displayPersonName: input.display_person_name ?? true,
    displayDate: input.display_date ?? true,
    displayNote: input.display_note ?? true,
    displayProjectName: input.display_project_name ?? true,
    sendEmail,
    emailSubject: details?.subject ?? null,
    emailMessage: details?.message ?? null,
    attachPdf: details?.attach_pdf_invoice ?? false,
    sendMeACopy: details?.send_me_a_copy ?? false,
    kind: 'invoice',
    creditedInvoiceId: null,
    ...freshDocument(at),
  };
}

/**
 * The invoice with its lines, taxes, projects and recipients; its entries marked billed (if
 * another invoice billed one in between, the whole call rolls back).
 */
function insertInvoice(scope: Scope, tx: Transaction, row: InvoiceRow, priced: PricedInvoice, entries: ReadonlyMap<string, BillableEntry>, projectIds: string[], recipients: RecipientRow[]): void {
  tx.insert(invoices).values(row).run();
  const newEntryIds = timeEntryIdsOf(priced.lines);
  insertPriced(scope, tx, row.id, priced, row.createdAt, { entries, newEntryIds });
  if (projectIds.length) {
    tx.insert(invoiceProjects).values(projectIds.map((projectId) => ({ invoiceId: row.id, projectId }))).run();
    tx.update(projects).set({ lastInvoiceId: row.id, updatedAt: row.createdAt }).where(inIds(projects.id, projectIds)).run();
  }
  setInvoiceRecipients(tx, row.id, recipients);
  if (row.interval !== null) tx.update(clients).set({ lastInvoiceInterval: row.interval, updatedAt: row.createdAt }).where(eq(clients.id, row.clientId)).run();
}

/**
 * Endpoint 1. Everything (the invoice, its lines, taxes, projects and recipients, the entries
 * marked billed, the queued e-mail) is written in one immediate transaction, so a rejected request
 * changes nothing and two requests for the same entries are serialised.
 */
export function createInvoice(scope: ActorScope, input: CreateInput): z.output<typeof createOutput> {
  requireAdmin(scope, 'create invoices');
  try {
    return scope.write((tx) => {
      const client = activeClient(tx, input.client_id);
      const { clientProjects, requested } = projectsOf(tx, client.id, input.project_id);
      const dates = resolveDates(scope, input, client.defaultInvoiceDueInDays);
      if (tx.select({ id: invoices.id }).from(invoices).where(eq(invoices.number, input.number)).get()) throw numberTaken(input.number);
      const entries = billableEntries(scope, input.invoice_time_entries?.map((l) => l.time_entry_id) ?? []);
      const priced = priceInvoice(input, { clientId: client.id, currency: client.currency, clientProjects, allowedProjects: requested && new Set(requested), entries });
      assertTotal(input.total, priced, client.currency);
      const recipients = recipientsOf(tx, client.id, input.invoice_details?.recipient_ids ?? [], 'invoice_details.recipient_ids');

      const row = invoiceRow(scope, input, client, priced, dates);
      // The invoice's projects: the ones named, else those its lines are on.
      const projectIds = requested ?? projectsOfLines(priced);
      insertInvoice(scope, tx, row, priced, entries, projectIds, recipients);
      if (row.sendEmail) queueSending(scope, tx, row, client.name, recipients);
      const invoice = toInvoiceRecord(row, scope.workspace.id);
      recordEvent(scope, 'invoice.created', { invoice });
      return { notice_code: 'invoice_created', invoice };
    });
  } catch (err) {
    // Two requests with the same new number can both pass the read above; the index decides.
    if (isUniqueViolation(err, 'invoices.number')) throw numberTaken(input.number);
    throw err;
  }
}
