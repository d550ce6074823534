import { lazy } from '../lazy.ts';
import { hoursBy, type DocumentLine, type InvoiceDocument } from '../domain/invoices/document.ts';
import { lineHours } from '../domain/invoices/records.ts';
import { formatMoney, minorToDecimalString } from '../domain/money.ts';
import { hoursOf } from '../domain/time/hours.ts';
import { pdfFonts, toWinAnsi, type PdfFonts } from './fonts.ts';

/** pdfkit (with fontkit) is loaded at the first rendering, not when the server starts. */
const pdfkit = lazy<typeof import('pdfkit')>('pdfkit');

const MARGIN = 50;
const FONT_SIZE = 9;
const ROW_GAP = 4;
const GREY = '#555555';
const RULE = '#cccccc';

interface Column {
  title: string;
  width: number;
  align: 'left' | 'right';
  cell: (l: DocumentLine) => string;
}

const hours = (seconds: number | null) => (seconds === null ? '' : String(hoursOf(seconds)));
const quantity = (milli: number | null) => (milli === null ? '' : minorToDecimalString(milli, 3).replace(/\.?0+$/, ''));

/**
 * Renders an invoice as PDF bytes: header, client, lines (columns chosen by the display_* flags),
 * the optional summaries and time-entry listing, subtotal, each selected tax, total, notes and the
 * payment link. Long invoices flow over as many pages as needed, repeating the table header.
 */
export function renderInvoicePdf(doc: InvoiceDocument, fonts: PdfFonts = pdfFonts()): Promise<Buffer> {
  const clean = fonts.unicode ? (s: string) => s : toWinAnsi;
  const { invoice } = doc;
  const money = (minor: number | null) => (minor === null ? '' : formatMoney(minor, invoice.currency));

  const PDFDocument = pdfkit();
  const pdf = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    bufferPages: true,
    info: { Title: clean(`Invoice ${invoice.number}`), Author: clean(doc.workspaceName), Creator: 'hourbook' },
  });
  pdf.registerFont('body', fonts.regular);
  pdf.registerFont('bold', fonts.bold);
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    pdf.on('data', (c: Buffer) => chunks.push(c));
    pdf.on('end', () => resolve(Buffer.concat(chunks)));
    pdf.on('error', reject);
  });

  const left = MARGIN;
  const width = pdf.page.width - 2 * MARGIN;
  const bottom = () => pdf.page.height - MARGIN - 20;
  const text = (s: string, x: number, y: number, opts: PDFKit.Mixins.TextOptions = {}) => pdf.text(clean(s), x, y, { lineBreak: true, ...opts });

  // Header: who bills, what this is.
  pdf.font('bold').fontSize(18).fillColor('black');
  text(doc.workspaceName, left, MARGIN, { width: width * 0.6 });
  pdf.fontSize(22);
  text('INVOICE', left + width * 0.6, MARGIN, { width: width * 0.4, align: 'right' });
  pdf.font('body').fontSize(10);
  let y = MARGIN + 34;
  const meta: [string, string][] = [
    ['Invoice number', invoice.number],
    ['Issue date', invoice.issueDate],
    ['Due date', invoice.dueDate],
  ];
  if (invoice.status === 'void' || invoice.status === 'paid') meta.push(['Status', invoice.status.toUpperCase()]);
  for (const [label, value] of meta) {
    pdf.fillColor(GREY);
    text(label, left + width * 0.55, y, { width: width * 0.2, align: 'left' });
    pdf.fillColor('black');
    text(value, left + width * 0.75, y, { width: width * 0.25, align: 'right' });
    y += 14;
  }

  // Bill to.
  let by = MARGIN + 34;
  pdf.fillColor(GREY).fontSize(9);
  text('BILL TO', left, by);
  by += 13;
  pdf.fillColor('black').font('bold').fontSize(11);
  text(doc.client.name, left, by, { width: width * 0.5 });
  by = pdf.y;
  pdf.font('body').fontSize(10);
  for (const line of [doc.client.secondaryName, ...doc.client.address.split(/\r?\n|,\s*/)].filter(Boolean)) {
    text(line, left, by, { width: width * 0.5 });
    by = pdf.y;
  }
  y = Math.max(y, by) + 20;

  const ensure = (needed: number, onNewPage?: () => void) => {
    if (y + needed > bottom()) {
      pdf.addPage();
      y = MARGIN;
      onNewPage?.();
    }
  };

  /** A table that flows over pages; the header row is repeated on every page it spans. */
  const table = (title: string | null, columns: Column[], rows: DocumentLine[] | null, raw?: string[][]) => {
    const drawHeader = () => {
      pdf.font('bold').fontSize(FONT_SIZE).fillColor(GREY);
      let x = left;
      for (const c of columns) {
        text(c.title, x, y, { width: c.width - 4, align: c.align });
        x += c.width;
      }
      y += 14;
      pdf.moveTo(left, y - 3).lineTo(left + width, y - 3).strokeColor(RULE).lineWidth(0.5).stroke();
      pdf.font('body').fillColor('black');
    };
    if (title) {
      ensure(50);
      pdf.font('bold').fontSize(11).fillColor('black');
      text(title, left, y);
      y += 18;
    }
    ensure(30);
    drawHeader();
    const cellsOf = raw ?? (rows ?? []).map((l) => columns.map((c) => c.cell(l)));
    pdf.fontSize(FONT_SIZE);
    for (const cells of cellsOf) {
      const h = Math.max(...cells.map((s, i) => pdf.heightOfString(clean(s || ' '), { width: (columns[i]?.width ?? 10) - 4 }))) + ROW_GAP;
      ensure(h, drawHeader);
      let x = left;
      cells.forEach((s, i) => {
        const c = columns[i]!;
        text(s, x, y, { width: c.width - 4, align: c.align });
        x += c.width;
      });
      y += h;
    }
    y += 10;
  };

  /** Gives the fixed columns their width and shares the rest among the flexible ones by weight. */
  const layout = (cols: (Omit<Column, 'width'> & { width?: number; weight?: number })[]): Column[] => {
    const fixed = cols.reduce((s, c) => s + (c.width ?? 0), 0);
    const weights = cols.reduce((s, c) => s + (c.width === undefined ? (c.weight ?? 1) : 0), 0);
    return cols.map((c) => ({ ...c, width: c.width ?? ((width - fixed) * (c.weight ?? 1)) / Math.max(weights, 1) }));
  };

  const timeLines = doc.lines.filter((l) => l.kind === 'time_entry');
  const serviceLines = doc.lines.filter((l) => l.kind === 'service');
  if (timeLines.length) {
    const cols = layout([
      ...(invoice.displayDate ? [{ title: 'Date', width: 60, align: 'left' as const, cell: (l: DocumentLine) => l.date ?? '' }] : []),
      ...(invoice.displayProjectName ? [{ title: 'Project', align: 'left' as const, cell: (l: DocumentLine) => l.projectName ?? '' }] : []),
      ...(invoice.displayTaskName ? [{ title: 'Task', align: 'left' as const, cell: (l: DocumentLine) => l.taskName ?? '' }] : []),
      ...(invoice.displayPersonName ? [{ title: 'Person', align: 'left' as const, cell: (l: DocumentLine) => l.personName ?? '' }] : []),
      ...(invoice.displayNote ? [{ title: 'Notes', weight: 2, align: 'left' as const, cell: (l: DocumentLine) => l.notes }] : []),
      { title: 'Hours', width: 38, align: 'right', cell: (l) => String(lineHours(l) ?? '') },
      { title: 'Rate', width: 62, align: 'right', cell: (l) => money(l.hourlyRateMinor) },
      { title: 'Amount', width: 70, align: 'right', cell: (l) => money(l.amountMinor) },
    ]);
    table(null, cols, timeLines);
  }
  if (serviceLines.length) {
    const cols = layout([
      { title: 'Description', weight: 3, align: 'left', cell: (l) => l.notes },
      ...(invoice.displayProjectName && serviceLines.some((l) => l.projectName)
        ? [{ title: 'Project', align: 'left' as const, cell: (l: DocumentLine) => l.projectName ?? '' }]
        : []),
      { title: 'Quantity', width: 55, align: 'right', cell: (l) => quantity(l.quantityMilli) },
      { title: 'Unit price', width: 80, align: 'right', cell: (l) => money(l.unitAmountMinor) },
      { title: 'Amount', width: 80, align: 'right', cell: (l) => money(l.amountMinor) },
    ]);
    table(null, cols, serviceLines);
  }

  // Totals, right-aligned under the amounts.
  const totals: [string, string, boolean][] = [['Subtotal', money(invoice.subtotalMinor), false]];
  for (const t of doc.taxes.filter((x) => x.selected)) totals.push([`${t.name} (${t.percentage}%)`, money(t.amountMinor), false]);
  totals.push([`Total (${invoice.currency})`, money(invoice.totalMinor), true]);
  ensure(totals.length * 16 + 10);
  for (const [label, value, strong] of totals) {
    pdf.font(strong ? 'bold' : 'body').fontSize(strong ? 12 : 10).fillColor('black');
    text(label, left + width - 330, y, { width: 220, align: 'right' });
    text(value, left + width - 110, y, { width: 110, align: 'right' });
    y += strong ? 20 : 15;
  }
  y += 10;

  const summaryCols = (title: string) =>
    layout([
      { title, align: 'left', cell: () => '' },
      { title: 'Hours', width: 60, align: 'right', cell: () => '' },
      { title: 'Amount', width: 90, align: 'right', cell: () => '' },
    ]);
  const summaryRows = (groups: { label: string; seconds: number; amountMinor: number }[]) =>
    groups.map((g) => [g.label, hours(g.seconds), money(g.amountMinor)]);
  if (invoice.includeHoursByPerson && timeLines.length) {
    table('Hours by person', summaryCols('Person'), null, summaryRows(hoursBy(timeLines, (l) => l.personName)));
  }
  if (invoice.includeHoursByTask && timeLines.length) {
    table('Hours by task', summaryCols('Task'), null, summaryRows(hoursBy(timeLines, (l) => (l.projectName ? `${l.projectName} · ${l.taskName ?? ''}` : l.taskName))));
  }
  if (invoice.includeTimeEntries && timeLines.length) {
    const cols = layout([
      { title: 'Date', width: 60, align: 'left', cell: (l) => l.date ?? '' },
      { title: 'Person', align: 'left', cell: (l) => l.personName ?? '' },
      { title: 'Task', align: 'left', cell: (l) => l.taskName ?? '' },
      { title: 'Notes', weight: 2, align: 'left', cell: (l) => l.notes },
      { title: 'Recorded', width: 52, align: 'right', cell: (l) => hours(l.entrySeconds) },
      { title: 'Billed', width: 45, align: 'right', cell: (l) => String(lineHours(l) ?? '') },
    ]);
    table('Time entries', cols, timeLines);
  }

  if (invoice.notes) {
    pdf.font('body').fontSize(10);
    const h = pdf.heightOfString(clean(invoice.notes), { width });
    ensure(Math.min(h, 200) + 20);
    pdf.font('bold').fontSize(10);
    text('Notes', left, y);
    y += 14;
    pdf.font('body').fontSize(10).fillColor('black');
    text(invoice.notes, left, y, { width });
    y = pdf.y + 12;
  }
  if (doc.paymentUrl) {
    ensure(40);
    pdf.font('bold').fontSize(10);
    text('View and pay online', left, y);
    y += 14;
    pdf.font('body').fillColor('#1a4fa3');
    text(doc.paymentUrl, left, y, { width, link: doc.paymentUrl, underline: true });
    pdf.fillColor('black');
    y = pdf.y + 12;
  }

  // Page numbers, written last when the page count is known. The bottom margin is lifted so the
  // footer does not itself overflow into a new page.
  const range = pdf.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    pdf.switchToPage(i);
    const margins = pdf.page.margins.bottom;
    pdf.page.margins.bottom = 0;
    pdf.font('body').fontSize(8).fillColor(GREY);
    text(`${invoice.number} · page ${i - range.start + 1} of ${range.count}`, left, pdf.page.height - MARGIN + 10, { width, align: 'center' });
    pdf.page.margins.bottom = margins;
  }
  pdf.end();
  return done;
}

/** A file-name-safe form of an invoice number (`2026/07 A` → `2026_07_A`). */
export const safeFileName = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80) || 'invoice';

/** The PDF's file name wherever it is offered: download, tRPC and e-mail attachment. */
export const invoicePdfFileName = (number: string) => `invoice-${safeFileName(number)}.pdf`;

/** Rendered PDFs kept in memory; an invoice's PDF is a few dozen KiB. */
const PDF_CACHE_LIMIT = 32;
const pdfCache = new Map<string, Promise<Buffer>>();
/** How many PDFs were rendered (not served from the cache) since start, for tests and metrics. */
export const pdfRenderStats = { renders: 0 };

/**
 * The invoice's PDF, rendered once per (workspace, invoice, updated_at) and kept in a small LRU
 * shared by the public download, `invoices.pdf` and the mail worker's attachments. Every change
 * to an invoice moves its updated_at, so a stale PDF is never served. The document is loaded only
 * on a miss; concurrent requests for the same PDF share one rendering.
 */
export function cachedInvoicePdf(
  key: { workspace: string; invoiceId: string; updatedAt: string },
  load: () => InvoiceDocument,
): Promise<Buffer> {
  const id = `${key.workspace}|${key.invoiceId}|${key.updatedAt}`;
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
