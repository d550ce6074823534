import type { InvoiceDocument } from '../../domain/invoices/document.ts';
import type { Formats } from '../../domain/invoices/format.ts';
import { ACCENT, GREY, lineHeight, type PageCursor } from '../cursor.ts';
import { fitText } from '../fit.ts';

const SIZE = 9.5;

/** A block of at most this many lines moves to the next page whole rather than split. */
const KEEP_TOGETHER = 12;
const LINK_GAP = 4;

/**
 * A heading and a block of text a person wrote (line breaks kept), starting a new page when needed;
 * a short block is never split over two pages. A right-to-left paragraph of it is set on the right. With `link` (the "View … online" line), the
 * link belongs to the block: it follows its last line on the same page.
 */
function block(c: PageCursor, title: string, text: string, opts: { color?: string; link?: { text: string; url: string } } = {}): void {
  const fitted = fitText(text, c.width, c.measure('body'), { size: SIZE, minSize: 7, maxLines: 60 });
  const head = lineHeight(10) + 2;
  const step = lineHeight(fitted.size);
  const linkHeight = opts.link ? LINK_GAP + lineHeight(SIZE) : 0;
  const whole = head + fitted.lines.length * step + linkHeight;
  c.ensure(fitted.lines.length <= KEEP_TOGETHER ? whole : head + 6 * step);
  c.line(title, c.left, c.y, { font: 'bold', size: 10 });
  c.y += head;
  fitted.lines.forEach((line, i) => {
    // The last line moves to a new page with the link rather than leave it alone there.
    c.ensure(step + (i === fitted.lines.length - 1 ? linkHeight : 0));
    c.line(line, c.left, c.y, { size: fitted.size, color: opts.color ?? 'black', width: c.width, align: 'start', direction: fitted.directions[i] });
    c.y += step;
  });
  if (opts.link) {
    c.y += LINK_GAP;
    c.line(opts.link.text, c.left, c.y, { size: SIZE, color: ACCENT, link: opts.link.url });
    c.y += lineHeight(SIZE);
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
  if (doc.payments.length) block(c, 'Payments received', paymentsText(doc, f), { color: GREY });
  const payment = paymentText(doc, f);
  const url = doc.paymentUrl && doc.invoice.status !== 'paid' && doc.invoice.status !== 'void' ? doc.paymentUrl : null;
  // Not "and pay": whether the page offers payment (card payment set up) is the workspace's, not the document's.
  const link = url ? { text: `View invoice ${doc.invoice.number} online`, url } : undefined;
  if (payment) block(c, doc.invoice.kind === 'credit_note' ? 'Credit' : 'Payment', payment, { ...(link && { link }) });
  else if (link) {
    c.ensure(lineHeight(SIZE) + 4);
    c.line(link.text, c.left, c.y, { size: SIZE, color: ACCENT, link: link.url });
    c.y += lineHeight(SIZE) + 8;
  }
}
