import type { InvoiceDocument } from '../../domain/invoices/document.ts';
import type { Formats } from '../../domain/invoices/format.ts';
import { ACCENT, GREY, lineHeight, type PageCursor } from '../cursor.ts';
import { fitText } from '../fit.ts';

const SIZE = 9.5;

/** A heading and a block of text a person wrote (line breaks kept), starting a new page when needed. */
function block(c: PageCursor, title: string, text: string, color = 'black'): void {
  const fitted = fitText(text, c.width, c.measure('body'), { size: SIZE, minSize: 7, maxLines: 60 });
  c.ensure(lineHeight(10) + Math.min(fitted.lines.length, 6) * lineHeight(fitted.size) + 4);
  c.line(title, c.left, c.y, { font: 'bold', size: 10 });
  c.y += lineHeight(10) + 2;
  for (const line of fitted.lines) {
    c.ensure(lineHeight(fitted.size));
    c.line(line, c.left, c.y, { size: fitted.size, color });
    c.y += lineHeight(fitted.size);
  }
  c.y += 12;
}

/** What the client is asked to do: pay by when, how, and where online. Nothing once settled. */
function paymentText(doc: InvoiceDocument, f: Formats): string | null {
  const { invoice } = doc;
  if (invoice.kind === 'credit_note') return doc.related ? `This credit note cancels invoice ${doc.related.number} in full.` : null;
  if (invoice.status === 'void') return doc.related ? `This invoice was cancelled by credit note ${doc.related.number}. Please do not pay it.` : 'This invoice was cancelled. Please do not pay it.';
  if (invoice.status === 'paid') {
    const last = doc.payments[doc.payments.length - 1];
    return `Paid in full${last ? ` on ${f.day(last.paidOn)}` : ''}. Thank you.`;
  }
  const due = doc.balanceMinor > 0 ? doc.balanceMinor : invoice.totalMinor;
  const ask = `Please pay ${f.money(due)} by ${f.day(invoice.dueDate)}, quoting ${invoice.number}.`;
  return [ask, doc.seller.paymentInstructions].filter(Boolean).join('\n');
}

/** Payments received, one line each. */
const paymentsText = (doc: InvoiceDocument, f: Formats) =>
  doc.payments.map((p) => `${f.day(p.paidOn)}  ${p.method.replaceAll('_', ' ')}  ${f.money(p.amountMinor)}${p.reference ? `  (${p.reference})` : ''}`).join('\n');

/** Notes, payments received, payment instructions and the online link, after the totals. */
export function drawClosing(c: PageCursor, doc: InvoiceDocument, f: Formats): void {
  if (doc.invoice.notes) block(c, 'Notes', doc.invoice.notes);
  if (doc.payments.length) block(c, 'Payments received', paymentsText(doc, f), GREY);
  const payment = paymentText(doc, f);
  if (payment) block(c, doc.invoice.kind === 'credit_note' ? 'Credit' : 'Payment', payment);
  if (doc.paymentUrl && doc.invoice.status !== 'paid' && doc.invoice.status !== 'void') {
    c.ensure(lineHeight(SIZE) + 4);
    c.line(`View and pay invoice ${doc.invoice.number} online`, c.left, c.y, { size: SIZE, color: ACCENT, link: doc.paymentUrl });
    c.y += lineHeight(SIZE) + 8;
  }
}
