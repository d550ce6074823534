import { eq } from 'drizzle-orm';
import type * as z from 'zod';
import type { Db } from '../../db/index.ts';
import { clients, invoiceRecipients, invoices } from '../../db/schema/index.ts';
import { invalidField, unprocessable } from '../../errors.ts';
import { requireAdmin } from '../access.ts';
import { recordEvent } from '../events.ts';
import type { RecipientRow } from '../recipients/records.ts';
import type { ActorScope, Scope } from '../scope.ts';
import { fullName } from '../team-members/records.ts';
import { mailContext, queueInvoiceMail, replyToFor } from './mail.ts';
import { findInvoice } from './queries.ts';
import type { InvoiceRow } from './records.ts';
import type { invoiceIdInput, resendInput, sendInput, sendOutput, statusChangeOutput } from './schemas.ts';
import { clientMailPending } from './settle.ts';
import { invoiceRecipientIds, recipientsOf, setInvoiceRecipients } from './store.ts';
import { summaryOf } from './summaries.ts';

type Details = z.output<typeof sendInput>['invoice_details'];

const clientNameOf = (tx: Db, clientId: string) => tx.select({ name: clients.name }).from(clients).where(eq(clients.id, clientId)).get()?.name ?? '';

/**
 * Queues an invoice's e-mail to its recipients (and the acting person's copy when it asks for
 * one), from the workspace's identity, with Reply-To from its projects or the workspace.
 */
export function queueSending(
  scope: ActorScope,
  tx: Db,
  row: InvoiceRow,
  clientName: string,
  recipients: RecipientRow[],
  opts: { kind?: 'invoice' | 'invoice_resend'; details?: Details } = {},
): number {
  const ctx = mailContext(scope, tx, clientName);
  const copy = opts.details ? (opts.details.send_me_a_copy ?? false) : row.sendMeACopy;
  return queueInvoiceMail(scope, tx, row, ctx, {
    recipients,
    copyTo: copy ? { email: scope.actor.email, name: fullName(scope.actor) } : null,
    replyTo: replyToFor(tx, row.id, ctx.identity),
    kind: opts.kind ?? 'invoice',
    ...(opts.details && {
      content: { subject: opts.details.subject ?? null, message: opts.details.message ?? null, attachPdf: opts.details.attach_pdf_invoice ?? false },
    }),
  });
}

/** The recipients named become (also) the invoice's recipients: reminders go to them too. */
function addRecipients(tx: Db, invoiceId: string, recipients: RecipientRow[]): void {
  if (recipients.length) tx.insert(invoiceRecipients).values(recipients.map((r) => ({ invoiceId, recipientId: r.id }))).onConflictDoNothing().run();
}

const notDraft = (row: InvoiceRow) =>
  unprocessable('invoice_not_draft', `${row.kind === 'credit_note' ? 'Credit note' : 'Invoice'} ${row.number} is ${row.status}, not a draft; use invoices.resend to e-mail it again`, {
    invoice_status: row.status,
  });

/**
 * `invoices.send`: e-mails a draft (invoice or credit note) later, with endpoint 1's
 * `invoice_details` rules: at least one live recipient of the client. The draft becomes `sending`,
 * then `sent` once every message was delivered, exactly as when sent at creation.
 */
export function sendInvoice(scope: ActorScope, input: z.output<typeof sendInput>): z.output<typeof sendOutput> {
  requireAdmin(scope, 'send invoices');
  return scope.write((tx) => {
    const row = findInvoice(tx, input.invoice_id);
    if (row.status !== 'draft') throw notDraft(row);
    const details = input.invoice_details;
    const recipients = recipientsOf(tx, row.clientId, details.recipient_ids ?? invoiceRecipientIds(tx, row.id), 'invoice_details.recipient_ids');
    if (recipients.length === 0) throw invalidField('invoice_details.recipient_ids', 'must name at least one recipient (the draft has none)');
    const at = scope.now.toISOString();
    const [sending] = tx
      .update(invoices)
      .set({
        status: 'sending',
        sendEmail: true,
        emailSubject: details.subject ?? null,
        emailMessage: details.message ?? null,
        attachPdf: details.attach_pdf_invoice ?? false,
        sendMeACopy: details.send_me_a_copy ?? false,
        updatedAt: at,
      })
      .where(eq(invoices.id, row.id))
      .returning()
      .all();
    setInvoiceRecipients(tx, row.id, recipients);
    const queued = queueSending(scope, tx, sending!, clientNameOf(tx, row.clientId), recipients);
    return { invoice: summaryOf(scope, tx, sending!), queued };
  });
}

/**
 * `invoices.resend`: e-mails an issued invoice or credit note again to the recipients chosen (any
 * live recipients of its client), e.g. when a client lost it. Its status does not change here; an
 * invoice still `sending` (its first recipient's address refused, say) settles on the resend like
 * on its first messages: delivered to the client, it is `sent` (settleInvoiceDelivery), also when
 * the first messages had already failed for good.
 */
export function resendInvoice(scope: ActorScope, input: z.output<typeof resendInput>): z.output<typeof sendOutput> {
  requireAdmin(scope, 'send invoices');
  return scope.write((tx) => {
    const row = findInvoice(tx, input.invoice_id);
    if (row.status === 'draft') throw unprocessable('invoice_draft', `Invoice ${row.number} is a draft; send it with invoices.send`);
    if (row.status === 'void') throw unprocessable('invoice_void', `Invoice ${row.number} is void; it is not sent again`);
    const recipients = recipientsOf(tx, row.clientId, input.invoice_details.recipient_ids, 'invoice_details.recipient_ids');
    addRecipients(tx, row.id, recipients);
    const queued = queueSending(scope, tx, row, clientNameOf(tx, row.clientId), recipients, { kind: 'invoice_resend', details: input.invoice_details });
    return { invoice: summaryOf(scope, tx, row), queued };
  });
}

/**
 * Whether `markSent` takes the invoice: a draft, or an invoice still `sending` whose e-mail gave up
 * without reaching the client (its address refused, nothing pending): the agency delivered it
 * another way. One whose mail is still on its way waits for it.
 */
function markSentRefusal(tx: Db, row: InvoiceRow) {
  if (row.status === 'draft') return null;
  if (row.status === 'sending' && clientMailPending(tx, row.id)) {
    return unprocessable('invoice_not_draft', `${row.kind === 'credit_note' ? 'Credit note' : 'Invoice'} ${row.number} is still being e-mailed; it is sent once delivered`, {
      invoice_status: row.status,
    });
  }
  return row.status === 'sending' ? null : notDraft(row);
}

/**
 * `invoices.markSent`: the agency delivered a draft itself (printed, its own mail program): it
 * becomes `sent` without any e-mail, so payments can be recorded and it can become overdue. Also
 * for an invoice left `sending` because its e-mail never reached the client (markSentRefusal).
 */
export function markInvoiceSent(scope: Scope, input: z.output<typeof invoiceIdInput>): z.output<typeof statusChangeOutput> {
  requireAdmin(scope, 'mark invoices sent');
  return scope.write((tx) => {
    const row = findInvoice(tx, input.invoice_id);
    const refusal = markSentRefusal(tx, row);
    if (refusal) throw refusal;
    const at = scope.now.toISOString();
    const [sent] = tx.update(invoices).set({ status: 'sent', sentAt: at, updatedAt: at }).where(eq(invoices.id, row.id)).returning().all();
    const invoice = summaryOf(scope, tx, sent!);
    recordEvent(scope, 'invoice.sent', { invoice });
    return { invoice };
  });
}
