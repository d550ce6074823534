/**
 * Text that fits a width without ever splitting a word: lines break only at spaces (and at the
 * line breaks a person typed). A word too wide for the width first makes the whole text smaller,
 * down to a minimum size; a word still too wide at that size is cut and ends in "…". So
 * "Development" is never printed as "Developm/ent". Only what must print in full (`fitWhole`,
 * `fitUncut`) splits such a word over lines instead, after a "/" or "-" where it has one.
 */
import type LineBreaker from 'linebreak';
import { lazy } from '../lazy.ts';
import { paragraphDirection, type Direction } from './bidi.ts';
import { graphemesOf } from './graphemes.ts';

/** The Unicode line-breaking rules (UAX #14), pdfkit's own dependency; loaded with the first PDF. */
const lineBreaker = lazy<typeof LineBreaker>('linebreak');

/** How wide a string is at a font size (points); bound to one font by the caller. */
export type Measure = (text: string, size: number) => number;

export interface Fitted {
  lines: string[];
  /** Each line's paragraph direction (bidi.ts): a wrapped right-to-left paragraph stays one on every line. */
  directions: Direction[];
  size: number;
}

const ELLIPSIS = '…';

/**
 * How far a width may exceed the room and still fit it. A width measured at 1 pt and multiplied by
 * 9 comes out ~1e-14 larger than the same text measured at 9 pt (and a column's width minus its
 * gap can land an ulp below the text it was sized for): compared exactly, the widest word of a
 * column fitted to it was taken as too wide and printed smaller. A millionth of a point is invisible.
 */
const TOLERANCE = 1e-6;

/** Whether a text `textWidth` wide fits `width`, give or take floating-point rounding. */
export const fits = (textWidth: number, width: number) => textWidth <= width + TOLERANCE;

/** The longest start of `word` that fits `width` with "…" after it. */
export function ellipsize(word: string, width: number, size: number, measure: Measure): string {
  if (fits(measure(word, size), width)) return word;
  const chars = graphemesOf(word);
  let keep = chars.length - 1;
  while (keep > 0 && !fits(measure(chars.slice(0, keep).join('') + ELLIPSIS, size), width)) keep--;
  return keep > 0 ? chars.slice(0, keep).join('') + ELLIPSIS : ELLIPSIS;
}

/** A unit a line never breaks inside; `glued` when it follows the one before without a space. */
interface Word {
  text: string;
  glued: boolean;
}

/** Chinese, Japanese and Korean characters (and their full-width punctuation), written without spaces between words. */
const WIDE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff00-\uffef]/u;

/** The character of `text` that ends at `at`, and the one that starts there (whole surrogate pairs). */
const charBefore = (text: string, at: number) => String.fromCodePoint(text.codePointAt(at - 1 - (at > 1 && /[\udc00-\udfff]/.test(text[at - 1]!) ? 1 : 0))!);
const charAt = (text: string, at: number) => String.fromCodePoint(text.codePointAt(at)!);

/**
 * A paragraph's words: what stands between spaces, and within it, for text in Chinese, Japanese or
 * Korean, each place UAX #14 allows a line to break beside one of their characters (between two
 * ideographs, never before "。" or after "「"). Without that, a sentence with no spaces was one word,
 * shrunk and then cut with "…". Breaks only Latin text has (after a "-") are left to `pieces`.
 */
function wordsOf(paragraph: string): Word[] {
  const words: Word[] = [];
  for (const spaced of paragraph.split(/[ \t]+/)) {
    if (!spaced) continue;
    if (!WIDE.test(spaced)) {
      words.push({ text: spaced, glued: false });
      continue;
    }
    const breaker = new (lineBreaker())(spaced);
    let last = 0;
    for (let at = breaker.nextBreak()?.position; at !== undefined; at = breaker.nextBreak()?.position) {
      if (at < spaced.length && !WIDE.test(charBefore(spaced, at)) && !WIDE.test(charAt(spaced, at))) continue;
      words.push({ text: spaced.slice(last, at), glued: last > 0 });
      last = at;
    }
  }
  return words;
}

/** The words of `text` as plain strings, whatever its lines: what must all be there for it to be whole. */
const wordTexts = (text: string) => text.split(/\r?\n/).flatMap(wordsOf).map((w) => w.text);

/** Characters a word may break after when it must be split: "ACME/2026/" | "PROJECT-ALPHA". */
const BREAK_AFTER = /[/\\\-\u2010\u2013\u2014_.:,;]/u;

/**
 * A word too wide for `width` in pieces that each fit it: split after the last "/", "-", "_", "."
 * (and the like) that keeps the piece within the width, else between any two characters (never
 * inside an accented letter), so "ACME-INTERNATIONAL/2026/PROJECT-ALPHA" reads as its parts.
 */
function pieces(word: string, width: number, size: number, measure: Measure): string[] {
  const out: string[] = [];
  let piece: string[] = [];
  for (const char of graphemesOf(word)) {
    if (piece.length && !fits(measure(piece.join('') + char, size), width)) {
      const cut = piece.findLastIndex((c) => BREAK_AFTER.test(c)) + 1;
      const rest = piece.slice(cut);
      // A piece of a lone "-", or a remainder too wide with the next character, is no better than a plain split.
      const useBreak = cut > 1 && fits(measure(rest.join('') + char, size), width);
      out.push(piece.slice(0, useBreak ? cut : piece.length).join(''));
      piece = useBreak ? rest : [];
    }
    piece.push(char);
  }
  return [...out, piece.join('')];
}

/**
 * Greedy line filling at `size`, each line with its paragraph's direction. A word wider than
 * `width` is cut with an ellipsis, or with `split`, continued on the next lines.
 */
function wrap(text: string, width: number, size: number, measure: Measure, split = false): Omit<Fitted, 'size'> {
  const lines: string[] = [];
  const directions: Direction[] = [];
  for (const paragraph of text.split(/\r?\n/)) {
    const direction = paragraphDirection(paragraph);
    let line = '';
    for (const { text: raw, glued } of wordsOf(paragraph)) {
      const parts = split ? pieces(raw, width, size, measure) : [ellipsize(raw, width, size, measure)];
      if (parts.length > 1) {
        if (line) lines.push(line);
        lines.push(...parts.slice(0, -1));
        line = parts.at(-1)!;
        continue;
      }
      const word = parts[0]!;
      const candidate = line ? `${line}${glued ? '' : ' '}${word}` : word;
      if (line && !fits(measure(candidate, size), width)) {
        lines.push(line);
        line = word;
      } else {
        line = candidate;
      }
    }
    lines.push(line);
    while (directions.length < lines.length) directions.push(direction);
  }
  // Blank lines a person typed between paragraphs stay; trailing ones do not.
  while (lines.length > 1 && lines[lines.length - 1] === '') {
    lines.pop();
    directions.pop();
  }
  return { lines, directions };
}

/** One line as it is, its direction its own. */
const oneLine = (line: string, size: number): Fitted => ({ lines: [line], directions: [paragraphDirection(line)], size });

/** The largest size from `size` down to `minSize`, by half points, at which the text's widest word fits `width`. */
function sizeForWords(text: string, width: number, measure: Measure, size: number, minSize: number): number {
  const widest = Math.max(0, ...wordTexts(text).map((w) => measure(w, 1)));
  while (size > minSize && !fits(widest * size, width)) size = Math.max(minSize, size - 0.5);
  return size;
}

/**
 * `text` in lines of at most `width` points at `size`, or smaller (down to `minSize`, by half
 * points) when its widest word needs it. With `maxLines`, a longer text ends with "…".
 */
export function fitText(text: string, width: number, measure: Measure, opts: { size: number; minSize: number; maxLines?: number }): Fitted {
  const size = sizeForWords(text, width, measure, opts.size, opts.minSize);
  let { lines, directions } = wrap(text, width, size, measure);
  if (opts.maxLines !== undefined && lines.length > opts.maxLines) {
    lines = lines.slice(0, opts.maxLines);
    directions = directions.slice(0, opts.maxLines);
    const last = lines.length - 1;
    lines[last] = ellipsize(`${lines[last]}${ELLIPSIS}`, width, size, measure);
  }
  return { lines, directions, size };
}

/** One line that must not wrap (an amount, a date): smaller down to `minSize`, then cut with "…". */
export function fitLine(text: string, width: number, measure: Measure, opts: { size: number; minSize: number }): Fitted {
  let size = opts.size;
  while (size > opts.minSize && !fits(measure(text, size), width)) size = Math.max(opts.minSize, size - 0.5);
  return oneLine(ellipsize(text, width, size, measure), size);
}

/**
 * A value that must print whole, such as an invoice number, beside others of its size: on one line
 * at the largest size from `size` down to `minSize` (by half points) at which it fits, else at
 * `size` over as many lines as it needs, broken at spaces and a word still too wide after a "/" or
 * "-" (see `pieces`), else anywhere. Shrinking further would make a long number unreadably small.
 */
export function fitUncut(text: string, width: number, measure: Measure, opts: { size: number; minSize: number }): Fitted {
  for (let size = opts.size; size >= opts.minSize; size -= 0.5) if (fits(measure(text, size), width)) return oneLine(text, size);
  return { ...wrap(text, width, opts.size, measure, true), size: opts.size };
}

/**
 * `text` whole, never cut: at the largest size (from `size` down to `minSize`, by half points) at
 * which it takes at most `lines` lines, else at `minSize` (or smaller, down to 6.5, for a word wider
 * than the width) on as many lines as it needs, a word too wide even then split over lines. For
 * what must print in full, such as the seller's legal name.
 */
export function fitWhole(text: string, width: number, measure: Measure, opts: { size: number; minSize: number; lines: number }): Fitted {
  const words = wordTexts(text).join(' ');
  const whole = (f: Fitted) => wordTexts(f.lines.join(' ')).join(' ') === words;
  for (let size = opts.size; size > opts.minSize; size -= 0.5) {
    const fitted = fitText(text, width, measure, { size, minSize: size });
    if (fitted.lines.length <= opts.lines && whole(fitted)) return fitted;
  }
  // At the smallest size, a word still wider than the width goes on over the next lines, uncut.
  const size = sizeForWords(text, width, measure, opts.minSize, Math.min(opts.minSize, WHOLE_MIN_SIZE));
  return { ...wrap(text, width, size, measure, true), size };
}

/** The smallest size `fitWhole` prints at, whatever its `minSize`. */
const WHOLE_MIN_SIZE = 6.5;
