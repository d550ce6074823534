import { randomBytes, randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Db, Transaction } from '../../db/index.ts';
import { clients, invoiceProjects, invoiceRecipients, invoices, invoiceTaxes, projects } from '../../db/schema/index.ts';
import { conflict, invalidField, notFound, unprocessable } from '../../errors.ts';
import { requireAdmin } from '../access.ts';
import { recordEvent } from '../events.ts';
import type { ClientRow } from '../clients/records.ts';
import { inIds, isUniqueViolation } from '../queries.ts';
import { findLiveRecipients } from '../recipients/queries.ts';
import type { RecipientRow } from '../recipients/records.ts';
import type { ActorScope, Scope } from '../scope.ts';
import { fullName } from '../team-members/records.ts';
import { addDays, localDate } from '../time/calendar.ts';
import { mailContext, queueInvoiceMail, replyToFor } from './mail.ts';
import { assertTotal, priceInvoice, type PricedInvoice } from './price.ts';
import { billableEntries, invoiceStatements } from './queries.ts';
import { toInvoiceRecord, type InvoiceRow } from './records.ts';
import type { CreateInput, createOutput } from './schemas.ts';
import type { z } from 'zod';

/** 43 characters of base64url: 256 random bits, never derived from the invoice's id or number. */
const newPublicToken = () => randomBytes(32).toString('base64url');

const numberTaken = (number: string) => conflict('invoice_number_taken', `Invoice number ${number} is already used in this workspace`);

/** The client to invoice: it must exist and be active. */
export function activeClient(tx: Db, clientId: string): ClientRow {
  const client = tx.select().from(clients).where(eq(clients.id, clientId)).get();
  if (!client) throw notFound('client', `No client with id ${clientId}`);
  if (client.status !== 'active') throw unprocessable('client_archived', `Client ${client.name} is archived; reactivate it to invoice it`);
  return client;
}

/** The client's projects, and the ones the request names (each must be the client's). */
export function projectsOf(tx: Db, client: ClientRow, input: Pick<CreateInput, 'project_id'>) {
  const clientProjects = new Set(
    tx
      .select({ id: projects.id })
      .from(projects)
      .where(eq(projects.clientId, client.id))
      .all()
      .map((p) => p.id),
  );
  // An empty list names no projects, the same as leaving project_id out.
  const requested = input.project_id?.length ? [...new Set(input.project_id)] : null;
  requested?.forEach((id) => {
    if (!clientProjects.has(id)) throw invalidField(`project_id.${input.project_id!.indexOf(id)}`, 'is not a project of this client');
  });
  return { clientProjects, requested };
}

function resolveDates(scope: Scope, input: CreateInput, defaultDays: number) {
  const issueDate = input.issue_date ?? localDate(scope.now, scope.workspace.timeZone);
  const dueDate = input.due_date ?? addDays(issueDate, input.due_date_period ?? defaultDays);
  if (dueDate < issueDate) throw invalidField('due_date', `must not be before the issue date ${issueDate}`);
  return { issueDate, dueDate };
}

/** The named recipients, each a live recipient of the client, in the order named. */
function recipientsOf(tx: Transaction, clientId: string, input: CreateInput): RecipientRow[] {
  const named = input.invoice_details?.recipient_ids ?? [];
  const ids = [...new Set(named)];
  const byId = new Map(findLiveRecipients(tx, clientId, ids).map((r) => [r.id, r]));
  return ids.map((id) => {
    const row = byId.get(id);
    if (!row) throw invalidField(`invoice_details.recipient_ids.${named.indexOf(id)}`, 'is not a recipient of this client');
    return row;
  });
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
    dueDatePeriod: input.due_date_period ?? null,
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
    publicToken: newPublicToken(),
    kind: 'invoice',
    creditedInvoiceId: null,
    sentAt: null,
    paidAt: null,
    voidedAt: null,
    createdAt: at,
    updatedAt: at,
  };
}

/**
 * The invoice with its lines, taxes, projects and recipients; its entries marked billed. If another
 * invoice billed one of them in between, fewer rows move and the whole call rolls back.
 */
function insertInvoice(scope: Scope, tx: Transaction, row: InvoiceRow, priced: PricedInvoice, projectIds: string[], recipients: RecipientRow[]): void {
  const st = scope.statements(invoiceStatements);
  tx.insert(invoices).values(row).run();
  for (const line of priced.lines) st.insertLine.run({ ...line, id: randomUUID(), invoiceId: row.id });
  if (priced.taxes.length) tx.insert(invoiceTaxes).values(priced.taxes.map((t) => ({ ...t, id: randomUUID(), invoiceId: row.id }))).run();
  if (projectIds.length) {
    tx.insert(invoiceProjects).values(projectIds.map((projectId) => ({ invoiceId: row.id, projectId }))).run();
    tx.update(projects).set({ lastInvoiceId: row.id, updatedAt: row.createdAt }).where(inIds(projects.id, projectIds)).run();
  }
  if (recipients.length) tx.insert(invoiceRecipients).values(recipients.map((r) => ({ invoiceId: row.id, recipientId: r.id }))).run();
  const entryIds = priced.lines.flatMap((l) => (l.timeEntryId ? [l.timeEntryId] : []));
  if (entryIds.length > 0 && st.markBilled.run({ invoiceId: row.id, at: row.createdAt, ids: JSON.stringify(entryIds) }).changes !== entryIds.length) {
    throw unprocessable('time_entry_not_unbilled', 'A time entry of this invoice was billed by another invoice at the same moment; nothing was created');
  }
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
      const { clientProjects, requested } = projectsOf(tx, client, input);
      const dates = resolveDates(scope, input, client.defaultInvoiceDueInDays);
      if (tx.select({ id: invoices.id }).from(invoices).where(eq(invoices.number, input.number)).get()) throw numberTaken(input.number);
      const entries = billableEntries(scope, input.invoice_time_entries?.map((l) => l.time_entry_id) ?? []);
      const priced = priceInvoice(input, { clientId: client.id, currency: client.currency, clientProjects, allowedProjects: requested && new Set(requested), entries });
      assertTotal(input.total, priced, client.currency);
      const recipients = recipientsOf(tx, client.id, input);

      const row = invoiceRow(scope, input, client, priced, dates);
      // The invoice's projects: the ones named, else those its lines are on.
      const projectIds = requested ?? [...new Set(priced.lines.flatMap((l) => (l.projectId ? [l.projectId] : [])))];
      insertInvoice(scope, tx, row, priced, projectIds, recipients);
      if (row.sendEmail) {
        queueInvoiceMail(scope, tx, row, mailContext(scope, client.name), {
          recipients,
          copyTo: row.sendMeACopy ? { email: scope.actor.email, name: fullName(scope.actor) } : null,
          replyTo: replyToFor(tx, row.id),
        });
      }
      const invoice = toInvoiceRecord(row, scope.workspace.id);
      recordEvent(scope, tx, 'invoice.created', { invoice });
      return { notice_code: 'invoice_created', invoice };
    });
  } catch (err) {
    // Two requests with the same new number can both pass the read above; the index decides.
    if (isUniqueViolation(err, 'invoices.number')) throw numberTaken(input.number);
    throw err;
  }
}
