import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type * as z from 'zod';
import type { Transaction } from '../../db/index.ts';
import { invoiceProjects, invoiceRecipients, invoices, invoiceTaxes, outbox } from '../../db/schema/index.ts';
import { AppError, unprocessable } from '../../errors.ts';
import { requireAdmin } from '../access.ts';
import { recordEvent } from '../events.ts';
import { isUniqueViolation } from '../queries.ts';
import type { ActorScope } from '../scope.ts';
import { readIdentityIn } from '../workspace/identity.ts';
import { todayIn } from './balance.ts';
import { numberTaken } from './create.ts';
import { formatsFor } from './format.ts';
import { nextNumberOf } from './next-number.ts';
import { copyLinesNegated, findInvoice } from './queries.ts';
import { freshDocument, type InvoiceRow } from './records.ts';
import { CANCELLED_PREFIX } from './settle.ts';
import type { voidInput, voidOutput } from './schemas.ts';
import { releaseEntries } from './store.ts';
import { summaryOf } from './summaries.ts';

function refuseVoid(row: InvoiceRow, input: z.output<typeof voidInput>): void {
  if (row.kind === 'credit_note') throw unprocessable('invoice_is_credit_note', `${row.number} is a credit note; it cannot be voided`);
  if (row.status === 'void') throw unprocessable('invoice_already_void', `Invoice ${row.number} is already void`);
  if (row.status === 'paid') throw unprocessable('invoice_paid', `Invoice ${row.number} is paid and cannot be voided`);
  if (row.status === 'draft' && input.credit_note_number !== undefined) {
    const message = 'a draft was never issued, so there is nothing to credit: it is voided (or deleted) without a credit note';
    throw new AppError('unprocessable', 'invoice_draft', `Invoice ${row.number} is a draft; ${message}`, { details: [{ path: 'credit_note_number', message }] });
  }
}

/**
 * A credit note that cancels `row`: its own number (given, else the next `CN-` number) and public
 * page, every line and tax of the invoice with the amount negated, the same client, projects and
 * recipients. Issued today, as a draft: `invoices.send` e-mails it.
 */
/** A credit note's note when no reason was given, its date written as the documents write dates (the workspace's locale). */
function defaultCreditNote(tx: Transaction, scope: ActorScope, row: InvoiceRow): string {
  const f = formatsFor(readIdentityIn(tx, scope.workspace.name).locale, row.currency);
  return `Cancels invoice ${row.number} of ${f.day(row.issueDate)}.`;
}

function issueCreditNote(scope: ActorScope, tx: Transaction, row: InvoiceRow, input: z.output<typeof voidInput>, at: string): InvoiceRow {
  const number = input.credit_note_number ?? nextNumberOf(tx, 'credit_note');
  if (tx.select({ id: invoices.id }).from(invoices).where(eq(invoices.number, number)).get()) throw numberTaken(number);
  const today = todayIn(scope);
  const note: InvoiceRow = {
    ...row,
    id: randomUUID(),
    number,
    kind: 'credit_note',
    creditedInvoiceId: row.id,
    creatorId: scope.actor.id,
    status: 'draft',
    issueDate: today,
    dueDate: today,
    dueDatePeriod: null,
    interval: null,
    notes: input.reason || defaultCreditNote(tx, scope, row),
    subtotalMinor: -row.subtotalMinor,
    taxMinor: -row.taxMinor,
    totalMinor: -row.totalMinor,
    sendAutomatedReminderEmail: false,
    includePaymentLink: false,
    paymentProvider: null,
    sendEmail: false,
    emailSubject: null,
    emailMessage: null,
    sendMeACopy: false,
    ...freshDocument(at),
  };
  tx.insert(invoices).values(note).run();
  copyLinesNegated(tx, row.id, note.id);
  const taxes = tx.select().from(invoiceTaxes).where(eq(invoiceTaxes.invoiceId, row.id)).all();
  if (taxes.length) tx.insert(invoiceTaxes).values(taxes.map((t) => ({ ...t, id: randomUUID(), invoiceId: note.id, amountMinor: -t.amountMinor }))).run();
  const projectIds = tx.select({ id: invoiceProjects.projectId }).from(invoiceProjects).where(eq(invoiceProjects.invoiceId, row.id)).all();
  if (projectIds.length) tx.insert(invoiceProjects).values(projectIds.map((p) => ({ invoiceId: note.id, projectId: p.id }))).run();
  const recipientIds = tx.select({ id: invoiceRecipients.recipientId }).from(invoiceRecipients).where(eq(invoiceRecipients.invoiceId, row.id)).all();
  if (recipientIds.length) tx.insert(invoiceRecipients).values(recipientIds.map((r) => ({ invoiceId: note.id, recipientId: r.id }))).run();
  return note;
}

/**
 * `invoices.void`. A draft is simply voided. An issued invoice (sending, sent, partially paid) is
 * never changed or deleted: it becomes `void` and a credit note with its own number cancels it.
 * Either way its time entries return to `unbilled` and messages not yet delivered are cancelled.
 * Payments already recorded stay on the voided invoice (money to give back, outside hourbook).
 * Paid invoices and credit notes cannot be voided (422).
 */
export function voidInvoice(scope: ActorScope, input: z.output<typeof voidInput>): z.output<typeof voidOutput> {
  requireAdmin(scope, 'void invoices');
  try {
    return scope.write((tx) => {
      const row = findInvoice(tx, input.invoice_id);
      refuseVoid(row, input);
      const at = scope.now.toISOString();
      const note = row.status === 'draft' ? null : issueCreditNote(scope, tx, row, input, at);
      const [voided] = tx.update(invoices).set({ status: 'void', voidedAt: at, updatedAt: at }).where(eq(invoices.id, row.id)).returning().all();
      releaseEntries(tx, row.id, at);
      tx.update(outbox)
        .set({ status: 'failed', lastError: `${CANCELLED_PREFIX} the invoice was voided before delivery`, claimedAt: null })
        .where(and(eq(outbox.invoiceId, row.id), eq(outbox.status, 'pending')))
        .run();
      const invoice = summaryOf(scope, tx, voided!);
      const creditNote = note && summaryOf(scope, tx, note);
      recordEvent(scope, 'invoice.voided', { invoice, credit_note: creditNote });
      return { invoice, credit_note: creditNote };
    });
  } catch (err) {
    if (input.credit_note_number !== undefined && isUniqueViolation(err, 'invoices.number')) throw numberTaken(input.credit_note_number);
    throw err;
  }
}
