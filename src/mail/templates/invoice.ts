import { greeted, renderMail, type Block, type RenderedMail } from './layout.ts';

/** The seller as mail signs it: name, then address lines. */
export interface MailSeller {
  name: string;
  address: string;
}

/** The invoice's public page, and whether it offers to pay there (card payment, as its "Pay now"). */
export interface PageLink {
  url: string;
  payable: boolean;
}

interface DocumentFacts {
  kind: 'invoice' | 'credit_note';
  number: string;
  /** Formatted in the workspace's locale; for a credit note the amount credited, as a positive amount. */
  total: string;
  /**
   * For an invoice with payments on it (sent again, or paid while its mail was queued): what was
   * paid and what is still due, formatted; null when nothing was paid, so the total is what is due.
   */
  paid: { paid: string; balance: string; settled: boolean } | null;
  dueDate: string;
  /** For a credit note: the number of the invoice it cancels. */
  creditedNumber: string | null;
  /** For a credit note: what had been paid on the invoice it cancels (formatted), null when nothing was. */
  creditedPaid: string | null;
  page: PageLink | null;
}

const signature = (seller: MailSeller) => [seller.name, seller.address].filter(Boolean).join('\n');

const documentName = (doc: DocumentFacts) => (doc.kind === 'credit_note' ? `credit note ${doc.number}` : `invoice ${doc.number}`);

/** The label of the link to the invoice's page: "pay" only when the page offers to pay. */
const pageLabel = (page: PageLink) => (page.payable ? 'View and pay the invoice online' : 'View the invoice online');

export const defaultInvoiceSubject = (doc: Pick<DocumentFacts, 'kind' | 'number'>, seller: MailSeller) =>
  `${doc.kind === 'credit_note' ? 'Credit note' : 'Invoice'} ${doc.number} from ${seller.name}`;

/** A credit note's word on money already paid on the invoice it cancels (given back outside hourbook). */
const paidNote = (doc: DocumentFacts) =>
  doc.creditedPaid
    ? `${doc.creditedPaid} had already been paid on ${doc.creditedNumber ? `invoice ${doc.creditedNumber}` : 'the cancelled invoice'}; that amount will be refunded to you or settled with you separately.`
    : null;

function defaultInvoiceText(doc: DocumentFacts): string {
  if (doc.kind === 'credit_note') {
    const text = `Please find ${documentName(doc)}${doc.creditedNumber ? `, which cancels invoice ${doc.creditedNumber},` : ''} for ${doc.total}.`;
    const paid = paidNote(doc);
    return paid ? `${text}\n\n${paid}` : text;
  }
  if (!doc.paid) return `Please find ${documentName(doc)} for ${doc.total}, due ${doc.dueDate}.`;
  if (doc.paid.settled) return `Please find ${documentName(doc)} for ${doc.total}, which has been paid in full.`;
  return `Please find ${documentName(doc)} for ${doc.total}; ${doc.paid.paid} has been paid, and ${doc.paid.balance} is still due by ${doc.dueDate}.`;
}

/** An invoice's figures: what is due, never the total once something was paid (a paid invoice sent again asks for nothing). */
function invoiceRows(doc: DocumentFacts): [string, string][] {
  if (!doc.paid) return [['Invoice', doc.number], ['Amount due', doc.total], ['Due date', doc.dueDate]];
  const rows: [string, string][] = [['Invoice', doc.number], ['Total', doc.total], ['Paid', doc.paid.paid], ['Amount due', doc.paid.balance]];
  if (!doc.paid.settled) rows.push(['Due date', doc.dueDate]);
  return rows;
}

function factRows(doc: DocumentFacts): [string, string][] {
  if (doc.kind === 'invoice') return invoiceRows(doc);
  const rows: [string, string][] = [['Credit note', doc.number]];
  if (doc.creditedNumber) rows.push(['Cancels invoice', doc.creditedNumber]);
  rows.push(['Amount credited', doc.total]);
  if (doc.creditedPaid) rows.push([doc.creditedNumber ? `Paid on invoice ${doc.creditedNumber}` : 'Paid on the cancelled invoice', doc.creditedPaid]);
  return rows;
}

/**
 * An invoice (or credit note) e-mail to one person: the sender's own message when it wrote one,
 * else a short default, greeted by the recipient's name; the amount and due date (a credit note:
 * the amount credited and what was paid on the invoice it cancels); the link to the invoice's page
 * when asked for; the seller's signature.
 */
export function invoiceMail(opts: { doc: DocumentFacts; seller: MailSeller; recipientName: string | null; message: string | null; copyFor?: string }): RenderedMail {
  const { doc } = opts;
  const own = opts.message?.trim() || null;
  const body = own ?? `${defaultInvoiceText(doc)}\n\nThank you for your business.`;
  const blocks: Block[] = [];
  if (opts.copyFor) blocks.push({ kind: 'text', text: `This is your copy of the e-mail sent to ${opts.copyFor}.` });
  blocks.push({ kind: 'text', text: greeted(body, opts.recipientName) });
  // The sender's own message may not mention the money paid on the cancelled invoice: say it anyway.
  const paid = own && doc.kind === 'credit_note' ? paidNote(doc) : null;
  if (paid) blocks.push({ kind: 'text', text: paid });
  blocks.push({ kind: 'facts', rows: factRows(doc) });
  if (doc.page) blocks.push({ kind: 'link', label: pageLabel(doc.page), url: doc.page.url });
  return renderMail(blocks, signature(opts.seller));
}

/** A reminder of what is still owed (the balance, not the total, once something was paid). */
export function reminderMail(opts: {
  number: string;
  balance: string;
  total: string;
  partlyPaid: boolean;
  dueDate: string;
  overdue: boolean;
  page: PageLink | null;
  seller: MailSeller;
  recipientName: string | null;
}): RenderedMail {
  const state = opts.overdue ? `was due on ${opts.dueDate}` : 'is due today';
  const owed = opts.partlyPaid ? `the remaining balance of ${opts.balance} (of ${opts.total})` : opts.balance;
  const blocks: Block[] = [
    { kind: 'text', text: greeted(`This is a friendly reminder that invoice ${opts.number} ${state}: ${owed} is still open. If you have already paid it, please ignore this message.`, opts.recipientName) },
    { kind: 'facts', rows: [['Invoice', opts.number], ['Balance due', opts.balance], ['Due date', opts.dueDate]] },
  ];
  if (opts.page) blocks.push({ kind: 'link', label: pageLabel(opts.page), url: opts.page.url });
  blocks.push({ kind: 'text', text: 'Thank you.' });
  return renderMail(blocks, signature(opts.seller));
}
