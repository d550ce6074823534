import type PDFDocument from 'pdfkit';
import type { Measure } from './fit.ts';

export const MARGIN = 50;
export const GREY = '#555555';
export const LIGHT = '#888888';
export const RULE = '#cccccc';
export const ACCENT = '#1a4fa3';

export type FontName = 'body' | 'bold';

/**
 * Where the next thing goes on the current page, and a new page when it would not fit. Sections
 * draw at `cursor.y` and move it down; `ensure(height)` starts a new page first when the room left
 * above the footer is too small (calling `onNewPage`, e.g. to repeat a table's header).
 */
export class PageCursor {
  y = MARGIN;

  constructor(
    readonly pdf: InstanceType<typeof PDFDocument>,
    /** Text as the embedded font can draw it (see fonts.ts). */
    readonly clean: (s: string) => string,
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
    return (text, size) => this.pdf.font(font).fontSize(size).widthOfString(this.clean(text));
  }

  /**
   * One line of text exactly where asked: never wrapped by pdfkit (fit.ts decides the lines). With
   * `baselineOf`, text shrunk below that size sits on the same baseline as its neighbours.
   */
  line(
    text: string,
    x: number,
    y: number,
    opts: { font?: FontName; size: number; baselineOf?: number; color?: string; width?: number; align?: 'left' | 'right' | 'center'; link?: string },
  ): void {
    this.pdf
      .font(opts.font ?? 'body')
      .fontSize(opts.size)
      .fillColor(opts.color ?? 'black');
    const shift = opts.baselineOf !== undefined ? (opts.baselineOf - opts.size) * ASCENT : 0;
    this.pdf.text(this.clean(text), x, y + shift, {
      lineBreak: false,
      ...(opts.width !== undefined && { width: opts.width }),
      ...(opts.align && { align: opts.align }),
      ...(opts.link && { link: opts.link, underline: true }),
    });
  }

  /** Several lines one under the other from `y`; returns the y below the last. */
  lines(lines: string[], x: number, y: number, opts: { font?: FontName; size: number; color?: string; width?: number; align?: 'left' | 'right' }): number {
    const step = lineHeight(opts.size);
    lines.forEach((text, i) => this.line(text, x, y + i * step, opts));
    return y + lines.length * step;
  }

  rule(y: number, from = this.left, to = this.right): void {
    this.pdf.moveTo(from, y).lineTo(to, y).strokeColor(RULE).lineWidth(0.5).stroke();
  }
}

/** The height of capitals above the baseline, as a share of the font size (DejaVu Sans, near enough for Helvetica). */
const ASCENT = 0.9;

/** The distance between two lines of text at a font size. */
export const lineHeight = (size: number) => size * 1.3;
