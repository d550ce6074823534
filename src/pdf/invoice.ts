import { lazy } from '../lazy.ts';
import type { InvoiceDocument } from '../domain/invoices/document.ts';
import { MARGIN, PageCursor } from './cursor.ts';
import { pdfFonts, toWinAnsi, type PdfFonts } from './fonts.ts';
import { pdfFormatsFor } from './format.ts';
import { drawClosing } from './sections/closing.ts';
import { drawFooters, footerHeight } from './sections/footer.ts';
import { drawLines, drawSummaries } from './sections/lines.ts';
import { drawParties, drawTitle } from './sections/parties.ts';
import { drawSeller } from './sections/seller.ts';
import { drawStamp } from './sections/stamp.ts';
import { drawTotals, totalsHeight } from './sections/totals.ts';
import { Typesetter } from './typeset.ts';

/** pdfkit (with fontkit) is loaded at the first rendering, not when the server starts. */
const pdfkit = lazy<typeof import('pdfkit')>('pdfkit');

/**
 * Renders an invoice (or credit note) as PDF bytes, section by section over one page cursor: the
 * seller (logo, name, address, VAT id), the title and its stamp, the buyer and the document's
 * facts, the lines, the totals with each tax, the summaries, notes and payment, and a footer with
 * page numbers on every page. Amounts and dates are written in the workspace's locale.
 */
export function renderInvoicePdf(doc: InvoiceDocument, fonts: PdfFonts = pdfFonts()): Promise<Buffer> {
  const { invoice } = doc;
  const title = `${invoice.kind === 'credit_note' ? 'Credit note' : 'Invoice'} ${invoice.number}`;
  const PDFDocument = pdfkit();
  const pdf = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    bufferPages: true,
    // Document properties are Unicode strings, not drawn with the font.
    info: { Title: fonts.unicode ? title : toWinAnsi(title), Author: fonts.unicode ? doc.seller.name : toWinAnsi(doc.seller.name), Creator: 'hourbook' },
  });
  const type = new Typesetter(pdf, fonts, doc.seller.locale);
  const done = collect(pdf);
  const measure = (text: string, size: number) => type.width(text, 'body', size);
  const cursor = new PageCursor(pdf, type, footerHeight(doc, pdf.page.width - 2 * MARGIN, measure));
  const f = pdfFormatsFor(doc.seller.locale, invoice.currency, (text) => type.drawable(text));

  drawSeller(cursor, doc);
  const titleY = cursor.y;
  drawTitle(cursor, doc);
  drawStamp(cursor, doc.state, titleY);
  drawParties(cursor, doc, f);
  drawLines(cursor, doc, f, totalsHeight(doc, f));
  drawTotals(cursor, doc, f);
  drawClosing(cursor, doc, f);
  drawSummaries(cursor, doc, f);
  drawFooters(cursor, doc);
  pdf.end();
  return done;
}

/** The document's bytes once pdfkit has written them all. */
function collect(pdf: PDFKit.PDFDocument): Promise<Buffer> {
  const chunks: Buffer[] = [];
  return new Promise<Buffer>((resolve, reject) => {
    pdf.on('data', (c: Buffer) => chunks.push(c));
    pdf.on('end', () => resolve(Buffer.concat(chunks)));
    pdf.on('error', reject);
  });
}

/** A file-name-safe form of an invoice number (`2026/07 A` → `2026_07_A`). */
export const safeFileName = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80) || 'invoice';

/** The PDF's file name wherever it is offered (download, tRPC, e-mail attachment): `invoice-<number>.pdf`, or `credit-note-<number>.pdf`. */
export const invoicePdfFileName = (invoice: { kind: 'invoice' | 'credit_note'; number: string }) =>
  `${invoice.kind === 'credit_note' ? 'credit-note' : 'invoice'}-${safeFileName(invoice.number)}.pdf`;

/** Rendered PDFs kept in memory; an invoice's PDF is a few dozen KiB. */
const PDF_CACHE_LIMIT = 32;
const pdfCache = new Map<string, Promise<Buffer>>();
/** How many PDFs were rendered (not served from the cache) since start, for tests and metrics. */
export const pdfRenderStats = { renders: 0 };

/**
 * The invoice's PDF, rendered once per (workspace, invoice, version) and kept in a small LRU
 * shared by the public download, `invoices.pdf` and the mail worker's attachments. The caller's
 * version changes with everything the PDF shows, so a stale PDF is never served. The document is
 * loaded only on a miss; concurrent requests for the same PDF share one rendering.
 */
export function cachedInvoicePdf(key: { workspace: string; invoiceId: string; version: string }, load: () => InvoiceDocument): Promise<Buffer> {
  const id = `${key.workspace}|${key.invoiceId}|${key.version}`;
  let pdf = pdfCache.get(id);
  if (pdf) {
    // The most recently used goes last; the first key is the one to evict.
    pdfCache.delete(id);
    pdfCache.set(id, pdf);
    return pdf;
  }
  pdfRenderStats.renders++;
  pdf = renderInvoicePdf(load());
  pdfCache.set(id, pdf);
  pdf.catch(() => pdfCache.delete(id));
  while (pdfCache.size > PDF_CACHE_LIMIT) pdfCache.delete(pdfCache.keys().next().value as string);
  return pdf;
}
