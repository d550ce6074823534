import type { InvoiceDocument } from '../../domain/invoices/document.ts';
import { GREY, lineHeight, MARGIN, type PageCursor } from '../cursor.ts';
import { fitText, fitWhole } from '../fit.ts';

const LOGO_BOX = { width: 170, height: 64 };
const NAME_SIZE = 12;
const SIZE = 9;

/** The lines of a multi-line address as entered: split only at line breaks, never at commas. */
export const addressLines = (address: string) => address.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);

/**
 * The seller at the top of the first page: its logo on the left (fitted into a box, proportions
 * kept), its name, address and VAT id on the right. Without a logo the name stands large on the
 * left instead, so the top of the page is never empty. The legal name always prints in full: a long
 * one gets smaller, then takes more lines.
 */
export function drawSeller(c: PageCursor, doc: InvoiceDocument): void {
  const { seller } = doc;
  const top = MARGIN;
  let leftBottom = top;
  if (seller.printLogo) {
    c.pdf.image(seller.printLogo, c.left, top, { fit: [LOGO_BOX.width, LOGO_BOX.height] });
    leftBottom = top + LOGO_BOX.height;
  } else {
    const name = fitWhole(seller.name, c.width * 0.5, c.measure('bold'), { size: 18, minSize: 12, lines: 2 });
    leftBottom = c.lines(name, c.left, top, { font: 'bold', size: name.size });
  }
  const width = c.width * 0.45;
  const x = c.right - width;
  let y = top;
  if (seller.printLogo) {
    const name = fitWhole(seller.name, width, c.measure('bold'), { size: NAME_SIZE, minSize: 8, lines: 2 });
    y = c.lines(name, x, y, { font: 'bold', size: name.size, width, align: 'right' });
  }
  const details = [...addressLines(seller.address), ...(seller.taxId ? [`VAT ID: ${seller.taxId}`] : [])];
  for (const line of details) {
    const fitted = fitText(line, width, c.measure('body'), { size: SIZE, minSize: 7 });
    y = c.lines(fitted, x, y, { size: fitted.size, color: GREY, width, align: 'right' });
  }
  c.y = Math.max(leftBottom, y) + lineHeight(SIZE) * 1.5;
}
