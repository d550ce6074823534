import bidiModule, { type Bidi } from 'bidi-js';
import { graphemesOf } from './graphemes.ts';

/**
 * Right-to-left text (Hebrew, Arabic) in the PDF, in the order a reader expects.
 *
 * pdfkit does no bidirectional reordering: it lays a line out word by word, in the order the
 * characters are stored, and fontkit reverses each RTL word with the space after it. A Hebrew
 * name came out with its words in the wrong order and a space moved into the next word, and
 * "Hosting for שרת 3 months" with the digits on the wrong side. So a line that holds RTL text is
 * ordered here with the Unicode Bidirectional Algorithm (bidi-js, conformant to UAX #9), and drawn
 * as pieces from left to right, each piece a run of one direction without spaces, which fontkit
 * shapes (Arabic letters join) without moving anything.
 */

/*
 * The package is CommonJS whose `module.exports` is the factory, while its types declare an ES
 * default export; under NodeNext TypeScript takes the default import for the module object, which
 * at run time it is not.
 */
let made: Bidi | undefined;
/**
 * The algorithm, made on first use: the factory builds its Unicode tables, 18 ms that every start
 * of the server paid before (`node --cpu-prof`), though most PDFs hold no RTL text.
 */
const bidi = (): Bidi => (made ??= (bidiModule as unknown as () => Bidi)());

/**
 * Characters of the blocks of right-to-left scripts (Hebrew, Arabic, Syriac, Thaana, N'Ko,
 * Samaritan, Mandaic, Arabic presentation forms, and the historic ones beyond the BMP). A line
 * without one is drawn as it is: the algorithm would not move anything in it.
 */
const MAY_BE_RTL = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefe\u{10800}-\u{10fff}\u{1e800}-\u{1efff}]/u;

/**
 * The scripts fontkit lays out right to left, reversing the glyphs it shaped: it goes by the first
 * character of a string that belongs to a script (not Common or Inherited), so a piece is handed
 * to it in whichever order makes that reversal come out in reading order.
 */
const FIRST_OF_A_SCRIPT = /[^\p{Script=Common}\p{Script=Inherited}\p{Script=Unknown}]/u;
const RTL_SCRIPT =
  /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Cypriot}\p{Script=Kharoshthi}\p{Script=Phoenician}\p{Script=Nko}\p{Script=Lydian}\p{Script=Avestan}\p{Script=Imperial_Aramaic}\p{Script=Inscriptional_Pahlavi}\p{Script=Inscriptional_Parthian}\p{Script=Old_South_Arabian}\p{Script=Old_Turkic}\p{Script=Samaritan}\p{Script=Mandaic}\p{Script=Meroitic_Cursive}\p{Script=Meroitic_Hieroglyphs}\p{Script=Manichaean}\p{Script=Mende_Kikakui}\p{Script=Nabataean}\p{Script=Old_North_Arabian}\p{Script=Palmyrene}\p{Script=Psalter_Pahlavi}]/u;

const fontkitReverses = (text: string): boolean => RTL_SCRIPT.test(FIRST_OF_A_SCRIPT.exec(text)?.[0] ?? '');

/** `text` backwards by whole characters (an emoji or a letter with its marks stays whole). */
const reversed = (text: string): string => graphemesOf(text).reverse().join('');

const isSpace = (char: string) => /\s/u.test(char);

/** The direction of a paragraph: that of its first strong character, left to right without one (UAX #9, P2–P3). */
export type Direction = 'ltr' | 'rtl';

export function paragraphDirection(paragraph: string): Direction {
  if (!MAY_BE_RTL.test(paragraph)) return 'ltr';
  return bidi().getEmbeddingLevels(paragraph).paragraphs[0]?.level === 1 ? 'rtl' : 'ltr';
}

/** A piece of a line: white space, which only moves the pen, or text drawn as one pdfkit string. */
export interface Piece {
  text: string;
  space: boolean;
}

/**
 * One line of text as pieces in visual order, left to right. Null when the line has no
 * right-to-left text, so it is drawn as one string, as before. `direction` is that of the
 * paragraph the line was wrapped from (`paragraphDirection`): a Hebrew paragraph whose second line
 * starts with a Latin word is still read right to left. Without it, the line's own (its first
 * strong character, as `dir="auto"` in a browser).
 */
export function visualPieces(line: string, direction?: Direction): Piece[] | null {
  if (!MAY_BE_RTL.test(line)) return null;
  const algorithm = bidi();
  const levels = algorithm.getEmbeddingLevels(line, direction);
  const order = algorithm.getReorderedIndices(line, levels);
  const mirrored = algorithm.getMirroredCharactersMap(line, levels.levels);
  const pieces: Piece[] = [];
  let i = 0;
  while (i < order.length) {
    const first = order[i]!;
    if (isSpace(line[first]!)) {
      pieces.push({ text: line[first]!, space: true });
      i++;
      continue;
    }
    // The longest run of visually adjacent characters that are adjacent in the text too, in one
    // direction, at one level, with no space.
    let end = i + 1;
    let step = 0;
    while (end < order.length) {
      const next = order[end]!;
      const delta = next - order[end - 1]!;
      if (isSpace(line[next]!) || levels.levels[next] !== levels.levels[first] || Math.abs(delta) !== 1 || (step !== 0 && delta !== step)) break;
      step = delta;
      end++;
    }
    const from = Math.min(first, order[end - 1]!);
    const to = Math.max(first, order[end - 1]!);
    let logical = '';
    for (let k = from; k <= to; k++) logical += mirrored.get(k) ?? line[k];
    // In visual order: a backwards run is the text reversed. fontkit reverses what it takes for RTL.
    const visual = step < 0 ? reversed(logical) : logical;
    pieces.push({ text: fontkitReverses(visual) ? reversed(visual) : visual, space: false });
    i = end;
  }
  return pieces;
}
