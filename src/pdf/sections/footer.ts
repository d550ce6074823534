import type { InvoiceDocument } from '../../domain/invoices/document.ts';
import { LIGHT, lineHeight, MARGIN, type PageCursor } from '../cursor.ts';
import { fitText, type Fitted, type Measure } from '../fit.ts';

const SIZE = 7.5;
const PAGE_SIZE = 7.5;

/** The workspace's footer text as lines that fit the page width. */
function footerLines(doc: InvoiceDocument, width: number, measure: Measure): Pick<Fitted, 'lines' | 'directions'> {
  return doc.seller.invoiceFooter ? fitText(doc.seller.invoiceFooter, width, measure, { size: SIZE, minSize: SIZE, maxLines: 4 }) : { lines: [], directions: [] };
}

/** Room the footer takes at the bottom of every page (known before the first page is drawn). */
export function footerHeight(doc: InvoiceDocument, width: number, measure: Measure): number {
  return footerLines(doc, width, measure).lines.length * lineHeight(SIZE) + lineHeight(PAGE_SIZE) + 10;
}

/**
 * On every page, once the page count is known: the workspace's footer text (company register,
 * bank, …) and "number · page n of N". The bottom margin is lifted while writing so the footer
 * does not itself start a new page.
 */
export function drawFooters(c: PageCursor, doc: InvoiceDocument): void {
  const { pdf } = c;
  const footer = footerLines(doc, c.width, c.measure('body'));
  const range = pdf.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    pdf.switchToPage(i);
    const margin = pdf.page.margins.bottom;
    pdf.page.margins.bottom = 0;
    let y = pdf.page.height - MARGIN - footer.lines.length * lineHeight(SIZE) + 4;
    footer.lines.forEach((line, n) => {
      c.line(line, c.left, y, { size: SIZE, color: LIGHT, width: c.width, align: 'center', direction: footer.directions[n] });
      y += lineHeight(SIZE);
    });
    c.line(`${doc.invoice.number} · page ${i - range.start + 1} of ${range.count}`, c.left, y + 2, { size: PAGE_SIZE, color: LIGHT, width: c.width, align: 'center' });
    pdf.page.margins.bottom = margin;
  }
}
