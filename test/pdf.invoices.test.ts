import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentContext, loadInvoiceDocument } from '../src/domain/invoices/document.ts';
import { pdfFonts, STANDARD_FONTS, toWinAnsi } from '../src/pdf/fonts.ts';
import { cachedInvoicePdf, pdfRenderStats, renderInvoicePdf } from '../src/pdf/invoice.ts';
import { scopeOf, startTestEnv, testClock, type TestEnv, type TestWorkspace } from './helpers/env.ts';
import { makeClient, makeMember, makeProject, makeProjectUser, makeTask, makeTimeEntry } from './helpers/factories.ts';
import { readPdf, type PdfText } from './helpers/pdf.ts';

let env: TestEnv;
const clock = testClock('2026-11-18T10:00:00.000Z');
/** Set PDF_OUT=dir to keep every PDF rendered here, e.g. to look at them with `pdftoppm -png`. */
const keep = process.env.PDF_OUT;

beforeAll(async () => {
  env = await startTestEnv({ clock });
  if (keep) mkdirSync(keep, { recursive: true });
});
afterAll(() => env.close());

/** The PDF of an invoice through `invoices.pdf`, read with pdf.js. */
async function pdfOf(ws: TestWorkspace, invoiceId: string, name?: string): Promise<PdfText & { bytes: Buffer }> {
  const out = await ws.caller.invoices.pdf({ invoice_id: invoiceId });
  const bytes = Buffer.from(out.base64, 'base64');
  if (keep) writeFileSync(join(keep, `${name ?? out.filename}`), bytes);
  return { ...(await readPdf(bytes)), bytes };
}

/** A 240 × 80 PNG logo: a coloured block with a darker square, made here. */
async function logoPng(): Promise<string> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="240" height="80"><rect width="240" height="80" rx="10" fill="#1a4fa3"/><rect x="16" y="16" width="48" height="48" fill="#f5b301"/><text x="80" y="52" font-size="28" font-family="sans-serif" fill="#fff">M&amp;S</text></svg>`;
  return (await sharp(Buffer.from(svg)).png().toBuffer()).toString('base64');
}

const GERMAN_ADDRESS = 'Friedrichstraße 123\nHinterhaus, 3. Obergeschoss\n10117 Berlin\nDeutschland';

async function germanIdentity(ws: TestWorkspace, logo = true) {
  await ws.caller.workspace.updateIdentity({
    email: ws.ownerEmail,
    legal_name: 'Müller & Schmidt Digitalagentur GmbH',
    address: GERMAN_ADDRESS,
    tax_id: 'DE123456789',
    locale: 'de-DE',
    payment_instructions: 'Berliner Sparkasse\nIBAN DE89 3704 0044 0532 0130 00 · BIC BELADEBEXXX',
    invoice_footer: 'Müller & Schmidt Digitalagentur GmbH · Amtsgericht Charlottenburg HRB 123456 B · Geschäftsführerin Anna Müller',
    ...(logo && { logo_base64: await logoPng() }),
  });
}

/** A client with a project, two tasks and two people, and `count` time entries with notes. */
function timeSetup(ws: TestWorkspace, count: number, opts: { notes?: (i: number) => string; rateMinor?: number } = {}) {
  const db = ws.handle.db;
  const client = makeClient(db, {
    name: 'Globex Corporation International Holdings',
    currency: 'EUR',
    fullAddress: '1200 Harbor Boulevard, Suite 400\nWeehawken, NJ 07086, USA',
    taxId: 'ATU12345678',
  });
  const project = makeProject(db, client.id, { name: 'Website relaunch', currency: 'EUR', hourlyRateMinor: opts.rateMinor ?? 9550 });
  const tasks = [makeTask(db, project.id, { name: 'Design' }), makeTask(db, project.id, { name: 'Backend development' })];
  const people = [makeMember(db, { firstName: 'Дмитрий', lastName: 'Иванов' }), makeMember(db, { firstName: 'Zoë', lastName: 'Müller-Lüdenscheidt' })];
  for (const p of people) makeProjectUser(db, project.id, p.id);
  const lines = Array.from({ length: count }, (_, i) => {
    const task = tasks[i % 2]!;
    const user = people[i % 3 ? 1 : 0]!;
    const e = makeTimeEntry(db, { clientId: client.id, projectId: project.id, taskId: task.id, userId: user.id }, {
      seconds: 1800 + 60 * (i % 7),
      recordedOn: `2026-10-${String((i % 28) + 1).padStart(2, '0')}`,
      notes: opts.notes?.(i) ?? `Work item ${i + 1}`,
    });
    return { time_entry_id: e.id, project_id: project.id, task_id: task.id, user_id: user.id };
  });
  return { client, project, tasks, people, lines };
}

let seq = 0;
/** Creates an invoice through endpoint 1, asking the API for the total first (422 names it). */
async function createInvoice(ws: TestWorkspace, clientId: string, body: Record<string, unknown>) {
  const number = (body.number as string | undefined) ?? `PDF-${String(++seq).padStart(4, '0')}`;
  const path = `/api/external/v2/clients/${clientId}/invoices`;
  const probe = await ws.api.post(path, { email: ws.ownerEmail, number, total: 0, ...body });
  const total = probe.status === 201 ? 0 : probe.body.computed_total;
  if (probe.status === 201) return probe.body.invoice as { id: string; number: string };
  const res = await ws.api.post(path, { email: ws.ownerEmail, number, total, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.invoice as { id: string; number: string };
}

/** Every word of every text a cell printed appears whole among the PDF's words. */
function expectWholeWords(pdf: PdfText, texts: string[]) {
  const missing = [...new Set(texts.flatMap((t) => t.split(/\s+/)).filter(Boolean))].filter((w) => !pdf.words.has(w));
  expect(missing).toEqual([]);
}

describe('the invoice PDF', () => {
  it('300 lines: seller and buyer blocks, VAT ids, per-rate taxes, total hours, every word whole, header on every page', async () => {
    const ws = env.workspace('pdf300');
    await germanIdentity(ws);
    const s = timeSetup(ws, 300, { notes: (i) => (i % 10 === 0 ? `Backend development of the payment reconciliation module, sprint ${i}` : `Work item ${i + 1}`) });
    const inv = await createInvoice(ws, s.client.id, {
      notes: 'Vielen Dank für Ihren Auftrag!',
      include_hours_by_person: true,
      include_hours_by_task: true,
      include_payment_link: true,
      tax_details: [
        { name: 'USt', percentage: 19, selected: true },
        { name: 'Not charged', percentage: 7 },
      ],
      invoice_time_entries: s.lines,
    });
    const pdf = await pdfOf(ws, inv.id, 'pdf-300-lines.pdf');
    const { invoice } = await ws.caller.invoices.get({ invoice_id: inv.id });
    // Seller: name, every address line as entered, VAT id; buyer: name, address lines (not split at commas), VAT id.
    for (const line of ['Müller & Schmidt Digitalagentur GmbH', ...GERMAN_ADDRESS.split('\n'), 'VAT ID: DE123456789']) expect(pdf.flat).toContain(line);
    expectWholeWords(pdf, ['Globex Corporation International Holdings']);
    // The buyer's address lines as entered, not split at their commas.
    expect(pdf.lines[0]!.some((l) => l.startsWith('1200 Harbor Boulevard, Suite 400'))).toBe(true);
    expect(pdf.lines[0]!.some((l) => l.startsWith('Weehawken, NJ 07086, USA'))).toBe(true);
    expect(pdf.flat).toContain('VAT ID: ATU12345678');
    // Dates and amounts in the workspace's locale (de-DE).
    expect(pdf.flat).toContain('Issue date 18.11.2026');
    expect(pdf.flat).toContain('Due date 18.12.2026');
    expect(pdf.flat).toContain('Service period 01.10.2026 – 28.10.2026');
    const eur = (amount: number) => new Intl.NumberFormat('de-DE', { style: 'currency', currency: 'EUR' }).format(amount).replace(/\s/g, ' ');
    expect(pdf.flat).toContain(`USt 19% of ${eur(invoice.subtotal)} ${eur(invoice.tax_total)}`);
    expect(pdf.flat).toContain(`Total (EUR) ${eur(invoice.total)}`);
    expect(pdf.flat).not.toContain('Not charged');
    const hours = invoice.lines.reduce((sum, l) => sum + Math.round(l.hours! * 10_000), 0) / 10_000;
    expect(pdf.flat).toContain(`Total hours: ${new Intl.NumberFormat('de-DE', { maximumFractionDigits: 4 }).format(hours)}`);
    // Every word of every cell, whole.
    const people = s.people.map((p) => `${p.firstName} ${p.lastName}`);
    expectWholeWords(pdf, [...invoice.lines.map((l) => l.notes || ''), ...people, 'Backend development', 'Website relaunch']);
    // Pages: the table header on each page of the lines, "page n of N", the footer on every page.
    expect(pdf.pages).toBeGreaterThan(5);
    for (let p = 0; p < 5; p++) expect(pdf.lines[p]!.some((l) => /^Date Task Person Notes Hours Rate Amount$/.test(l)), `page ${p + 1}`).toBe(true);
    // One project on every line: said once above the table rather than in a column.
    expect(pdf.lines[0]).toContain('Project: Website relaunch');
    for (let p = 0; p < pdf.pages; p++) {
      expect(pdf.lines[p]).toContain(`${inv.number} · page ${p + 1} of ${pdf.pages}`);
      expect(pdf.lines[p]!.join(' ')).toContain('Amtsgericht Charlottenburg');
    }
    expect(pdf.flat).toContain('Hours by person');
    expect(pdf.flat).toContain('Vielen Dank für Ihren Auftrag!');
    expect(pdf.flat).toContain('IBAN DE89 3704 0044 0532 0130 00 · BIC BELADEBEXXX');
    expect(pdf.flat).toContain(`View and pay invoice ${inv.number} online`);
    expect(pdf.links).toEqual([invoice.public_url]);
  });

  it('1 line and 20 lines: the totals never stand alone on a page, payment block and footer follow', async () => {
    const ws = env.workspace('pdfsmall');
    await germanIdentity(ws);
    for (const count of [1, 20]) {
      const s = timeSetup(ws, count);
      const inv = await createInvoice(ws, s.client.id, { tax_details: [{ name: 'USt', percentage: 19, selected: true }], invoice_time_entries: s.lines });
      const pdf = await pdfOf(ws, inv.id, `pdf-${count}-lines.pdf`);
      if (count === 1) expect(pdf.pages).toBe(1);
      const last = pdf.lines[pdf.pages - 1]!;
      // The last line of the table shares its page with the totals and the payment block.
      expect(last.some((l) => l.includes(`Work item ${count} `))).toBe(true);
      expect(last.some((l) => l.startsWith('Total (EUR)'))).toBe(true);
      expect(last).toContain(`Please pay ${(await ws.caller.invoices.get({ invoice_id: inv.id })).invoice.total.toLocaleString('de-DE', { minimumFractionDigits: 2 })} € by 18.12.2026, quoting ${inv.number}.`);
      expect(pdf.flat).toContain('BELADEBEXXX');
      expect(last).toContain(`${inv.number} · page ${pdf.pages} of ${pdf.pages}`);
      expectWholeWords(pdf, Array.from({ length: count }, (_, i) => `Work item ${i + 1}`));
    }
  });
});
