import { asc, eq, isNotNull, and } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { invoiceProjects, invoices, projects } from '../../db/schema/index.ts';
import { enqueueMail, type OutgoingMail } from '../../mail/outbox.ts';
import { defaultInvoiceSubject, invoiceMail, reminderMail, type MailSeller, type PageLink } from '../../mail/templates/invoice.ts';
import type { RenderedMail } from '../../mail/templates/layout.ts';
import type { Scope } from '../scope.ts';
import { readIdentityIn, type Identity } from '../workspace/identity.ts';
import { balanceDueMinor, paidByInvoice } from './balance.ts';
import { cardCheckout } from './card-payment.ts';
import { formatsFor } from './format.ts';
import { publicInvoiceUrl, type InvoiceRow } from './records.ts';

interface MailContext {
  identity: Identity;
  clientName: string;
  publicBase: string;
}

interface Person {
  id?: string;
  email: string;
  name: string;
}

/** Who sends an invoice's messages (the workspace's identity, read in `tx`), to which client, and where its page is. */
export const mailContext = (scope: Scope, tx: Db, clientName: string): MailContext => ({
  identity: readIdentityIn(tx, scope.workspace.name),
  clientName,
  publicBase: scope.links.publicBase,
});

/**
 * Reply-To of an invoice's messages: the `reply_to` of the earliest-created project of the invoice
 * that has one, so replies reach the people doing the work; else the workspace's own reply-to.
 */
export function replyToFor(db: Db, invoiceId: string, identity: Identity): string | null {
  const row = db
    .select({ replyTo: projects.replyTo })
    .from(invoiceProjects)
    .innerJoin(projects, eq(projects.id, invoiceProjects.projectId))
    .where(and(eq(invoiceProjects.invoiceId, invoiceId), isNotNull(projects.replyTo)))
    .orderBy(asc(projects.createdAt), asc(projects.id))
    .limit(1)
    .get();
  return row?.replyTo ?? identity.replyTo;
}

const sellerOf = (identity: Identity): MailSeller => ({ name: identity.name, address: identity.address });

/**
 * The link to the invoice's public page (when `include_payment_link`), and whether that page offers
 * to pay: by the same rule as its "Pay now" button (`cardCheckout`: card payment set up, the invoice
 * not opted out, a balance the processor can charge), decided when the message is queued. Without
 * it the link says "View the invoice online", never "pay".
 */
function pageLinkOf(scope: Scope, invoice: InvoiceRow, ctx: MailContext): PageLink | null {
  if (!invoice.includePaymentLink || invoice.kind !== 'invoice') return null;
  return { url: publicInvoiceUrl(ctx.publicBase, invoice.publicToken), payable: 'plan' in cardCheckout(scope, invoice) };
}

/** The invoice a credit note cancels: its number and what had been paid on it (minor units). */
function creditedOf(tx: Db, invoice: InvoiceRow): { number: string | null; paidMinor: number } {
  if (!invoice.creditedInvoiceId) return { number: null, paidMinor: 0 };
  const number = tx.select({ number: invoices.number }).from(invoices).where(eq(invoices.id, invoice.creditedInvoiceId)).get()?.number ?? null;
  return { number, paidMinor: paidByInvoice(tx, [invoice.creditedInvoiceId]).get(invoice.creditedInvoiceId) ?? 0 };
}

type DocumentFacts = Parameters<typeof invoiceMail>[0]['doc'];

/**
 * What an invoice (or credit note) message states, from the invoice as it is in `db`: its total,
 * what was paid and what is still due, the due date, the link to its page (and whether that page
 * offers to pay); for a credit note, the invoice it cancels and what was paid on it.
 */
function documentFacts(scope: Scope, db: Db, invoice: InvoiceRow, ctx: MailContext): DocumentFacts {
  const f = formatsFor(ctx.identity.locale, invoice.currency);
  const credited = creditedOf(db, invoice);
  const paidMinor = invoice.kind === 'invoice' ? (paidByInvoice(db, [invoice.id]).get(invoice.id) ?? 0) : 0;
  const balanceMinor = balanceDueMinor(invoice, paidMinor);
  return {
    kind: invoice.kind,
    number: invoice.number,
    // A credit note's total is the invoice's, negated: the mail says what it credits, as a positive amount.
    total: f.money(invoice.kind === 'credit_note' ? Math.abs(invoice.totalMinor) : invoice.totalMinor),
    paid: paidMinor > 0 ? { paid: f.money(paidMinor), balance: f.money(balanceMinor), settled: balanceMinor === 0 } : null,
    dueDate: f.day(invoice.dueDate),
    creditedNumber: credited.number,
    creditedPaid: credited.paidMinor > 0 ? f.money(credited.paidMinor) : null,
    page: pageLinkOf(scope, invoice, ctx),
  };
}

/**
 * Queues the invoice (or credit note) e-mail for each recipient, greeted by name, and a copy for
 * the acting user, in the caller's transaction. Delivered, `invoice` and `invoice_resend` messages
 * alike settle a `sending` invoice (settle.ts, `CLIENT_INVOICE_KINDS`).
 */
export function queueInvoiceMail(
  scope: Scope,
  tx: Db,
  invoice: InvoiceRow,
  ctx: MailContext,
  opts: {
    recipients: Required<Person>[];
    copyTo: Person | null;
    replyTo: string | null;
    kind?: 'invoice' | 'invoice_resend';
    /** What this sending says; default: what the invoice was last sent with. */
    content?: { subject: string | null; message: string | null; attachPdf: boolean };
  },
): number {
  const content = opts.content ?? { subject: invoice.emailSubject, message: invoice.emailMessage, attachPdf: invoice.attachPdf };
  const seller = sellerOf(ctx.identity);
  const doc = documentFacts(scope, tx, invoice, ctx);
  const subject = content.subject?.trim() || defaultInvoiceSubject(invoice, seller);
  const base: Omit<OutgoingMail, 'to' | 'kind' | 'text'> = { subject, replyTo: opts.replyTo, invoiceId: invoice.id, attachInvoicePdf: content.attachPdf };
  for (const r of opts.recipients) {
    const body = invoiceMail({ doc, seller, recipientName: r.name, message: content.message });
    const words = { message: content.message, copyFor: null };
    enqueueMail(scope, tx, { ...base, ...body, words, kind: opts.kind ?? 'invoice', recipientId: r.id, to: { address: r.email, name: r.name } });
  }
  if (opts.copyTo) {
    const words = { message: content.message, copyFor: `the client ${ctx.clientName}` };
    const body = invoiceMail({ doc, seller, recipientName: opts.copyTo.name, ...words });
    enqueueMail(scope, tx, { ...base, ...body, words, kind: 'invoice_copy', subject: `Copy: ${subject}`, to: { address: opts.copyTo.email, name: opts.copyTo.name } });
  }
  return opts.recipients.length + (opts.copyTo ? 1 : 0);
}

/** An invoice message as the outbox holds it. */
interface QueuedInvoiceMail {
  invoiceId: string | null;
  toName: string | null;
  words: { message: string | null; copyFor: string | null } | null;
}

/**
 * An invoice's message (to the client, or the sender's copy) as it is delivered now: the words
 * queued with it (the sender's message, the copy's addressee, the greeting) with the total, what
 * was paid, what is still due and whether its page offers to pay as they are at delivery, like the
 * PDF attached then, so a payment recorded while the message waited (a mail outage, a retry) is
 * never asked for again; the seller's name and address are read now too, as the sender name is.
 * Null for a message queued without its words (before they were kept), which goes as queued.
 */
export function invoiceMailAtDelivery(scope: Scope, queued: QueuedInvoiceMail): RenderedMail | null {
  if (!queued.invoiceId || !queued.words) return null;
  const invoice = scope.db.select().from(invoices).where(eq(invoices.id, queued.invoiceId)).get();
  if (!invoice) return null;
  // The client's name only words the copy's note, which is kept in `words`.
  const ctx = mailContext(scope, scope.db, '');
  const { message, copyFor } = queued.words;
  return invoiceMail({ doc: documentFacts(scope, scope.db, invoice, ctx), seller: sellerOf(ctx.identity), recipientName: queued.toName, message, ...(copyFor !== null && { copyFor }) });
}

/** A reminder of the balance still due, on the due date or a week after. */
export function queueReminderMail(
  scope: Scope,
  tx: Db,
  invoice: InvoiceRow,
  ctx: MailContext,
  opts: { recipients: Required<Person>[]; replyTo: string | null; remindOn: string; balanceMinor: number },
): number {
  const f = formatsFor(ctx.identity.locale, invoice.currency);
  const overdue = opts.remindOn > invoice.dueDate;
  const subject = overdue
    ? `Reminder: invoice ${invoice.number} from ${ctx.identity.name} is overdue`
    : `Reminder: invoice ${invoice.number} from ${ctx.identity.name} is due today`;
  const page = pageLinkOf(scope, invoice, ctx);
  for (const r of opts.recipients) {
    const body = reminderMail({
      number: invoice.number,
      balance: f.money(opts.balanceMinor),
      total: f.money(invoice.totalMinor),
      partlyPaid: opts.balanceMinor < invoice.totalMinor,
      dueDate: f.day(invoice.dueDate),
      overdue,
      page,
      seller: sellerOf(ctx.identity),
      recipientName: r.name,
    });
    enqueueMail(scope, tx, {
      kind: 'invoice_reminder',
      recipientId: r.id,
      to: { address: r.email, name: r.name },
      subject,
      ...body,
      replyTo: opts.replyTo,
      invoiceId: invoice.id,
      attachInvoicePdf: invoice.attachPdf,
    });
  }
  return opts.recipients.length;
}
