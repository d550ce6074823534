import { GREY, lineHeight, MARGIN, type PageCursor } from './cursor.ts';
import { fitLine, fitText, fits, type Fitted, type Measure } from './fit.ts';

export interface Column<R> {
  title: string;
  align: 'left' | 'right';
  /** `wrap`: text that may take several lines (names, notes); `line`: one line (dates, amounts). */
  fit: 'wrap' | 'line';
  /** Takes the room left over when the content is narrower than the page. */
  grow?: boolean;
  cell: (row: R) => string;
}

const HEAD_SIZE = 8;
const MIN_SIZE = 6.5;
/** Space between columns (half on each side of a cell). */
const GAP = 6;
const ROW_GAP = 4;
/** A cell is cut with "…" after this many lines, so one row can never outgrow a page. */
const MAX_CELL_LINES = 30;
/** The part of the table a growing column (the notes) keeps when the table must wrap. */
const GROW_SHARE = 0.25;
/** No single word may claim more than this share of the table for its column. */
const MAX_WORD_SHARE = 0.4;

const widest = (texts: string[], measure: Measure, size: number) => Math.max(0, ...texts.map((t) => measure(t, size)));
const wordsOf = (text: string) => text.split(/\s+/).filter(Boolean);

/**
 * Each column's width on one line (natural) and the least it needs without cutting a word (minimal),
 * from the texts as they are drawn (a credit note's "-BHD 199.998" included).
 */
function contentWidths<R>(cursor: PageCursor, columns: Column<R>[], cells: string[][], size: number) {
  const body = cursor.measure('body');
  const bold = cursor.measure('bold');
  return columns.map((c, i) => {
    const texts = cells.map((r) => r[i] ?? '');
    const title = bold(c.title, HEAD_SIZE);
    const natural = Math.max(title, widest(texts.flatMap((t) => t.split(/\r?\n/)), body, size)) + GAP;
    const minimal = c.fit === 'line' ? natural : Math.min(Math.max(title, widest(texts.flatMap(wordsOf), body, size)) + GAP, cursor.width * MAX_WORD_SHARE);
    return { natural, minimal };
  });
}

/** The body size of a table: the largest of these at which every cell fits on one line, else the smallest. */
const BODY_SIZES = [9, 8.5, 8];

/**
 * Column widths fitted to their content, and the text size. Everything on one line when it fits at
 * 9 pt (or, for a wide table, 8.5 or 8 pt), the room left going to the growing columns. Otherwise
 * one-line columns (dates, amounts) keep their width and the wrapping ones are served narrowest
 * first, each with its whole width while the ones after it can still get their longest word (and
 * the growing column a quarter of the table): short names stay on one line and the growing column
 * (the notes) takes what is left and wraps. Only a
 * table whose longest words alone are wider than the page scales every column down (its cells
 * then shrink their text or cut a word with "…").
 */
export function fitColumns<R>(cursor: PageCursor, columns: Column<R>[], cells: string[][]): { widths: number[]; size: number } {
  const available = cursor.width;
  for (const size of BODY_SIZES) {
    const sizes = contentWidths(cursor, columns, cells, size);
    const natural = sizes.reduce((s, c) => s + c.natural, 0);
    if (!fits(natural, available)) continue;
    const growing = columns.map((c, i) => (c.grow ? i : -1)).filter((i) => i >= 0);
    const takers = growing.length ? growing : [columns.length - 1];
    return { size, widths: sizes.map((c, i) => c.natural + (takers.includes(i) ? (available - natural) / takers.length : 0)) };
  }
  const size = BODY_SIZES[BODY_SIZES.length - 1]!;
  const sizes = contentWidths(cursor, columns, cells, size);
  const minimal = sizes.reduce((s, c) => s + c.minimal, 0);
  if (minimal > available) {
    // One-line columns (amounts, dates) keep the width of their widest text while the rest can
    // share what is left; only when they alone overflow the page does every column scale down.
    const lines = sizes.reduce((s, c, i) => s + (columns[i]!.fit === 'line' ? c.natural : 0), 0);
    const wraps = minimal - sizes.reduce((s, c, i) => s + (columns[i]!.fit === 'line' ? c.minimal : 0), 0);
    if (lines >= available * 0.75 || wraps <= 0) return { size, widths: sizes.map((c) => (c.minimal * available) / minimal) };
    return { size, widths: sizes.map((c, i) => (columns[i]!.fit === 'line' ? c.natural : (c.minimal * (available - lines)) / wraps)) };
  }
  const widths = sizes.map((c, i) => (columns[i]!.fit === 'line' ? c.natural : 0));
  let left = available - widths.reduce((s, w) => s + w, 0);
  const wrapping = columns.map((_, i) => i).filter((i) => columns[i]!.fit === 'wrap');
  // Narrowest first, the growing column (the notes) last, with a fair part of the page kept for it.
  const order = [...wrapping.filter((i) => !columns[i]!.grow).sort((a, b) => sizes[a]!.natural - sizes[b]!.natural), ...wrapping.filter((i) => columns[i]!.grow)];
  const keep = (i: number) => (columns[i]!.grow ? Math.min(sizes[i]!.natural, Math.max(sizes[i]!.minimal, available * GROW_SHARE)) : sizes[i]!.minimal);
  order.forEach((i, n) => {
    const reserved = order.slice(n + 1).reduce((s, j) => s + keep(j), 0);
    const width = n === order.length - 1 ? left : Math.max(sizes[i]!.minimal, Math.min(sizes[i]!.natural, left - reserved));
    widths[i] = width;
    left -= width;
  });
  return { size, widths };
}

function fitCell<R>(cursor: PageCursor, column: Column<R>, text: string, width: number, size: number): Fitted {
  const opts = { size, minSize: MIN_SIZE };
  const inner = width - GAP;
  return column.fit === 'line' ? fitLine(text, inner, cursor.measure('body'), opts) : fitText(text, inner, cursor.measure('body'), { ...opts, maxLines: MAX_CELL_LINES });
}

/** How far `drawHeader` moves the cursor: the titles, the rule under them and the space below it. */
const HEADER_HEIGHT = lineHeight(HEAD_SIZE) + 2 + 3;

/** The header row: titles in small grey bold, a rule under them. */
function drawHeader<R>(cursor: PageCursor, columns: Column<R>[], widths: number[]): void {
  let x = cursor.left;
  columns.forEach((c, i) => {
    const w = widths[i]!;
    const title = fitLine(c.title, w - GAP, cursor.measure('bold'), { size: HEAD_SIZE, minSize: MIN_SIZE });
    cursor.line(title.lines[0]!, x + GAP / 2, cursor.y, { font: 'bold', size: title.size, color: GREY, width: w - GAP, align: c.align });
    x += w;
  });
  cursor.y += lineHeight(HEAD_SIZE) + 2;
  cursor.rule(cursor.y - 1);
  cursor.y += 3;
}

/** Rows that move to the next page with what follows the table, so it never stands there alone. */
const KEEP_WITH_NEXT = 3;
/** Rows that stay on the page of the table's heading and header row, so neither ends a page alone. */
const KEEP_WITH_HEADER = 2;

/** What stands above a table (a heading, a caption): `height` points, drawn at `cursor.y` by `draw`, which moves it down. */
export interface Lead {
  height: number;
  draw: () => void;
}

/**
 * A table that flows over as many pages as it needs: a row never splits, and the header row is
 * drawn again at the top of every page the table continues on. `keepRoom` is the height of what
 * must follow the table on the same page (the totals): its last rows move to a new page with it
 * rather than leave it alone there. The `lead` (a heading), the header row and the first two rows
 * (or the last rows with what follows) go on one page, so a heading never ends a page alone.
 */
export function drawTable<R>(cursor: PageCursor, columns: Column<R>[], rows: R[], opts: { keepRoom?: number; lead?: Lead } = {}): void {
  const keepRoom = opts.keepRoom ?? 0;
  const cells = rows.map((r) => columns.map((c) => c.cell(r)));
  const { widths, size } = fitColumns(cursor, columns, cells);
  const fittedRows = cells.map((row) => row.map((text, i) => fitCell(cursor, columns[i]!, text, widths[i]!, size)));
  const heights = fittedRows.map((fitted) => Math.max(...fitted.map((f) => f.lines.length * lineHeight(f.size))) + ROW_GAP);
  // The room the rows from `n` on ask for: the row, or the table's last rows with what follows it.
  const tail = (n: number) => n === heights.length - KEEP_WITH_NEXT || (n === 0 && heights.length < KEEP_WITH_NEXT);
  const needed = (n: number) => (tail(n) ? heights.slice(n).reduce((s, h) => s + h, 0) + keepRoom : heights[n]!);
  // Never ask for more than a fresh page holds: then the rows simply flow on.
  const most = cursor.bottom - MARGIN - 40;
  // Room is asked for before the lead and header are drawn: once they are, the first rows follow them
  // on this page (a first row is always given whole, even where a fresh page could not take the rest).
  const top = (opts.lead?.height ?? 0) + HEADER_HEIGHT;
  const first = tail(0) ? needed(0) : heights.slice(0, KEEP_WITH_HEADER).reduce((s, h) => s + h, 0);
  cursor.ensure(Math.min(top + first, Math.max(most, top + (heights[0] ?? lineHeight(size)))));
  opts.lead?.draw();
  drawHeader(cursor, columns, widths);
  fittedRows.forEach((fitted, n) => {
    if (n > 0) cursor.ensure(Math.min(needed(n), most), () => drawHeader(cursor, columns, widths));
    let x = cursor.left;
    fitted.forEach((f, i) => {
      const w = widths[i]!;
      // A cell shrunk for a long word keeps the row's first baseline.
      const y = cursor.y + (size - f.size) * 0.9;
      cursor.lines(f, x + GAP / 2, y, { size: f.size, width: w - GAP, align: columns[i]!.align });
      x += w;
    });
    cursor.y += heights[n]!;
  });
  cursor.y += 6;
}
