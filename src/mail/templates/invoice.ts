import { greeted, renderMail, type Block, type RenderedMail } from './layout.ts';

/** The seller as mail signs it: name, then address lines. */
export interface MailSeller {
  name: string;
  address: string;
}

interface DocumentFacts {
  kind: 'invoice' | 'credit_note';
  number: string;
  /** Formatted in the workspace's locale. */
  total: string;
  dueDate: string;
  /** For a credit note: the number of the invoice it cancels. */
  creditedNumber: string | null;
  paymentUrl: string | null;
}

const signature = (seller: MailSeller) => [seller.name, seller.address].filter(Boolean).join('\n');

const documentName = (doc: DocumentFacts) => (doc.kind === 'credit_note' ? `credit note ${doc.number}` : `invoice ${doc.number}`);

export const defaultInvoiceSubject = (doc: Pick<DocumentFacts, 'kind' | 'number'>, seller: MailSeller) =>
  `${doc.kind === 'credit_note' ? 'Credit note' : 'Invoice'} ${doc.number} from ${seller.name}`;

function defaultInvoiceText(doc: DocumentFacts): string {
  if (doc.kind === 'credit_note') {
    return `please find ${documentName(doc)}${doc.creditedNumber ? `, which cancels invoice ${doc.creditedNumber}` : ''}, over ${doc.total}.`;
  }
  return `please find ${documentName(doc)} for ${doc.total}, due ${doc.dueDate}.`;
}

/**
 * An invoice (or credit note) e-mail to one person: the sender's own message when it wrote one,
 * else a short default, greeted by the recipient's name; the amount and due date; the link to the
 * invoice's page when asked for; the seller's signature.
 */
export function invoiceMail(opts: { doc: DocumentFacts; seller: MailSeller; recipientName: string | null; message: string | null; copyFor?: string }): RenderedMail {
  const { doc } = opts;
  const body = opts.message?.trim() ? opts.message.trim() : `${defaultInvoiceText(doc)}\n\nThank you for your business.`;
  const blocks: Block[] = [];
  if (opts.copyFor) blocks.push({ kind: 'text', text: `This is your copy of the e-mail sent to ${opts.copyFor}.` });
  blocks.push({ kind: 'text', text: greeted(body, opts.recipientName) });
  blocks.push({
    kind: 'facts',
    rows: doc.kind === 'credit_note' ? [['Credit note', doc.number], ['Amount', doc.total]] : [['Invoice', doc.number], ['Amount due', doc.total], ['Due date', doc.dueDate]],
  });
  if (doc.paymentUrl) blocks.push({ kind: 'link', label: 'View and pay the invoice online', url: doc.paymentUrl });
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
  paymentUrl: string | null;
  seller: MailSeller;
  recipientName: string | null;
}): RenderedMail {
  const state = opts.overdue ? `was due on ${opts.dueDate}` : 'is due today';
  const owed = opts.partlyPaid ? `the remaining balance of ${opts.balance} (of ${opts.total})` : opts.balance;
  const blocks: Block[] = [
    { kind: 'text', text: greeted(`this is a friendly reminder that invoice ${opts.number} ${state}: ${owed} is still open. If you have already paid it, please ignore this message.`, opts.recipientName) },
    { kind: 'facts', rows: [['Invoice', opts.number], ['Balance due', opts.balance], ['Due date', opts.dueDate]] },
  ];
  if (opts.paymentUrl) blocks.push({ kind: 'link', label: 'View and pay the invoice online', url: opts.paymentUrl });
  blocks.push({ kind: 'text', text: 'Thank you.' });
  return renderMail(blocks, signature(opts.seller));
}
