import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { getDocument, OPS } from 'pdfjs-dist/legacy/build/pdf.mjs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { documentContext, loadInvoiceDocument } from '../src/domain/invoices/document.ts';
import { pdfFonts } from '../src/pdf/fonts.ts';
import { renderInvoicePdf } from '../src/pdf/invoice.ts';
import { scopeOf, startTestEnv, testClock, type TestEnv, type TestWorkspace } from './helpers/env.ts';
import { makeClient, makeMember, makeProject, makeProjectUser, makeTask, makeTimeEntry } from './helpers/factories.ts';
import { readPdf, type PdfText } from './helpers/pdf.ts';

/**
 * The PDF's layout where locales, fonts and lengths push it: right-to-left locales, negative
 * amounts, characters the font lacks, long legal names, and the payment link at a page's end.
 */

let env: TestEnv;
const clock = testClock('2026-11-18T10:00:00.000Z');
/** Set PDF_OUT=dir to keep every PDF rendered here, e.g. to look at them with `pdftoppm -png`. */
const keep = process.env.PDF_OUT;

beforeAll(async () => {
  env = await startTestEnv({ clock });
  if (keep) mkdirSync(keep, { recursive: true });
});
afterAll(() => env.close());

/** A text item as pdf.js reads it: one string drawn at one place, at one font size. */
interface Item {
  str: string;
  x: number;
  y: number;
  size: number;
}

interface Read extends PdfText {
  bytes: Buffer;
  /** Every text item of every page, white space made plain. */
  items: Item[][];
  /** Glyphs drawn with the font's .notdef (an empty box): pdfkit maps them to U+0000. */
  missingGlyphs: number;
}

async function inspect(bytes: Buffer, name?: string): Promise<Read> {
  if (keep && name) writeFileSync(join(keep, name), bytes);
  const doc = await getDocument({ data: new Uint8Array(bytes), verbosity: 0, isEvalSupported: false, disableFontFace: true }).promise;
  const items: Item[][] = [];
  let missingGlyphs = 0;
  for (let n = 1; n <= doc.numPages; n++) {
    const page = await doc.getPage(n);
    const content = await page.getTextContent();
    items.push(
      content.items.flatMap((i) =>
        'str' in i && i.str.trim()
          ? [{ str: i.str.replace(/[\s\u00a0\u202f]+/g, ' ').trim(), x: i.transform[4] as number, y: i.transform[5] as number, size: Math.hypot(i.transform[0] as number, i.transform[1] as number) }]
          : [],
      ),
    );
    const ops = await page.getOperatorList();
    ops.fnArray.forEach((fn, i) => {
      if (fn !== OPS.showText) return;
      const glyphs = (ops.argsArray[i] as unknown[][])[0]!;
      missingGlyphs += glyphs.filter((g) => typeof g === 'object' && g !== null && (g as { unicode?: string }).unicode === '\u0000').length;
    });
  }
  await doc.destroy();
  return { ...(await readPdf(bytes)), bytes, items, missingGlyphs };
}

async function pdfOf(ws: TestWorkspace, invoiceId: string, name?: string): Promise<Read> {
  const out = await ws.caller.invoices.pdf({ invoice_id: invoiceId });
  return inspect(Buffer.from(out.base64, 'base64'), name);
}

let seq = 0;
/** Creates an invoice through its procedure, asking it for the total first (its 422 names the computed one). */
async function createInvoice(ws: TestWorkspace, clientId: string, body: Record<string, unknown>) {
  const input = { email: ws.ownerEmail, client_id: clientId, number: `LAY-${String(++seq).padStart(4, '0')}`, ...body };
  const computed = await ws.caller.invoices.create({ ...input, total: 0 } as never).then(
    (res) => ({ created: res.invoice }),
    (err: { cause?: { extra?: { computed_total?: number } } }) => ({ total: err.cause?.extra?.computed_total }),
  );
  if ('created' in computed) return computed.created;
  expect(computed.total, 'the probe names the computed total').toBeTypeOf('number');
  return (await ws.caller.invoices.create({ ...input, total: computed.total } as never)).invoice;
}

/** A BHD invoice (three decimals) of six lines, sent and then voided: returns its credit note's id. */
async function bhdCreditNote(ws: TestWorkspace): Promise<string> {
  const client = makeClient(ws.handle.db, { name: 'Gulf Trading W.L.L.', currency: 'BHD' });
  const services = [
    { notes: 'Workshop', quantity: 1, unit_amount: 1.234 },
    { notes: 'Design review', quantity: 0.333, unit_amount: 250.5 },
    { notes: 'Hosting', quantity: 2, unit_amount: 99.999 },
  ];
  const inv = await createInvoice(ws, client.id, { tax_details: [{ name: 'VAT', percentage: 10, selected: true }], invoice_services: [...services, ...services] });
  await ws.caller.invoices.markSent({ email: ws.ownerEmail, invoice_id: inv.id });
  const voided = await ws.caller.invoices.void({ email: ws.ownerEmail, invoice_id: inv.id, reason: 'Issued in error.' });
  return voided.credit_note!.id;
}

/** Each of `texts` is drawn whole, as one text item, never split over two lines. */
function expectWholeItems(pdf: Read, texts: string[]) {
  const drawn = new Set(pdf.items.flat().map((i) => i.str));
  expect(texts.filter((t) => !drawn.has(t))).toEqual([]);
}

const ARABIC_INDIC_DIGITS = /[\u0660-\u0669\u06f0-\u06f9]/;
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe('numbers and dates in every locale', () => {
  it('a credit note in ar-BH: Latin digits in reading order, no direction marks, nothing drawn as an empty box', async () => {
    const ws = env.workspace('layoutar');
    await ws.caller.workspace.updateIdentity({ email: ws.ownerEmail, legal_name: 'Bahrain Studio W.L.L.', locale: 'ar-BH' });
    const pdf = await pdfOf(ws, await bhdCreditNote(ws), 'credit-note-ar-BH.pdf');
    expect(pdf.flat).not.toMatch(ARABIC_INDIC_DIGITS);
    expect(pdf.flat).not.toMatch(BIDI_CONTROLS);
    expect(pdf.missingGlyphs).toBe(0);
    // The locale's own order and separators, Latin digits, the ISO code for the Arabic-script symbol.
    expect(pdf.flat).toContain('Total (BHD) -626.228 BHD');
    expect(pdf.flat).toContain('Subtotal -569.298 BHD');
    expect(pdf.flat).toContain('VAT 10% of -569.298 BHD -56.930 BHD');
    expect(pdf.flat).toContain('Issue date 18/11/2026');
    expect(pdf.flat).toMatch(/Cancels invoice LAY-\d{4} of 18\/11\/2026/);
    expectWholeItems(pdf, ['-1.234 BHD', '-83.417 BHD', '-199.998 BHD', '-626.228 BHD']);
  });

  it('other locales keep their own forms (de-DE, en-US, fr-FR); Hebrew and Persian month names give way to numeric dates', async () => {
    const cases: [string, string, string][] = [
      ['de-DE', '-626,228 BHD', '18.11.2026'],
      ['en-US', '-BHD 626.228', 'Nov 18, 2026'],
      ['fr-FR', '-626,228 BHD', '18 nov. 2026'],
      ['he-IL', '-626.228 BHD', '18.11.2026'],
      ['fa-IR', '\u2212BHD 626.228', '1405/08/27'],
    ];
    for (const [locale, total, date] of cases) {
      const ws = env.workspace(`layout${locale.replace('-', '').toLowerCase()}`);
      await ws.caller.workspace.updateIdentity({ email: ws.ownerEmail, legal_name: 'Locale Test Ltd', locale });
      const pdf = await pdfOf(ws, await bhdCreditNote(ws), `credit-note-${locale}.pdf`);
      expect(pdf.flat, locale).toContain(`Total (BHD) ${total}`);
      expect(pdf.flat, locale).toContain(`Issue date ${date}`);
      expect(pdf.flat, locale).not.toMatch(BIDI_CONTROLS);
      expect(pdf.missingGlyphs, locale).toBe(0);
    }
  });
});

describe('amount columns', () => {
  it('a credit note in en-GB: every negative amount on one line, none overprinting the next row', async () => {
    const ws = env.workspace('layoutgb');
    await ws.caller.workspace.updateIdentity({ email: ws.ownerEmail, legal_name: 'Gulf Studio Ltd', locale: 'en-GB' });
    const pdf = await pdfOf(ws, await bhdCreditNote(ws), 'credit-note-en-GB.pdf');
    expectWholeItems(pdf, ['-BHD 1.234', '-BHD 83.417', '-BHD 199.998', '-BHD 569.298', '-BHD 56.930', '-BHD 626.228']);
    expect(pdf.items.flat().filter((i) => i.str === '-')).toEqual([]);
    // Each line's own arithmetic holds: the unit price carries the amount's sign (2 × -99.999 = -199.998).
    expectWholeItems(pdf, ['-BHD 99.999', '-BHD 250.500']);
    expect(pdf.items.flat().filter((i) => i.str === 'BHD 99.999' || i.str === 'BHD 250.500')).toEqual([]);
    // Each line's amount sits on the baseline of its description.
    const page = pdf.items[0]!;
    for (const row of page.filter((i) => i.str === 'Hosting')) expect(page.some((i) => i.str === '-BHD 199.998' && Math.abs(i.y - row.y) < 1.5)).toBe(true);
  });
});

describe('right-to-left text', () => {
  it('a Hebrew seller and an Arabic client print in reading order: pdf.js reads each line back as it was written', async () => {
    const ws = env.workspace('layouthe');
    await ws.caller.workspace.updateIdentity({ email: ws.ownerEmail, legal_name: 'סטודיו תל אביב בע״מ', address: 'רחוב הרצל 12\nתל אביב', locale: 'he-IL' });
    const client = makeClient(ws.handle.db, { name: 'شركة الخليج للتجارة', currency: 'ILS' });
    const inv = await createInvoice(ws, client.id, {
      notes: 'תודה על העבודה המשותפת! Payment within 30 days.',
      invoice_services: [
        { notes: 'עיצוב אתר אינטרנט חדש (שלב א)', quantity: 1, unit_amount: 1200 },
        { notes: 'تصميم الموقع 2026', quantity: 2, unit_amount: 300 },
        { notes: 'Hosting for שרת 3 months', quantity: 3, unit_amount: 50 },
      ],
    });
    const pdf = await pdfOf(ws, inv.id, 'hebrew-arabic.pdf');
    const lines = pdf.lines.flat();
    // pdf.js puts a right-to-left line it reads back into stored order; before, "בע״מאביב תל סטודיו".
    for (const text of ['סטודיו תל אביב בע״מ', 'רחוב הרצל 12', 'תל אביב', 'תודה על העבודה המשותפת! Payment within 30 days.']) {
      expect(lines, text).toContain(text);
    }
    expect(lines.some((l) => l.startsWith('شركة الخليج للتجارة'))).toBe(true);
    // Brackets in RTL text are drawn mirrored, "(" on the left; pdf.js reads them back without
    // turning them round again, so "(שלב א)" reads ")שלב א(".
    expect(lines.some((l) => l.startsWith('עיצוב אתר אינטרנט חדש )שלב א('))).toBe(true);
    expect(lines.some((l) => l.startsWith('تصميم الموقع 2026'))).toBe(true);
    // A Hebrew word in a Latin line stays in its place, its number beside it as the algorithm orders them.
    expect(lines.some((l) => l.startsWith('Hosting for 3 שרת months'))).toBe(true);
    expect(pdf.missingGlyphs).toBe(0);
  });

  it('a Hebrew paragraph wrapped over lines is drawn right to left on each, also a line that starts with a Latin word, and set on the right', async () => {
    const ws = env.workspace('layouthe2');
    const client = makeClient(ws.handle.db, { name: 'Client', currency: 'ILS' });
    // Three words a round, so whatever the width, some lines start with the Latin one.
    const words = Array.from({ length: 60 }, (_, i) => ['שלום', 'Website', 'תודה'][i % 3]!);
    const inv = await createInvoice(ws, client.id, { notes: `${words.join(' ')}\nThanks again.`, invoice_services: [{ notes: 'Design', quantity: 1, unit_amount: 100 }] });
    // What pdfkit is asked to draw, and where: pdf.js reorders right-to-left text it reads back by
    // its own rules, so the order on the page is taken from the drawing itself.
    const drawn: { text: string; x: number; y: number; right: number }[] = [];
    let margins = { left: 0, right: 0 };
    // pdfkit as the renderer loads it (src/lazy.ts: CommonJS, not the ES build an import would get).
    const PDFDocument = createRequire(import.meta.url)('pdfkit') as typeof import('pdfkit');
    const original = PDFDocument.prototype.text;
    const text = vi.spyOn(PDFDocument.prototype, 'text').mockImplementation(function (this: PDFKit.PDFDocument, ...args: Parameters<typeof original>) {
      if (typeof args[1] === 'number') drawn.push({ text: String(args[0]), x: args[1], y: args[2] as number, right: args[1] + this.widthOfString(String(args[0])) });
      margins = { left: this.page.margins.left, right: this.page.width - this.page.margins.right };
      return original.apply(this, args);
    });
    try {
      await pdfOf(ws, inv.id, 'hebrew-paragraph.pdf');
    } finally {
      text.mockRestore();
    }
    const isWord = (t: string) => words.includes(t);
    const note = drawn.filter((d) => isWord(d.text));
    const rows = [...new Set(note.map((d) => Math.round(d.y)))].sort((a, b) => a - b);
    expect(rows.length).toBeGreaterThan(2);
    // Each line read from its right end, top to bottom: the words as written.
    const lines = rows.map((y) => note.filter((d) => Math.round(d.y) === y).sort((a, b) => b.x - a.x).map((d) => d.text));
    expect(lines.some((line) => line[0] === 'Website')).toBe(true);
    expect(lines.flat()).toEqual(words);
    // As a browser sets a paragraph of dir="auto": each of its lines ends at the right margin, also
    // the last, short one; the Latin paragraph after it starts at the left margin.
    expect(margins.right).toBeGreaterThan(margins.left);
    for (const y of rows) expect(Math.max(...note.filter((d) => Math.round(d.y) === y).map((d) => d.right))).toBeCloseTo(margins.right, 0);
    expect(drawn.find((d) => d.text === 'Thanks again.')?.x).toBeCloseTo(margins.left, 0);
  });
});

const cjkFonts = pdfFonts().fallbacks.length > 0;
if (!cjkFonts) console.warn('pdf.layout.test.ts: skipping the test of Chinese, Japanese and Korean text: no CJK font is installed (apt-get install fonts-noto-cjk)');

describe('characters DejaVu lacks', () => {
  /** A workspace in Japanese, billing a Japanese client for work described in Japanese. */
  async function japaneseInvoice(name: string, notes = '東京オフィスの設計 workshop') {
    const ws = env.workspace(name);
    await ws.caller.workspace.updateIdentity({ email: ws.ownerEmail, legal_name: 'Tokyo Partners 株式会社', locale: 'ja-JP' });
    const client = makeClient(ws.handle.db, { name: '東京商事 Ltd', currency: 'JPY' });
    const inv = await createInvoice(ws, client.id, {
      tax_details: [{ name: '消費税', percentage: 10, selected: true }],
      invoice_services: [{ notes, quantity: 1, unit_amount: 12000 }],
    });
    return { ws, doc: loadInvoiceDocument(ws.handle.db, inv.id, documentContext(scopeOf(env.services, ws.handle))) };
  }

  it.skipIf(!cjkFonts)('Japanese prints in the CJK font, on the baseline of the Latin text beside it, and wraps between its characters', async () => {
    const long = 'ウェブサイトの全面的な再設計と、新しい予約システムの開発および既存データの移行作業を行いました。来月以降の保守については別途お見積りいたします。';
    const { doc } = await japaneseInvoice('layoutjp', long);
    const pdf = await inspect(await renderInvoicePdf(doc), 'japanese.pdf');
    expect(pdf.missingGlyphs).toBe(0);
    expect(pdf.flat).toContain('Tokyo Partners 株式会社');
    expect(pdf.flat).toContain('東京商事 Ltd');
    // ja-JP writes yen with the full-width sign, which the CJK font has.
    expect(pdf.flat).toContain('消費税 10% of ￥12,000 ￥1,200');
    // The description is wrapped, whole and uncut, between characters (never before "、" or "。").
    const description = pdf.items[0]!.filter((i) => /[\u3040-\u30ff\u4e00-\u9fff]/.test(i.str) && i.x < 200 && !i.str.includes('株式会社') && !i.str.includes('東京商事'));
    const lines = [...new Set(description.map((i) => i.y))].map((y) =>
      description
        .filter((i) => i.y === y)
        .sort((a, b) => a.x - b.x)
        .map((i) => i.str)
        .join(''),
    );
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.join('')).toBe(long);
    expect(lines.every((l) => !/^[、。]/.test(l))).toBe(true);
    expect(new Set(description.map((i) => i.size.toFixed(2))).size).toBe(1);
    // "株式会社" (Noto Sans CJK) and "Tokyo Partners" (DejaVu) share one baseline.
    const seller = pdf.items[0]!.filter((i) => i.str.includes('Tokyo') || i.str.includes('株式会社'));
    expect(new Set(seller.map((i) => i.y.toFixed(2))).size).toBe(1);
    // The face of the collection for a ja-JP workspace, regular and bold, embedded as subsets.
    expect(pdf.bytes.includes('NotoSansCJKjp-Regular') || pdf.bytes.includes('DroidSansFallback')).toBe(true);
  });

  const noto = pdfFonts().fallbacks.find((f) => f.faces('en').regular.face);
  it.skipIf(!noto)("Noto Sans CJK's face is the region of the workspace's locale", () => {
    const face = (locale: string) => noto!.faces(locale).regular.face;
    expect([face('ja-JP'), face('ko-KR'), face('zh-CN'), face('zh-Hans-SG'), face('zh-TW'), face('zh-Hant'), face('zh-HK'), face('en-US')]).toEqual([
      'NotoSansCJKjp-Regular',
      'NotoSansCJKkr-Regular',
      'NotoSansCJKsc-Regular',
      'NotoSansCJKsc-Regular',
      'NotoSansCJKtc-Regular',
      'NotoSansCJKtc-Regular',
      'NotoSansCJKhk-Regular',
      'NotoSansCJKjp-Regular',
    ]);
    expect(noto!.faces('ko').bold.face).toBe('NotoSansCJKkr-Bold');
  });

  it('without a CJK font they print as "?", no glyph is missing', async () => {
    const { doc } = await japaneseInvoice('layoutjpq');
    const pdf = await inspect(await renderInvoicePdf(doc, { ...pdfFonts(), fallbacks: [] }), 'japanese-without-cjk-font.pdf');
    expect(pdf.missingGlyphs).toBe(0);
    expect(pdf.flat).toContain('????????? workshop');
    expect(pdf.flat).toContain('Tokyo Partners ????');
    expect(pdf.flat).toContain('???? Ltd');
    // The full-width yen sign of ja-JP is not in the font either: amounts name the currency by its code.
    expect(pdf.flat).toContain('????????? workshop 1 JPY 12,000 JPY 12,000');
    expect(pdf.flat).toContain('??? 10% of JPY 12,000 JPY 1,200');
    expect(pdf.flat).not.toMatch(/[東京消費税]/);
  });
});

const LONG_NAME = 'Nordlicht Designbüro GmbH & Co. KG — Zweigniederlassung Köln';

/** A 240 × 80 PNG logo. */
async function logoPng(): Promise<string> {
  const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="240" height="80"><rect width="240" height="80" fill="#1a4fa3"/></svg>';
  return (await sharp(Buffer.from(svg)).png().toBuffer()).toString('base64');
}

describe('the seller', () => {
  it('a long legal name prints in full, with and without a logo', async () => {
    const ws = env.workspace('layoutname');
    const client = makeClient(ws.handle.db, { name: 'Acme', currency: 'EUR' });
    const inv = await createInvoice(ws, client.id, { invoice_services: [{ notes: 'Design', unit_amount: 100 }] });
    const long200 = `${LONG_NAME} ${'Niederlassung Rheinland Süd '.repeat(5)}`.trim().slice(0, 200).trim();
    for (const [name, logo] of [[LONG_NAME, false], [LONG_NAME, true], [long200, false], [long200, true]] as const) {
      await ws.caller.workspace.updateIdentity({ email: ws.ownerEmail, legal_name: name, logo_base64: logo ? await logoPng() : null });
      const pdf = await pdfOf(ws, inv.id, `legal-name-${name.length}-${logo ? 'logo' : 'plain'}.pdf`);
      expect(pdf.lines[0]!.join(' '), `${name.length} characters, ${logo ? 'logo' : 'no logo'}`).toContain(name);
      expect(pdf.flat).not.toMatch(/…/);
    }
  });
});

describe('the seller, one word wider than the page', () => {
  it('a legal name with a word no size fits prints in full, that word split over lines, nothing cut', async () => {
    const ws = env.workspace('layoutword');
    const client = makeClient(ws.handle.db, { name: 'Acme', currency: 'EUR' });
    const inv = await createInvoice(ws, client.id, { invoice_services: [{ notes: 'Design', unit_amount: 100 }] });
    const word = 'Donaudampfschifffahrtselektrizitätenhauptbetriebswerkbauunterbeamtengesellschaftsverwaltungsabteilungsleitungsstellvertretung';
    const name = `${word} GmbH`;
    for (const logo of [false, true]) {
      await ws.caller.workspace.updateIdentity({ email: ws.ownerEmail, legal_name: name, logo_base64: logo ? await logoPng() : null });
      const pdf = await pdfOf(ws, inv.id, `legal-name-word-${logo ? 'logo' : 'plain'}.pdf`);
      expect(pdf.flat.replace(/\s+/g, ''), logo ? 'logo' : 'no logo').toContain(name.replace(/\s+/g, ''));
      expect(pdf.flat).not.toMatch(/…/);
    }
  });
});

describe('the payment link', () => {
  /** A sent invoice with a payment link, three lines, and payment instructions of three lines. */
  async function linked(ws: TestWorkspace, lineCount = 3) {
    await ws.caller.workspace.updateIdentity({
      email: ws.ownerEmail,
      legal_name: 'Link Test GmbH',
      locale: 'de-DE',
      payment_instructions: 'Bitte überweisen Sie den Betrag auf:\nIBAN: DE89 3704 0044 0532 0130 00\nBIC: COBADEFFXXX',
      invoice_footer: 'Link Test GmbH · Amtsgericht Köln HRA 12345',
    });
    const db = ws.handle.db;
    const client = makeClient(db, { name: 'Globex', currency: 'EUR' });
    const project = makeProject(db, client.id, { name: 'Relaunch', currency: 'EUR', hourlyRateMinor: 15000 });
    const task = makeTask(db, project.id, { name: 'Design' });
    const user = makeMember(db, { firstName: 'Ada', lastName: 'Lovelace' });
    makeProjectUser(db, project.id, user.id);
    const lines = Array.from({ length: lineCount }, (_, i) => {
      const e = makeTimeEntry(db, { clientId: client.id, projectId: project.id, taskId: task.id, userId: user.id }, {
        seconds: 900 * ((i % 5) + 1),
        recordedOn: `2026-10-${String((i % 28) + 1).padStart(2, '0')}`,
        notes: i % 4 === 0 ? `Entry ${i + 1}: reworked the checkout flow, fixed the button alignment on Safari and Firefox` : `Entry ${i + 1}`,
      });
      return { time_entry_id: e.id, project_id: project.id, task_id: task.id, user_id: user.id };
    });
    const inv = await createInvoice(ws, client.id, { include_payment_link: true, invoice_time_entries: lines });
    await ws.caller.invoices.markSent({ email: ws.ownerEmail, invoice_id: inv.id });
    return inv;
  }

  /** The link shares its page with the last line of the payment block. */
  function expectLinkWithBlock(pdf: PdfText, number: string, what: string) {
    const linkPage = pdf.lines.findIndex((page) => page.includes(`View invoice ${number} online`));
    const blockPage = pdf.lines.findIndex((page) => page.includes('BIC: COBADEFFXXX'));
    expect(linkPage, what).toBeGreaterThanOrEqual(0);
    expect(linkPage, what).toBe(blockPage);
    expect(pdf.lines[linkPage]!.some((l) => l.startsWith('Please pay')), what).toBe(true);
  }

  it('stays with its Payment block wherever the block ends on the page', async () => {
    const ws = env.workspace('layoutlink');
    const inv = await linked(ws);
    const doc = loadInvoiceDocument(ws.handle.db, inv.id, documentContext(scopeOf(env.services, ws.handle)));
    expect(doc.paymentUrl).toBeTruthy();
    // Notes of 0 to 64 lines move the Payment block down a line at a time over a whole page.
    for (let n = 0; n <= 64; n++) {
      const notes = Array.from({ length: n }, (_, i) => `Note line ${i + 1}`).join('\n');
      const pdf = await inspect(await renderInvoicePdf({ ...doc, invoice: { ...doc.invoice, notes } }), n === 40 ? 'link-notes-40.pdf' : undefined);
      expectLinkWithBlock(pdf, inv.number, `${n} note lines`);
      expect(pdf.links).toEqual([doc.paymentUrl]);
    }
  });

  it('a 221-line invoice: the link follows its Payment block', async () => {
    const ws = env.workspace('layoutlong');
    const inv = await linked(ws, 221);
    const pdf = await pdfOf(ws, inv.id, 'long-221.pdf');
    expect(pdf.pages).toBeGreaterThan(4);
    expectLinkWithBlock(pdf, inv.number, '221 lines');
  });
});

describe('the buyer and the document number', () => {
  const NAME =
    'Internationale Gesellschaft für Angewandte Informationstechnologie, Beratung, Systemintegration und Digitale Transformation im Öffentlichen Sektor mbH & Co. KG (Niederlassung Nordrhein-Westfalen)';

  it('a 195-character legal name and long invoice numbers print in full, wrapped; the rows below move down', async () => {
    const ws = env.workspace('layoutbuyer');
    expect(NAME.length).toBe(195);
    const client = makeClient(ws.handle.db, { name: NAME, currency: 'USD' });
    const numbers = ['ACME-INTERNATIONAL/2026/PROJECT-ALPHA/000123', `INV${'0123456789'.repeat(9)}XYZABCD`];
    for (const number of numbers) {
      const inv = await createInvoice(ws, client.id, { number, invoice_services: [{ notes: 'Consulting', quantity: 2, unit_amount: 150 }] });
      const pdf = await pdfOf(ws, inv.id, `buyer-${number.length}.pdf`);
      const page = pdf.items[0]!;
      expect(pdf.flat, number).not.toMatch(/…/);
      const at = (str: string) => page.find((i) => i.str === str)!;
      const [label, issue, header] = [at('Invoice no.'), at('Issue date'), at('Description')];
      // The name: every 11 pt line left of the document's facts, above the table, reads as the whole name.
      const name = page.filter((i) => Math.abs(i.size - 11) < 0.01 && i.x < label.x && i.y > header.y);
      expect(name.length, number).toBeGreaterThan(3);
      expect(name.map((i) => i.str).join(' ')).toBe(NAME);
      // The number: the pieces right of its label, from its baseline down to the next row's, read as the number.
      const pieces = page.filter((i) => i.x > label.x + 80 && i.y <= label.y + 0.5 && i.y > issue.y + 0.5);
      expect(pieces.length, number).toBeGreaterThan(1);
      expect(pieces.map((i) => i.str).join(''), number).toBe(number);
      expect(Math.abs(pieces[0]!.y - label.y), 'the first piece beside its label').toBeLessThan(1);
      // Each piece on its own line, the issue date a line below the last, the table below the name.
      for (let n = 1; n < pieces.length; n++) expect(pieces[n - 1]!.y - pieces[n]!.y, number).toBeGreaterThan(10);
      expect(pieces.at(-1)!.y - issue.y, number).toBeGreaterThan(10);
      expect(name.at(-1)!.y - header.y, number).toBeGreaterThan(20);
      // A number with separators breaks after them, not inside a part.
      if (number.includes('/')) expect(pieces.slice(0, -1).filter((i) => !/[/-]$/.test(i.str))).toEqual([]);
    }
  });
});

/** A de-DE invoice of seven time lines (tasks "Entwicklung" and "Design"), partly paid, with every summary. */
async function summariesInvoice(ws: TestWorkspace) {
  await ws.caller.workspace.updateIdentity({
    email: ws.ownerEmail,
    legal_name: 'Müller & Schmidt Digitalagentur GmbH',
    address: 'Friedrichstraße 123\n10117 Berlin',
    tax_id: 'DE123456789',
    locale: 'de-DE',
    payment_instructions: 'IBAN DE89 3704 0044 0532 0130 00',
    invoice_footer: 'Amtsgericht Charlottenburg HRB 123456 B',
    logo_base64: await logoPng(),
  });
  const db = ws.handle.db;
  const client = makeClient(db, { name: 'Société Générale d’Équipements Électriques', currency: 'EUR', fullAddress: 'Rue de l’Église 5\n75001 Paris', taxId: 'FR12345678901' });
  const project = makeProject(db, client.id, { name: 'Relaunch', currency: 'EUR', hourlyRateMinor: 9999 });
  const tasks = [makeTask(db, project.id, { name: 'Entwicklung' }), makeTask(db, project.id, { name: 'Design' })];
  const people = [makeMember(db, { firstName: 'Zoë', lastName: 'Müller' }), makeMember(db, { firstName: 'Jürgen', lastName: 'Groß' })];
  for (const p of people) makeProjectUser(db, project.id, p.id);
  const lines = [1000, 1000, 1000, 1234, 3599, 601, 7777].map((seconds, i) => {
    const refs = { clientId: client.id, projectId: project.id, taskId: tasks[i % 2]!.id, userId: people[i % 3 ? 1 : 0]!.id };
    const e = makeTimeEntry(db, refs, { seconds, recordedOn: `2026-10-${String(i + 1).padStart(2, '0')}`, notes: `Arbeit ${i + 1}` });
    return { time_entry_id: e.id, project_id: project.id, task_id: refs.taskId, user_id: refs.userId };
  });
  const inv = await createInvoice(ws, client.id, {
    due_date: '2026-12-01',
    include_hours_by_person: true,
    include_hours_by_task: true,
    include_time_entries: true,
    include_payment_link: true,
    display_person_name: true,
    display_task_name: true,
    display_date: true,
    display_note: true,
    tax_details: [
      { name: 'USt', percentage: 19, selected: true },
      { name: 'Sondersteuer', percentage: 7.125, selected: true },
    ],
    invoice_time_entries: lines,
  });
  await ws.caller.invoices.markSent({ email: ws.ownerEmail, invoice_id: inv.id });
  await ws.caller.invoices.recordPayment({ email: ws.ownerEmail, invoice_id: inv.id, amount: 100.01, method: 'bank_transfer', reference: 'SEPA 4711', paid_on: '2026-11-17' });
  return inv;
}

describe('summaries at the end of a page', () => {
  const summaries: [heading: string, header: RegExp, row: RegExp][] = [
    ['Hours by person', /^Person Hours Amount$/, /^\S.* [\d,]+ [\d.,]+ €$/],
    ['Hours by task', /^Task Hours Amount$/, /^Relaunch · \S+ [\d,]+ [\d.,]+ €$/],
    ['Time entries', /^Date Person Task Notes Recorded Billed$/, /^\d\d\.\d\d\.2026 .* [\d,]+ [\d,]+$/],
  ];

  it('a heading is followed on its page by its table header and a row, wherever it falls', { timeout: 120_000 }, async () => {
    const ws = env.workspace('layoutorphan');
    const inv = await summariesInvoice(ws);
    const doc = loadInvoiceDocument(ws.handle.db, inv.id, documentContext(scopeOf(env.services, ws.handle)));
    // As printed, and with notes of 1 to 16 lines moving the summaries down a line at a time.
    for (let n = 0; n <= 16; n++) {
      const notes = Array.from({ length: n }, (_, i) => `Note line ${i + 1}`).join('\n');
      const pdf = await inspect(await renderInvoicePdf({ ...doc, invoice: { ...doc.invoice, notes } }), n === 0 ? 'summaries.pdf' : undefined);
      for (const [heading, header, row] of summaries) {
        const page = pdf.lines.findIndex((lines) => lines.includes(heading));
        expect(page, `${heading}, ${n} note lines`).toBeGreaterThanOrEqual(0);
        const lines = pdf.lines[page]!;
        const at = lines.indexOf(heading);
        expect(lines[at + 1], `${heading}, ${n} note lines: its header on page ${page + 1}`).toMatch(header);
        expect(lines[at + 2], `${heading}, ${n} note lines: a row on page ${page + 1}`).toMatch(row);
      }
    }
  });

  it("a column's widest word prints at the table's size, not half a point smaller", async () => {
    const ws = env.workspace('layoutsize');
    const inv = await summariesInvoice(ws);
    const pdf = await pdfOf(ws, inv.id, 'column-sizes.pdf');
    const sizes = (word: string) => [...new Set(pdf.items.flat().filter((i) => i.str === word).map((i) => i.size.toFixed(2)))];
    // "Entwicklung" is the widest text of the Task columns (lines and time entries): the column is exactly its width.
    expect(pdf.items.flat().filter((i) => i.str === 'Entwicklung').length).toBe(8);
    expect(sizes('Design')).toEqual(['9.00']);
    expect(sizes('Entwicklung')).toEqual(['9.00']);
  });
});
