import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The DejaVu fonts that ship with the package (`dejavu-fonts-ttf`), when it is installed. */
function packagedFontDir(): string[] {
  try {
    return [join(dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf')];
  } catch {
    return [];
  }
}

/**
 * pdfkit's built-in Helvetica only draws WinAnsi (Windows-1252) characters: "Łódź", "Дмитрий" or
 * "Ελλάδα" would come out as garbage. So the PDF embeds DejaVu Sans, which covers Latin, Greek,
 * Cyrillic and more: the copy installed with the package (the `dejavu-fonts-ttf` dependency), else a
 * system copy (Debian's `fonts-dejavu-core`, Fedora/Arch/Homebrew paths). Only if neither exists
 * does the PDF fall back to Helvetica, drawing every character outside WinAnsi as "?", so nothing
 * silently turns into wrong letters. DejaVu has no CJK (or Thai, Devanagari, …) either: a character
 * the embedded font has no glyph for is drawn as "?" too (`glyphFilter`), never as an empty box.
 */
const CANDIDATE_DIRS = [
  ...packagedFontDir(),
  '/usr/share/fonts/truetype/dejavu',
  '/usr/share/fonts/dejavu',
  '/usr/share/fonts/TTF',
  '/usr/local/share/fonts',
  '/opt/homebrew/share/fonts',
];

export interface PdfFonts {
  regular: string;
  bold: string;
  /** True when the fonts are embedded TrueType files that draw (almost) any script. */
  unicode: boolean;
  /** Fonts for the characters the first ones have no glyph for, tried in order (see `fallbackFonts`). */
  fallbacks: FallbackFont[];
}

/** A font file, and for a collection (`.ttc`) the PostScript name of the face to use. */
export interface FontFace {
  path: string;
  face?: string;
}

export interface FallbackFont {
  /** The faces for an invoice in `locale` (a collection holds one per region). */
  faces: (locale: string) => { regular: FontFace; bold: FontFace };
}

let found: PdfFonts | undefined;

export function pdfFonts(): PdfFonts {
  if (found) return found;
  for (const dir of CANDIDATE_DIRS) {
    const regular = join(dir, 'DejaVuSans.ttf');
    const bold = join(dir, 'DejaVuSans-Bold.ttf');
    if (existsSync(regular) && existsSync(bold)) return (found = { regular, bold, unicode: true, fallbacks: fallbackFonts() });
  }
  return (found = STANDARD_FONTS);
}

/** pdfkit's built-in fonts: always available, WinAnsi only. */
export const STANDARD_FONTS: PdfFonts = { regular: 'Helvetica', bold: 'Helvetica-Bold', unicode: false, fallbacks: [] };

/** Where distributions install Noto Sans CJK (Debian and Ubuntu's `fonts-noto-cjk`, Fedora, Arch). */
const NOTO_CJK_DIRS = ['/usr/share/fonts/opentype/noto', '/usr/share/fonts/google-noto-cjk', '/usr/share/fonts/noto-cjk'];
/** Debian's `fonts-droid-fallback`: one smaller font for Chinese, Japanese and Korean, without bold. */
const DROID_FALLBACK = '/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf';

/**
 * Han characters are drawn a little differently in each region; Noto Sans CJK holds a face for
 * each, chosen by the workspace's locale (Japanese, the collection's first face, otherwise).
 */
function cjkRegion(locale: string): 'jp' | 'kr' | 'sc' | 'tc' | 'hk' {
  const [language, ...rest] = locale.toLowerCase().split(/[-_]/);
  if (language === 'ko') return 'kr';
  if (language !== 'zh') return 'jp';
  if (rest.includes('hk') || rest.includes('mo')) return 'hk';
  return rest.includes('hant') || rest.includes('tw') ? 'tc' : 'sc';
}

/**
 * DejaVu has no Chinese, Japanese or Korean. When the machine has a font that does (Noto Sans CJK,
 * else Droid Sans Fallback), the PDF draws those characters with it; without one they print as
 * "?" (docs/invoices.md). They are system packages, not dependencies: Noto Sans CJK is 90 MB.
 */
function fallbackFonts(): FallbackFont[] {
  const fonts: FallbackFont[] = [];
  const noto = NOTO_CJK_DIRS.find((dir) => existsSync(join(dir, 'NotoSansCJK-Regular.ttc')) && existsSync(join(dir, 'NotoSansCJK-Bold.ttc')));
  if (noto) {
    fonts.push({
      faces: (locale) => {
        const region = cjkRegion(locale);
        return {
          regular: { path: join(noto, 'NotoSansCJK-Regular.ttc'), face: `NotoSansCJK${region}-Regular` },
          bold: { path: join(noto, 'NotoSansCJK-Bold.ttc'), face: `NotoSansCJK${region}-Bold` },
        };
      },
    });
  }
  if (existsSync(DROID_FALLBACK)) fonts.push({ faces: () => ({ regular: { path: DROID_FALLBACK }, bold: { path: DROID_FALLBACK } }) });
  return fonts;
}

/** Windows-1252's characters above Latin-1 that Helvetica can draw. */
const WIN_ANSI_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');

/** Text a standard PDF font can draw: characters outside WinAnsi become "?". */
export function toWinAnsi(text: string): string {
  let out = '';
  for (const ch of text) {
    const c = ch.codePointAt(0) ?? 63;
    out += (c >= 0x20 && c <= 0x7e) || (c >= 0xa0 && c <= 0xff) || c === 0x0a || WIN_ANSI_EXTRA.has(ch) ? ch : '?';
  }
  return out;
}

/**
 * Invisible characters that only steer bidirectional text (ALM, LRM, RLM, embeddings, overrides,
 * isolates). pdfkit does no bidi reordering, and DejaVu has no glyph for some of them (U+061C
 * showed as an empty box), so they are dropped from what the PDF draws.
 */
export const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/** `text` without bidi control characters. */
export const withoutBidiControls = (text: string) => text.replace(BIDI_CONTROLS, '');

/** A stretch of text drawn in one font: `font` is its index in the chain given to `glyphRuns`. */
export interface Run {
  text: string;
  font: number;
}

/**
 * Text as a chain of fonts draws it: bidi controls dropped, each character in the first font of
 * the chain that has a glyph for it (`hasGlyph`, asked of the fonts pdfkit/fontkit loaded, the
 * later ones only for what the earlier lack), and one that no font has as "?" in the first, never
 * as an empty box. Line breaks are kept; a tab is a space. Answers are remembered per character.
 */
export function glyphRuns(hasGlyph: ((codePoint: number) => boolean)[]): (text: string) => Run[] {
  const known = new Map<number, number>();
  const fontFor = (c: number) => {
    let font = known.get(c);
    if (font === undefined) {
      font = hasGlyph.findIndex((has) => has(c));
      known.set(c, font);
    }
    return font;
  };
  return (text) => {
    const runs: Run[] = [];
    let run: Run | undefined;
    for (const ch of withoutBidiControls(text)) {
      const c = ch.codePointAt(0) ?? 63;
      // A tab typed in notes or an address is spacing, as before: no font has a glyph for it.
      const font = c === 0x0a || c === 0x09 ? (run?.font ?? 0) : Math.max(0, fontFor(c));
      const drawn = c === 0x09 ? ' ' : c !== 0x0a && fontFor(c) < 0 ? '?' : ch;
      if (run?.font === font) run.text += drawn;
      else runs.push((run = { text: drawn, font }));
    }
    return runs.length ? runs : [{ text: '', font: 0 }];
  };
}

/** The text of runs, as drawn. */
export const runsText = (runs: readonly Run[]): string => (runs.length === 1 ? runs[0]!.text : runs.map((r) => r.text).join(''));
