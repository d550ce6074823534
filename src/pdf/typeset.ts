import { readFileSync } from 'node:fs';
import type { Font } from 'fontkit';
import { lazy } from '../lazy.ts';
import { glyphRuns, runsText, toWinAnsi, withoutBidiControls, type FontFace, type PdfFonts, type Run } from './fonts.ts';

export type FontName = 'body' | 'bold';

/** A stretch of text and the name pdfkit knows the font to draw it in by. */
export interface FontRun {
  text: string;
  font: string;
}

/** The glyph lookup and metrics of a font pdfkit loaded: fontkit's, for an embedded font. */
interface LoadedFont {
  ascender: number;
  font?: { hasGlyphForCodePoint?: (codePoint: number) => boolean };
}

/** pdfkit's font parser; loaded with the first PDF, as pdfkit is. */
const fontkit = lazy<typeof import('fontkit')>('fontkit');

/**
 * Fonts parsed once per process and shared by every PDF, which pdfkit would otherwise read and
 * parse again for each: for Noto Sans CJK (19 MB, 65,000 glyphs) that was 250 ms of every
 * document with a Chinese or Japanese character. pdfkit takes a parsed font as it is; each
 * document still embeds its own subset.
 */
const parsed = new Map<string, Font>();
function parsedFont({ path, face }: FontFace): Font {
  const key = `${path}#${face ?? ''}`;
  let font = parsed.get(key);
  if (!font) parsed.set(key, (font = fontkit().create(readFileSync(path), face) as Font));
  return font;
}

/**
 * How a document's text is drawn: for each of its two fonts (body and bold), the chain of fonts a
 * character is drawn in (the first that has its glyph; see `glyphRuns`), registered with pdfkit as
 * `body`, `body-1`, … A fallback font is loaded only when a character needs it.
 */
export class Typesetter {
  private readonly runsOf: Record<FontName, (text: string) => Run[]>;
  /** Fallback fonts not yet registered: a font is parsed only when a character needs it. */
  private readonly unregistered = new Map<string, FontFace>();

  constructor(
    private readonly pdf: PDFKit.PDFDocument,
    fonts: PdfFonts,
    locale: string,
  ) {
    register(pdf, 'body', fonts.unicode ? { path: fonts.regular } : fonts.regular);
    register(pdf, 'bold', fonts.unicode ? { path: fonts.bold } : fonts.bold);
    fonts.fallbacks.forEach((fallback, i) => {
      const { regular, bold } = fallback.faces(locale);
      this.unregistered.set(`body-${i + 1}`, regular).set(`bold-${i + 1}`, bold);
    });
    if (!fonts.unicode) {
      // Helvetica: WinAnsi only, and no fallback.
      const winAnsi = (text: string): Run[] => [{ text: toWinAnsi(withoutBidiControls(text)), font: 0 }];
      this.runsOf = { body: winAnsi, bold: winAnsi };
      return;
    }
    const chain = (name: FontName) =>
      glyphRuns([name, ...fonts.fallbacks.map((_, i) => `${name}-${i + 1}`)].map((font) => (codePoint: number) => this.loaded(font).font?.hasGlyphForCodePoint?.(codePoint) ?? false));
    this.runsOf = { body: chain('body'), bold: chain('bold') };
  }

  /** The font pdfkit loaded under `name` (loading it now if it has not yet), made current. */
  private loaded(name: string): LoadedFont {
    const face = this.unregistered.get(name);
    if (face) {
      register(this.pdf, name, face);
      this.unregistered.delete(name);
    }
    return (this.pdf.font(name) as unknown as { _font: LoadedFont })._font;
  }

  /** `text` as runs, each in the font of the chain of `font` that draws it. */
  runs(text: string, font: FontName): FontRun[] {
    return this.runsOf[font](text).map((run) => ({ text: run.text, font: run.font === 0 ? font : `${font}-${run.font}` }));
  }

  /** The text as drawn: "?" where no font has a glyph, bidi controls dropped, a tab a space. */
  drawn(text: string, font: FontName): string {
    return runsText(this.runsOf[font](text));
  }

  /** Whether the fonts draw `text` as it is (bidi controls aside), in body and bold alike. */
  drawable(text: string): boolean {
    const plain = withoutBidiControls(text);
    return this.drawn(text, 'body') === plain && this.drawn(text, 'bold') === plain;
  }

  /** How wide `text` is in `font` at `size`, each run measured in its own font. */
  width(text: string, font: FontName, size: number): number {
    let width = 0;
    for (const run of this.runs(text, font)) width += this.pdf.font(run.font).fontSize(size).widthOfString(run.text);
    return width;
  }

  /**
   * How far below the first font's a run's font must be set so their baselines meet: pdfkit places
   * text by its top, one ascender above the baseline, and Noto Sans CJK's ascender is taller than
   * DejaVu's.
   */
  drop(runFont: string, font: FontName, size: number): number {
    if (runFont === font) return 0;
    return ((this.loaded(font).ascender - this.loaded(runFont).ascender) / 1000) * size;
  }
}

/** A font registered under `name`: one of pdfkit's standard fonts by its name, else a file's (shared) parsed font. */
function register(pdf: PDFKit.PDFDocument, name: string, font: FontFace | string): void {
  // pdfkit's types name only files and buffers; it takes a fontkit font as well (PDFFontFactory.open).
  pdf.registerFont(name, typeof font === 'string' ? font : (parsedFont(font) as unknown as Buffer));
}
