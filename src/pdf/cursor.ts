import type PDFDocument from 'pdfkit';
import { visualPieces, type Direction } from './bidi.ts';
import type { Fitted, Measure } from './fit.ts';
import type { FontName, Typesetter } from './typeset.ts';

export const MARGIN = 50;
export const GREY = '#555555';
export const LIGHT = '#888888';
export const RULE = '#cccccc';
export const ACCENT = '#1a4fa3';

export type { FontName } from './typeset.ts';

/** Where a line sits in its `width`; `start`: left, or right for a right-to-left paragraph. */
type Align = 'left' | 'right' | 'center' | 'start';

/**
 * Where the next thing goes on the current page, and a new page when it would not fit. Sections
 * draw at `cursor.y` and move it down; `ensure(height)` starts a new page first when the room left
 * above the footer is too small (calling `onNewPage`, e.g. to repeat a table's header).
 */
export class PageCursor {
  y = MARGIN;

  constructor(
    readonly pdf: InstanceType<typeof PDFDocument>,
    /** Which font draws each character, and how wide text is (see typeset.ts). */
    readonly type: Typesetter,
    /** Space kept free at the bottom of every page for the footer. */
    private readonly footerHeight: number,
  ) {}

  get left(): number {
    return MARGIN;
  }

  get width(): number {
    return this.pdf.page.width - 2 * MARGIN;
  }

  get right(): number {
    return this.left + this.width;
  }

  /** The lowest y a section may draw to on this page. */
  get bottom(): number {
    return this.pdf.page.height - MARGIN - this.footerHeight;
  }

  get room(): number {
    return this.bottom - this.y;
  }

  ensure(height: number, onNewPage?: () => void): void {
    if (this.y + height <= this.bottom) return;
    this.pdf.addPage();
    this.y = MARGIN;
    onNewPage?.();
  }

  /** A measure bound to a font, for fit.ts. */
  measure(font: FontName): Measure {
    return (text, size) => this.type.width(text, font, size);
  }

  /**
   * One line of text exactly where asked, never wrapped: fit.ts decides the lines, and pdfkit is
   * never given a width (its line wrapper would break "-BHD 199.998" after the "-" when the text is
   * as wide as the width, give or take a rounding). A `width` only places right-aligned and centred
   * text. With `baselineOf`, text shrunk below that size sits on the same baseline as its neighbours.
   * `start` aligns a line where its paragraph starts reading (`direction`): a right-to-left one on
   * the right of `width`, as a browser sets a paragraph of `dir="auto"` (the public page's).
   */
  line(
    text: string,
    x: number,
    y: number,
    opts: { font?: FontName; size: number; baselineOf?: number; color?: string; width?: number; align?: Align; link?: string; direction?: Direction },
  ): void {
    const font = opts.font ?? 'body';
    this.pdf.fontSize(opts.size).fillColor(opts.color ?? 'black');
    const top = y + (opts.baselineOf !== undefined ? (opts.baselineOf - opts.size) * ASCENT : 0);
    // Runs of one font (typeset.ts); a line with right-to-left text is first cut into pieces of one
    // direction in visual order (bidi.ts), each in runs of one font.
    const inFonts = this.type.runs(text, font);
    const pieces = visualPieces(inFonts.map((run) => run.text).join(''), opts.direction);
    const runs = pieces
      ? pieces.flatMap((piece) => (piece.space ? [{ text: piece.text, font, space: true }] : this.type.runs(piece.text, font).map((run) => ({ ...run, space: false }))))
      : inFonts.map((run) => ({ ...run, space: false }));
    const align = opts.align === 'start' ? (opts.direction === 'rtl' ? 'right' : 'left') : (opts.align ?? 'left');
    const aligned = opts.width !== undefined && align !== 'left';
    // Most lines are one run set from the left: nothing to measure.
    const widths = runs.length > 1 || aligned ? runs.map((run) => this.pdf.font(run.font).widthOfString(run.text)) : [];
    let left = x;
    if (aligned) {
      const free = opts.width! - widths.reduce((sum, w) => sum + w, 0);
      left += align === 'right' ? free : free / 2;
    }
    runs.forEach((run, i) => {
      if (!run.space) {
        const at = top + this.type.drop(run.font, font, opts.size);
        this.pdf.font(run.font).text(run.text, left, at, { lineBreak: false, ...(opts.link && { link: opts.link, underline: true }) });
      }
      left += widths[i] ?? 0;
    });
  }

  /** Fitted lines one under the other from `y`, each in its paragraph's direction; returns the y below the last. */
  lines(fitted: Pick<Fitted, 'lines' | 'directions'>, x: number, y: number, opts: { font?: FontName; size: number; color?: string; width?: number; align?: Exclude<Align, 'center'> }): number {
    const step = lineHeight(opts.size);
    fitted.lines.forEach((text, i) => this.line(text, x, y + i * step, { ...opts, direction: fitted.directions[i] }));
    return y + fitted.lines.length * step;
  }

  rule(y: number, from = this.left, to = this.right): void {
    this.pdf.moveTo(from, y).lineTo(to, y).strokeColor(RULE).lineWidth(0.5).stroke();
  }
}

/** The height of capitals above the baseline, as a share of the font size (DejaVu Sans, near enough for Helvetica). */
const ASCENT = 0.9;

/** The distance between two lines of text at a font size. */
export const lineHeight = (size: number) => size * 1.3;
