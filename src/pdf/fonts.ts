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
}

let found: PdfFonts | undefined;

export function pdfFonts(): PdfFonts {
  if (found) return found;
  for (const dir of CANDIDATE_DIRS) {
    const regular = join(dir, 'DejaVuSans.ttf');
    const bold = join(dir, 'DejaVuSans-Bold.ttf');
    if (existsSync(regular) && existsSync(bold)) return (found = { regular, bold, unicode: true });
  }
  return (found = STANDARD_FONTS);
}

/** pdfkit's built-in fonts: always available, WinAnsi only. */
export const STANDARD_FONTS: PdfFonts = { regular: 'Helvetica', bold: 'Helvetica-Bold', unicode: false };

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

/**
 * Text as a font can draw it: bidi controls dropped, and each character the font has no glyph for
 * (`hasGlyph`, from the font object pdfkit/fontkit loaded) drawn as "?" rather than an empty box.
 * Line breaks are kept. Answers are remembered per character.
 */
export function glyphFilter(hasGlyph: (codePoint: number) => boolean): (text: string) => string {
  const known = new Map<number, boolean>();
  const has = (c: number) => {
    let yes = known.get(c);
    if (yes === undefined) known.set(c, (yes = hasGlyph(c)));
    return yes;
  };
  return (text) => {
    let out = '';
    for (const ch of withoutBidiControls(text)) {
      const c = ch.codePointAt(0) ?? 63;
      // A tab typed in notes or an address is spacing, as before: no font has a glyph for it.
      out += c === 0x0a || has(c) ? ch : c === 0x09 ? ' ' : '?';
    }
    return out;
  };
}
