import { asc, eq } from 'drizzle-orm';
import type * as z from 'zod';
import type { Db, Transaction } from '../../db/index.ts';
import { invoiceProjects, invoices, invoiceTaxes } from '../../db/schema/index.ts';
import { invalidField, unprocessable } from '../../errors.ts';
import { requireAdmin } from '../access.ts';
import { recordEvent } from '../events.ts';
import { getClientRow } from '../clients/queries.ts';
import type { ClientRow } from '../clients/records.ts';
import { fromMinor } from '../money.ts';
import { isUniqueViolation } from '../queries.ts';
import type { ActorScope } from '../scope.ts';
import { daysBetween } from '../time/calendar.ts';
import { dueDateAfter } from './dates.ts';
import { numberTaken } from './create.ts';
import { invoiceDetailOf } from './get.ts';
import type { BillableEntry } from './lines.ts';
import { assertTotal, priceInvoice, type PricedInvoice, type PricingRequest } from './price.ts';
import { billableEntries, findInvoice, readLines } from './queries.ts';
import { toInvoiceRecord, type InvoiceRow } from './records.ts';
import type { getOutput, UpdateInput } from './schemas.ts';
import { deleteLinesAndTaxes, insertPriced, projectsOf, projectsOfLines, recipientsOf, releaseEntries, setInvoiceProjects, setInvoiceRecipients } from './store.ts';

/** Only a draft invoice may change: anything issued stays as the client received it. */
export function assertEditableDraft(row: InvoiceRow, what: string): void {
  if (row.kind === 'credit_note') throw unprocessable('invoice_is_credit_note', `${row.number} is a credit note; a credit note cannot be ${what}`);
  if (row.status !== 'draft') {
    throw unprocessable('invoice_not_draft', `Invoice ${row.number} is ${row.status}; only a draft can be ${what} (void it to cancel it)`, { invoice_status: row.status });
  }
}

/** A stored invoice's lines and taxes as the request that would price them the same again. */
function storedRequest(db: Db, row: InvoiceRow): PricingRequest {
  const lines = readLines(db, row.id);
  const taxes = db.select().from(invoiceTaxes).where(eq(invoiceTaxes.invoiceId, row.id)).orderBy(asc(invoiceTaxes.position)).all();
  const money = (minor: number | null) => (minor === null ? undefined : fromMinor(minor, row.currency));
  const timeLines = lines.filter((l) => l.kind === 'time_entry');
  return {
    ...(timeLines.length > 0
      ? {
          invoice_time_entries: timeLines.map((l) => ({
            time_entry_id: l.timeEntryId!,
            project_id: l.projectId!,
            task_id: l.taskId!,
            user_id: l.userId!,
            notes: l.notes,
            hours: l.hours === null ? undefined : Number(l.hours),
            hourly_rate: money(l.hourlyRateMinor),
          })),
        }
      : {
          invoice_services: lines.map((l) => ({
            notes: l.notes,
            quantity: (l.quantityMilli ?? 1000) / 1000,
            unit_amount: money(l.unitAmountMinor),
            project_id: l.projectId ?? undefined,
            file: l.file,
          })),
        }),
    tax_details: taxes.map((t) => ({ name: t.name, percentage: Number(t.percentage), notes: t.notes, selected: t.selected })),
  };
}

const entryIdsOf = (request: PricingRequest) => request.invoice_time_entries?.map((l) => l.time_entry_id) ?? [];

interface Repriced {
  priced: PricedInvoice;
  /** The entries the lines name, read in this transaction. */
  entries: ReadonlyMap<string, BillableEntry>;
  projectIds: string[];
  released: string[];
  added: string[];
}

/**
 * The draft priced again when its lines, taxes or projects change, through the one pricing pass
 * (`priceInvoice`): the lines given, else the stored ones; the taxes given, else the stored ones.
 * Null when nothing that prices the invoice changed.
 */
function reprice(scope: ActorScope, tx: Db, row: InvoiceRow, client: ClientRow, input: UpdateInput): Repriced | null {
  const linesGiven = input.invoice_time_entries !== undefined || input.invoice_services !== undefined;
  if (!linesGiven && input.tax_details === undefined && input.project_id === undefined) return null;
  const stored = storedRequest(tx, row);
  const request: PricingRequest = {
    ...(linesGiven ? { invoice_time_entries: input.invoice_time_entries, invoice_services: input.invoice_services } : stored),
    tax_details: input.tax_details ?? stored.tax_details,
  };
  const { clientProjects, requested } = projectsOf(tx, client.id, input.project_id);
  const entries = billableEntries(scope, entryIdsOf(request), row.id);
  const priced = priceInvoice(request, { clientId: client.id, currency: row.currency, clientProjects, allowedProjects: requested && new Set(requested), entries });
  const before = new Set(entryIdsOf(stored));
  const after = new Set(entryIdsOf(request));
  // Projects named replace the invoice's; otherwise the projects of new lines join the ones it had.
  const current = tx.select({ id: invoiceProjects.projectId }).from(invoiceProjects).where(eq(invoiceProjects.invoiceId, row.id)).all().map((p) => p.id);
  const projectIds = input.project_id !== undefined ? (requested ?? projectsOfLines(priced)) : [...new Set([...current, ...projectsOfLines(priced)])];
  return { priced, entries, projectIds, released: [...before].filter((id) => !after.has(id)), added: [...after].filter((id) => !before.has(id)) };
}

/**
 * The dates after an edit: those given; a new due_date_period counts from the (new) issue date;
 * a new issue date alone keeps the invoice's terms (the days between its issue and due dates).
 */
function datesOf(row: InvoiceRow, input: UpdateInput) {
  const issueDate = input.issue_date ?? row.issueDate;
  const terms = daysBetween(row.issueDate, row.dueDate);
  const dueDate =
    input.due_date ??
    (input.due_date_period !== undefined
      ? dueDateAfter(issueDate, input.due_date_period, 'due_date_period')
      : input.issue_date !== undefined
        ? dueDateAfter(issueDate, terms, 'issue_date')
        : row.dueDate);
  if (dueDate < issueDate) throw invalidField('due_date', `must not be before the issue date ${issueDate}`);
  // A due date given outright wins over payment terms given with it, as it does for the date itself.
  const dueDatePeriod = input.due_date !== undefined ? null : (input.due_date_period ?? row.dueDatePeriod);
  return { issueDate, dueDate, dueDatePeriod };
}

/** The columns the request changes (fields left out keep their value). */
function changesOf(row: InvoiceRow, input: UpdateInput, repriced: Repriced | null): Partial<InvoiceRow> {
  const flags = {
    includeHoursByPerson: input.include_hours_by_person,
    includeHoursByTask: input.include_hours_by_task,
    includeTimeEntries: input.include_time_entries,
    sendAutomatedReminderEmail: input.send_automated_reminder_email,
    includePaymentLink: input.include_payment_link,
    displayTaskName: input.display_task_name,
    displayPersonName: input.display_person_name,
    displayDate: input.display_date,
    displayNote: input.display_note,
    displayProjectName: input.display_project_name,
  };
  return {
    ...Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined)),
    ...datesOf(row, input),
    ...(input.number !== undefined && { number: input.number }),
    ...(input.notes !== undefined && { notes: input.notes }),
    ...(input.interval !== undefined && { interval: input.interval }),
    ...(input.payment_provider !== undefined && { paymentProvider: input.payment_provider }),
    ...(repriced && { subtotalMinor: repriced.priced.subtotalMinor, taxMinor: repriced.priced.taxMinor, totalMinor: repriced.priced.totalMinor }),
  };
}

function writeRepriced(scope: ActorScope, tx: Transaction, invoiceId: string, repriced: Repriced, at: string): void {
  deleteLinesAndTaxes(tx, invoiceId);
  releaseEntries(tx, invoiceId, at, repriced.released);
  insertPriced(scope, tx, invoiceId, repriced.priced, at, { entries: repriced.entries, newEntryIds: repriced.added });
  setInvoiceProjects(tx, invoiceId, repriced.projectIds, at);
}

/**
 * `invoices.update`: edits a draft. Lines, taxes and projects re-price the whole invoice with the
 * same exact rules as endpoint 1; entries taken off return to `unbilled`, new ones become `billed`;
 * `total`, when given, must match (422 `total_mismatch`); `recipient_ids` replaces the draft's
 * recipients (each a live recipient of its client, else 422 naming `recipient_ids.N`). One transaction: a refused edit changes
 * nothing. Anything but a draft → 422 `invoice_not_draft`. Event: `invoice.updated` `{invoice}`.
 */
export function updateInvoice(scope: ActorScope, input: UpdateInput): z.output<typeof getOutput> {
  requireAdmin(scope, 'edit invoices');
  try {
    return scope.write((tx) => {
      const row = findInvoice(tx, input.invoice_id);
      assertEditableDraft(row, 'edited');
      if (input.number !== undefined && input.number !== row.number && tx.select({ id: invoices.id }).from(invoices).where(eq(invoices.number, input.number)).get()) {
        throw numberTaken(input.number);
      }
      // Checked before anything is written: a recipient of another client is a 422 naming recipient_ids.N.
      const recipients = input.recipient_ids && recipientsOf(tx, row.clientId, input.recipient_ids, 'recipient_ids');
      const repriced = reprice(scope, tx, row, getClientRow(tx, row.clientId), input);
      if (input.total !== undefined) assertTotal(input.total, repriced?.priced ?? row, row.currency);
      const at = scope.now.toISOString();
      const [updated] = tx.update(invoices).set({ ...changesOf(row, input, repriced), updatedAt: at }).where(eq(invoices.id, row.id)).returning().all();
      if (repriced) writeRepriced(scope, tx, row.id, repriced, at);
      if (recipients) setInvoiceRecipients(tx, row.id, recipients);
      // As endpoint 1 announces a draft, its edits are announced: a receiver keeps its total and number.
      recordEvent(scope, 'invoice.updated', { invoice: toInvoiceRecord(updated!, scope.workspace.id) });
      return invoiceDetailOf(scope, tx, updated!);
    });
  } catch (err) {
    if (input.number !== undefined && isUniqueViolation(err, 'invoices.number')) throw numberTaken(input.number);
    throw err;
  }
}
