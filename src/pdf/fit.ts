/**
 * Text that fits a width without ever splitting a word: lines break only at spaces (and at the
 * line breaks a person typed). A word too wide for the width first makes the whole text smaller,
 * down to a minimum size; a word still too wide at that size is cut and ends in "…". So
 * "Development" is never printed as "Developm/ent". Only what must print in full (`fitWhole`)
 * splits such a word over lines instead.
 */

/** How wide a string is at a font size (points); bound to one font by the caller. */
export type Measure = (text: string, size: number) => number;

export interface Fitted {
  lines: string[];
  size: number;
}

const ELLIPSIS = '…';

/** The longest start of `word` that fits `width` with "…" after it. */
export function ellipsize(word: string, width: number, size: number, measure: Measure): string {
  if (measure(word, size) <= width) return word;
  const chars = [...word];
  let keep = chars.length - 1;
  while (keep > 0 && measure(chars.slice(0, keep).join('') + ELLIPSIS, size) > width) keep--;
  return keep > 0 ? chars.slice(0, keep).join('') + ELLIPSIS : ELLIPSIS;
}

const wordsOf = (paragraph: string) => paragraph.split(/[ \t]+/).filter(Boolean);

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** A word too wide for `width` in pieces that each fit it, split between characters (never inside an accented letter). */
function pieces(word: string, width: number, size: number, measure: Measure): string[] {
  const out: string[] = [];
  let piece = '';
  for (const { segment: char } of graphemes.segment(word)) {
    if (piece && measure(piece + char, size) > width) {
      out.push(piece);
      piece = '';
    }
    piece += char;
  }
  return [...out, piece];
}

/**
 * Greedy line filling at `size`. A word wider than `width` is cut with an ellipsis, or with
 * `split`, continued on the next lines.
 */
function wrap(text: string, width: number, size: number, measure: Measure, split = false): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split(/\r?\n/)) {
    let line = '';
    for (const raw of wordsOf(paragraph)) {
      const parts = split ? pieces(raw, width, size, measure) : [ellipsize(raw, width, size, measure)];
      if (parts.length > 1) {
        if (line) lines.push(line);
        lines.push(...parts.slice(0, -1));
        line = parts.at(-1)!;
        continue;
      }
      const word = parts[0]!;
      const candidate = line ? `${line} ${word}` : word;
      if (line && measure(candidate, size) > width) {
        lines.push(line);
        line = word;
      } else {
        line = candidate;
      }
    }
    lines.push(line);
  }
  // Blank lines a person typed between paragraphs stay; trailing ones do not.
  while (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The largest size from `size` down to `minSize`, by half points, at which the text's widest word fits `width`. */
function sizeForWords(text: string, width: number, measure: Measure, size: number, minSize: number): number {
  const widest = Math.max(0, ...text.split(/\s+/).map((w) => measure(w, 1)));
  while (size > minSize && widest * size > width) size = Math.max(minSize, size - 0.5);
  return size;
}

/**
 * `text` in lines of at most `width` points at `size`, or smaller (down to `minSize`, by half
 * points) when its widest word needs it. With `maxLines`, a longer text ends with "…".
 */
export function fitText(text: string, width: number, measure: Measure, opts: { size: number; minSize: number; maxLines?: number }): Fitted {
  const size = sizeForWords(text, width, measure, opts.size, opts.minSize);
  let lines = wrap(text, width, size, measure);
  if (opts.maxLines !== undefined && lines.length > opts.maxLines) {
    lines = lines.slice(0, opts.maxLines);
    const last = lines.length - 1;
    lines[last] = ellipsize(`${lines[last]}${ELLIPSIS}`, width, size, measure);
  }
  return { lines, size };
}

/** One line that must not wrap (an amount, a date): smaller down to `minSize`, then cut with "…". */
export function fitLine(text: string, width: number, measure: Measure, opts: { size: number; minSize: number }): Fitted {
  let size = opts.size;
  while (size > opts.minSize && measure(text, size) > width) size = Math.max(opts.minSize, size - 0.5);
  return { lines: [ellipsize(text, width, size, measure)], size };
}

/**
 * `text` whole, never cut: at the largest size (from `size` down to `minSize`, by half points) at
 * which it takes at most `lines` lines, else at `minSize` (or smaller, down to 6.5, for a word wider
 * than the width) on as many lines as it needs, a word too wide even then split over lines. For
 * what must print in full, such as the seller's legal name.
 */
export function fitWhole(text: string, width: number, measure: Measure, opts: { size: number; minSize: number; lines: number }): Fitted {
  const whole = (f: Fitted) => wordsOf(f.lines.join(' ')).join(' ') === wordsOf(text.replace(/\r?\n/g, ' ')).join(' ');
  for (let size = opts.size; size > opts.minSize; size -= 0.5) {
    const fitted = fitText(text, width, measure, { size, minSize: size });
    if (fitted.lines.length <= opts.lines && whole(fitted)) return fitted;
  }
  // At the smallest size, a word still wider than the width goes on over the next lines, uncut.
  const size = sizeForWords(text, width, measure, opts.minSize, Math.min(opts.minSize, WHOLE_MIN_SIZE));
  return { lines: wrap(text, width, size, measure, true), size };
}

/** The smallest size `fitWhole` prints at, whatever its `minSize`. */
const WHOLE_MIN_SIZE = 6.5;
