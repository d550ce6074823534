import { supplyOf, type InvoiceDocument } from '../../domain/invoices/document.ts';
import type { Formats } from '../../domain/invoices/format.ts';
import { GREY, lineHeight, type PageCursor } from '../cursor.ts';
import { fitText, fitUncut, fitWhole } from '../fit.ts';
import { addressLines } from './seller.ts';

const SIZE = 9.5;

/** The document's title: INVOICE or CREDIT NOTE, large. */
export function drawTitle(c: PageCursor, doc: InvoiceDocument): void {
  c.line(doc.invoice.kind === 'credit_note' ? 'CREDIT NOTE' : 'INVOICE', c.left, c.y, { font: 'bold', size: 22 });
  c.y += 34;
}

/** The label/value rows of the right-hand block: number, dates, what it relates to. */
function metaRows(doc: InvoiceDocument, f: Formats): [string, string][] {
  const { invoice } = doc;
  const credit = invoice.kind === 'credit_note';
  const rows: [string, string][] = [[credit ? 'Credit note no.' : 'Invoice no.', invoice.number], ['Issue date', f.day(invoice.issueDate)]];
  const supply = supplyOf(doc);
  if (supply.from !== supply.to) rows.push(['Service period', `${f.day(supply.from)} – ${f.day(supply.to)}`]);
  else rows.push(['Date of supply', f.day(supply.from)]);
  if (!credit) rows.push(['Due date', f.day(invoice.dueDate)]);
  if (credit && doc.related) rows.push(['Cancels invoice', `${doc.related.number} of ${f.day(doc.related.issueDate)}`]);
  if (!credit && doc.related) rows.push(['Cancelled by', `credit note ${doc.related.number}`]);
  if (doc.paidMinor > 0 && doc.balanceMinor > 0) rows.push(['Balance due', f.money(doc.balanceMinor)]);
  return rows;
}

/**
 * The buyer ("Bill to": name, second name, address as entered, VAT id), left; returns its bottom.
 * The name is the buyer's legal name on a tax document: it prints in full on as many lines as it
 * needs (`lines: Infinity`: never smaller for being long, only for a word wider than the column).
 */
function drawBuyer(c: PageCursor, doc: InvoiceDocument, width: number): number {
  const { client } = doc;
  let y = c.y;
  c.line('BILL TO', c.left, y, { font: 'bold', size: 7.5, color: GREY });
  y += lineHeight(7.5) + 2;
  const name = fitWhole(client.name, width, c.measure('bold'), { size: 11, minSize: 8, lines: Infinity });
  y = c.lines(name, c.left, y, { font: 'bold', size: name.size });
  const rest = [client.secondaryName, ...addressLines(client.address), client.taxId ? `VAT ID: ${client.taxId}` : ''].filter(Boolean);
  for (const line of rest) {
    const fitted = fitText(line, width, c.measure('body'), { size: SIZE, minSize: 7 });
    y = c.lines(fitted, c.left, y, { size: fitted.size });
  }
  return y;
}

/**
 * Buyer on the left, the document's facts on the right, side by side. A value is never cut (the
 * number is what a payment quotes): one too long for its line takes the lines it needs, its label
 * beside the first, and the rows below move down.
 */
export function drawParties(c: PageCursor, doc: InvoiceDocument, f: Formats): void {
  const labelWidth = 88;
  const valueWidth = c.width * 0.47 - labelWidth;
  const buyerBottom = drawBuyer(c, doc, c.width - labelWidth - valueWidth - 16);
  const x = c.right - labelWidth - valueWidth;
  let y = c.y;
  for (const [label, value] of metaRows(doc, f)) {
    c.line(label, x, y, { size: SIZE, color: GREY, width: labelWidth });
    const fitted = fitUncut(value, valueWidth, c.measure('bold'), { size: SIZE, minSize: 8 });
    fitted.lines.forEach((line, i) => {
      c.line(line, x + labelWidth, y + i * lineHeight(SIZE), { font: 'bold', size: fitted.size, baselineOf: SIZE, width: valueWidth, align: 'right', direction: fitted.directions[i] });
    });
    y += fitted.lines.length * lineHeight(SIZE) + 1;
  }
  c.y = Math.max(buyerBottom, y) + 22;
}
