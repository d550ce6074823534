import { describe, expect, it } from 'vitest';
import { paragraphDirection, visualPieces } from '../src/pdf/bidi.ts';
import { fitLine, fitText } from '../src/pdf/fit.ts';

/**
 * A line as pdfkit is given it: its pieces, left to right, spaces as " ". A right-to-left piece is
 * in stored order, since fontkit reverses (and, for Arabic, joins) what it takes for RTL itself.
 */
const drawn = (line: string) => visualPieces(line)?.map((p) => (p.space ? ' ' : p.text));

describe('right-to-left text in the PDF (the Unicode Bidirectional Algorithm, bidi-js)', () => {
  it('leaves a line without RTL text alone', () => {
    expect(visualPieces('Website maintenance, November 2026')).toBeNull();
    expect(visualPieces('Łódź – Ελλάδα – Дмитрий')).toBeNull();
  });

  it('puts the words of a Hebrew or Arabic line right to left, each word whole', () => {
    expect(drawn('סטודיו תל אביב בע״מ')).toEqual(['בע״מ', ' ', 'אביב', ' ', 'תל', ' ', 'סטודיו']);
    expect(drawn('شركة الخليج للتجارة')).toEqual(['للتجارة', ' ', 'الخليج', ' ', 'شركة']);
  });

  it('keeps numbers and Latin words left to right inside RTL text, and RTL words inside Latin text', () => {
    expect(drawn('רחוב הרצל 12')).toEqual(['12', ' ', 'הרצל', ' ', 'רחוב']);
    expect(drawn('تصميم 2026')).toEqual(['2026', ' ', 'تصميم']);
    expect(drawn('Hosting for שרת 3 months')).toEqual(['Hosting', ' ', 'for', ' ', '3', ' ', 'שרת', ' ', 'months']);
    expect(drawn('תודה! Payment within 30 days.')).toEqual(['.', 'Payment', ' ', 'within', ' ', '30', ' ', 'days', ' ', 'תודה!']);
  });

  it('mirrors brackets in RTL text, and reverses a run fontkit would not', () => {
    // "(חדש)" read right to left: the opening bracket on the right, drawn as ")" turned round.
    expect(drawn('אתר (חדש)')).toEqual([')חדש(', ' ', 'אתר']);
    // Only neutral characters at an RTL level: nothing for fontkit to reverse, so they come reversed.
    expect(drawn('שלום ?!')).toEqual(['!?', ' ', 'שלום']);
  });

  it('keeps a letter with its points, and an emoji, whole', () => {
    expect(drawn('שָׁלוֹם 🙏')).toEqual(['🙏', ' ', 'שָׁלוֹם']);
  });
});

describe('a wrapped right-to-left paragraph keeps its direction on every line', () => {
  /** Every character 5 pt wide: lines break where the test says. */
  const measure = (text: string, size: number) => [...text].length * 5 * (size / 10);

  it('the paragraph direction is that of its first strong character', () => {
    expect(paragraphDirection('רחוב הרצל 12')).toBe('rtl');
    expect(paragraphDirection('2026 تصميم')).toBe('rtl');
    expect(paragraphDirection('Hosting for שרת')).toBe('ltr');
    expect(paragraphDirection('Łódź 12')).toBe('ltr');
  });

  it('a line that starts with a Latin word is laid out right to left when its paragraph is', () => {
    expect(drawn('Payment 30 ימים')).toEqual(['Payment', ' ', '30', ' ', 'ימים']);
    expect(visualPieces('Payment 30 ימים', 'rtl')?.map((p) => (p.space ? ' ' : p.text))).toEqual(['ימים', ' ', 'Payment', ' ', '30']);
  });

  it('fitText gives each line the direction of the paragraph it was wrapped from', () => {
    // "תשלום תוך" fills the first line; the second starts with the Latin word.
    const fitted = fitText('תשלום תוך Payment 30 ימים\nThanks, שלום', 50, measure, { size: 10, minSize: 10 });
    expect(fitted.lines).toEqual(['תשלום תוך', 'Payment 30', 'ימים', 'Thanks,', 'שלום']);
    expect(fitted.directions).toEqual(['rtl', 'rtl', 'rtl', 'ltr', 'ltr']);
    expect(fitLine('Payment 30 ימים', 200, measure, { size: 10, minSize: 10 }).directions).toEqual(['ltr']);
  });
});
