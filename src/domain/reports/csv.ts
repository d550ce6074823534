/**
 * CSV as RFC 4180 writes it (comma-separated, CRLF line ends, fields holding a comma, a quote or a
 * line break in double quotes with quotes doubled), in UTF-8, optionally after a byte order mark so
 * spreadsheet programs read accents right.
 *
 * Formula injection: a spreadsheet runs a cell starting with `=`, `+`, `-` or `@` (and some also
 * one starting with a tab or a carriage return) as a formula, so a note like `=HYPERLINK(...)`
 * typed into a time entry would become a live formula on the accountant's machine. Every text cell
 * starting with one of those characters is written with a single quote in front (`'=HYPERLINK(...)`),
 * which spreadsheets show as text. Numbers are written as numbers and never prefixed: a negative
 * amount stays `-12.50`, a number. Each column is declared text or number, so a text cell that
 * merely looks like a negative number (a note "-5 minutes") is still neutralised.
 */

export const UTF8_BOM = '\uFEFF';

/** A column: its header, whether its cells are text or numbers, and how a row gives its cell. */
export interface CsvColumn<R> {
  header: string;
  kind: 'text' | 'number';
  /** A number, decimal text for a number column (`"-12.50"`), any text for a text column; null or '' for an empty cell. */
  value: (row: R) => string | number | null;
}

/** Characters that make a spreadsheet read a cell as a formula when they come first. */
const FORMULA_START = new Set(['=', '+', '-', '@', '\t', '\r']);
const NEEDS_QUOTES = /[",\r\n]/;
const NUMBER_TEXT = /^-?\d+(?:\.\d+)?$/;

/** A text cell, neutralised against formula injection and quoted when RFC 4180 requires it. */
export function textCell(value: string): string {
  const safe = value.length > 0 && FORMULA_START.has(value[0]!) ? `'${value}` : value;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** A number cell: a finite number or its decimal text as is; anything else is treated as text. */
function numberCell(value: string | number): string {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  return NUMBER_TEXT.test(value) ? value : textCell(value);
}

/** The header line (headers are text cells too), with the byte order mark first when asked. */
export function csvHeader(columns: readonly Pick<CsvColumn<never>, 'header'>[], bom: boolean): string {
  return (bom ? UTF8_BOM : '') + columns.map((c) => textCell(c.header)).join(',') + '\r\n';
}

/**
 * Text gathered line by line into one UTF-8 buffer and taken out as one flat string. Appending to
 * a string instead would keep every line's pieces alive until the whole chunk is done, and a chunk
 * of thousands of lines then outlives the young generation: garbage collection, not writing CSV,
 * would take most of an export's time.
 */
export class TextBuffer {
  private buffer = Buffer.allocUnsafe(1 << 20);
  private used = 0;

  add(text: string): void {
    // A UTF-16 code unit never takes more than three bytes in UTF-8.
    if (this.used + text.length * 3 > this.buffer.length) {
      const bigger = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.used + text.length * 3));
      this.buffer.copy(bigger, 0, 0, this.used);
      this.buffer = bigger;
    }
    this.used += this.buffer.write(text, this.used);
  }

  /** Bytes added since the last take. */
  get length(): number {
    return this.used;
  }

  /** Everything added since the last take, as one string; the buffer is reused. */
  take(): string {
    const text = this.buffer.toString('utf8', 0, this.used);
    this.used = 0;
    return text;
  }
}

/** The lines of `rows`, each ending in CRLF. */
export function csvLines<R>(columns: readonly CsvColumn<R>[], rows: Iterable<R>, into = new TextBuffer()): string {
  for (const row of rows) {
    let line = '';
    for (let i = 0; i < columns.length; i++) {
      const column = columns[i]!;
      const value = column.value(row);
      if (i > 0) line += ',';
      if (value === null || value === '') continue;
      line += column.kind === 'number' ? numberCell(value) : textCell(String(value));
    }
    into.add(line + '\r\n');
  }
  return into.take();
}

/** A whole small table (a report) as CSV pieces: the header, then the rows in slices. */
export function* csvTable<R>(columns: readonly CsvColumn<R>[], rows: readonly R[], bom: boolean, slice = 2000): Generator<string> {
  yield csvHeader(columns, bom);
  for (let i = 0; i < rows.length; i += slice) yield csvLines(columns, rows.slice(i, i + slice));
}
