import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';

interface TextItem {
  str: string;
  x: number;
  y: number;
  width: number;
}

export interface PdfText {
  pages: number;
  /** Each page's text as lines, top to bottom, the pieces of a line joined as they sit. */
  lines: string[][];
  /** Every line of every page, white space (also no-break spaces) made plain. */
  flat: string;
  /** Every whitespace-separated word on any page. */
  words: Set<string>;
  /** Link targets (URI annotations) per page. */
  links: string[];
}

/** Items on one baseline (within 1.5 pt) make a line; a gap wider than 1 pt between them is a space. */
function toLines(items: TextItem[]): string[] {
  const rows: { y: number; items: TextItem[] }[] = [];
  for (const item of items) {
    const row = rows.find((r) => Math.abs(r.y - item.y) < 1.5);
    if (row) row.items.push(item);
    else rows.push({ y: item.y, items: [item] });
  }
  return rows
    .sort((a, b) => b.y - a.y)
    .map((r) => {
      const sorted = r.items.sort((a, b) => a.x - b.x);
      let line = '';
      let end = -Infinity;
      for (const it of sorted) {
        line += (line && it.x - end > 1 ? ' ' : '') + it.str;
        end = it.x + it.width;
      }
      return line.replace(/[\s\u00a0\u202f]+/g, ' ').trim();
    })
    .filter(Boolean);
}

/** A PDF's text, read with pdf.js (a JavaScript library: no system program needed). */
export async function readPdf(bytes: Uint8Array): Promise<PdfText> {
  const doc = await getDocument({ data: new Uint8Array(bytes), verbosity: 0, isEvalSupported: false, disableFontFace: true }).promise;
  const lines: string[][] = [];
  const links: string[] = [];
  for (let n = 1; n <= doc.numPages; n++) {
    const page = await doc.getPage(n);
    const content = await page.getTextContent();
    const items = content.items.flatMap((i) => ('str' in i && i.str.trim() ? [{ str: i.str, x: i.transform[4] as number, y: i.transform[5] as number, width: i.width }] : []));
    lines.push(toLines(items));
    for (const a of await page.getAnnotations()) if (typeof a.url === 'string') links.push(a.url);
  }
  await doc.destroy();
  const flat = lines.flat().join('\n');
  return { pages: doc.numPages, lines, flat, words: new Set(flat.split(/\s+/).filter(Boolean)), links };
}
