import { asc, eq, isNotNull, and } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { invoiceProjects, projects } from '../../db/schema/index.ts';
import { enqueueMail, type OutgoingMail } from '../../mail/outbox.ts';
import { formatMoney } from '../money.ts';
import type { Scope } from '../scope.ts';
import { publicInvoiceUrl, type InvoiceRow } from './records.ts';

interface MailContext {
  workspaceName: string;
  clientName: string;
  publicBase: string;
}

/** What an invoice's messages say about who sends them, to whom, and where its page is. */
export const mailContext = (scope: Scope, clientName: string): MailContext => ({
  workspaceName: scope.workspace.name,
  clientName,
  publicBase: scope.links.publicBase,
});

/**
 * Reply-To of an invoice's messages: the `reply_to` of the earliest-created project of the invoice
 * that has one, so replies reach the people doing the work rather than a no-reply address.
 */
export function replyToFor(db: Db, invoiceId: string): string | null {
  const row = db
    .select({ replyTo: projects.replyTo })
    .from(invoiceProjects)
    .innerJoin(projects, eq(projects.id, invoiceProjects.projectId))
    .where(and(eq(invoiceProjects.invoiceId, invoiceId), isNotNull(projects.replyTo)))
    .orderBy(asc(projects.createdAt), asc(projects.id))
    .limit(1)
    .get();
  return row?.replyTo ?? null;
}

const paymentLine = (invoice: InvoiceRow, ctx: MailContext) =>
  invoice.includePaymentLink ? `\n\nView and pay the invoice online: ${publicInvoiceUrl(ctx.publicBase, invoice.publicToken)}` : '';

const summary = (invoice: InvoiceRow) => `${formatMoney(invoice.totalMinor, invoice.currency)}, due ${invoice.dueDate}`;

function defaultSubject(invoice: InvoiceRow, ctx: MailContext): string {
  return `Invoice ${invoice.number} from ${ctx.workspaceName}`;
}

function defaultMessage(invoice: InvoiceRow, ctx: MailContext): string {
  return `Hello,\n\nplease find invoice ${invoice.number} for ${summary(invoice)}.\n\nThank you,\n${ctx.workspaceName}`;
}

/**
 * Queues the invoice e-mail for each recipient (and a copy for the acting user) in the caller's
 * transaction. The body is the caller's message, followed by the payment link when asked for.
 */
export function queueInvoiceMail(
  scope: Scope,
  tx: Db,
  invoice: InvoiceRow,
  ctx: MailContext,
  opts: {
    recipients: { id: string; email: string; name: string }[];
    copyTo: { email: string; name: string } | null;
    replyTo: string | null;
  },
): number {
  const subject = invoice.emailSubject?.trim() || defaultSubject(invoice, ctx);
  const text = (invoice.emailMessage?.trim() || defaultMessage(invoice, ctx)) + paymentLine(invoice, ctx);
  const base: Omit<OutgoingMail, 'to' | 'kind'> = {
    subject,
    text,
    replyTo: opts.replyTo,
    invoiceId: invoice.id,
    attachInvoicePdf: invoice.attachPdf,
  };
  let queued = 0;
  for (const r of opts.recipients) {
    enqueueMail(scope, tx, { ...base, kind: 'invoice', recipientId: r.id, to: { address: r.email, name: r.name } });
    queued++;
  }
  if (opts.copyTo) {
    enqueueMail(scope, tx, {
      ...base,
      kind: 'invoice_copy',
      subject: `Copy: ${subject}`,
      text: `This is your copy of the invoice e-mail sent to the client ${ctx.clientName}.\n\n${text}`,
      to: { address: opts.copyTo.email, name: opts.copyTo.name },
    });
    queued++;
  }
  return queued;
}

/** A reminder for an unpaid invoice, on its due date or a week after. */
export function queueReminderMail(
  scope: Scope,
  tx: Db,
  invoice: InvoiceRow,
  ctx: MailContext,
  opts: { recipients: { id: string; email: string; name: string }[]; replyTo: string | null; remindOn: string },
): number {
  const overdue = opts.remindOn > invoice.dueDate;
  const subject = overdue
    ? `Reminder: invoice ${invoice.number} from ${ctx.workspaceName} is overdue`
    : `Reminder: invoice ${invoice.number} from ${ctx.workspaceName} is due today`;
  const text =
    `Hello,\n\nthis is a friendly reminder that invoice ${invoice.number} for ${summary(invoice)} ` +
    `${overdue ? 'is overdue' : 'is due today'}. If you have already paid it, please ignore this message.` +
    paymentLine(invoice, ctx) +
    `\n\nThank you,\n${ctx.workspaceName}`;
  for (const r of opts.recipients) {
    enqueueMail(scope, tx, {
      kind: 'invoice_reminder',
      recipientId: r.id,
      to: { address: r.email, name: r.name },
      subject,
      text,
      replyTo: opts.replyTo,
      invoiceId: invoice.id,
      attachInvoicePdf: invoice.attachPdf,
    });
  }
  return opts.recipients.length;
}
