/**
 * Text as the characters a reader sees (grapheme clusters): an accented letter written with a
 * combining mark, or an emoji of several code points, stays one character when the PDF cuts,
 * splits or reverses text.
 *
 * The segmenter is made on first use: making one loads ICU's break rules, about 20 ms that every
 * start of the server paid before (`node --cpu-prof`), though most documents never need it.
 */
let segmenter: Intl.Segmenter | undefined;

export function graphemesOf(text: string): string[] {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return Array.from(segmenter.segment(text), (g) => g.segment);
}
