import { totalHours, type InvoiceDocument } from '../../domain/invoices/document.ts';
import { totalRows, type TotalRow } from '../../domain/invoices/document-totals.ts';
import type { Formats } from '../../domain/invoices/format.ts';
import { GREY, lineHeight, type PageCursor } from '../cursor.ts';
import { fitLine } from '../fit.ts';

const rowHeight = (row: TotalRow) => lineHeight(row.strong ? 11 : 9.5) + 2;

/** The height of the totals block, so the line table can keep its last rows with it. */
export const totalsHeight = (doc: InvoiceDocument, f: Formats) => totalRows(doc, f).reduce((s, r) => s + rowHeight(r), 0) + 16;

/** The totals block, right-aligned under the amounts, with the total hours on its left. */
export function drawTotals(c: PageCursor, doc: InvoiceDocument, f: Formats): void {
  const rows = totalRows(doc, f);
  c.ensure(totalsHeight(doc, f));
  const top = c.y;
  // As wide as the widest amount drawn (a credit note's negatives included), at least 110 pt.
  const valueWidth = Math.min(c.width * 0.4, Math.max(110, ...rows.map((r) => c.measure(r.strong ? 'bold' : 'body')(r.value, r.strong ? 11 : 9.5) + 6)));
  const labelWidth = c.width * 0.62 - valueWidth;
  const x = c.right - labelWidth - valueWidth;
  c.rule(c.y - 3, x, c.right);
  for (const row of rows) {
    const size = row.strong ? 11 : 9.5;
    const font = row.strong ? 'bold' : 'body';
    const label = fitLine(row.label, labelWidth - 8, c.measure(font), { size, minSize: 7 });
    c.line(label.lines[0]!, x, c.y, { font, size: label.size, baselineOf: size, width: labelWidth - 8, align: 'right', color: row.strong ? 'black' : GREY });
    const value = fitLine(row.value, valueWidth - 4, c.measure(font), { size, minSize: 7 });
    c.line(value.lines[0]!, x + labelWidth, c.y, { font, size: value.size, baselineOf: size, width: valueWidth - 4, align: 'right' });
    c.y += rowHeight(row);
  }
  if (doc.lines.some((l) => l.kind === 'time_entry')) {
    c.line(`Total hours: ${f.number(totalHours(doc.lines))}`, c.left + 3, top, { size: 9.5, font: 'bold' });
  }
  c.y += 16;
}
