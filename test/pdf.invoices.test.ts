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
/**
 * Creates an invoice through endpoint 1's procedure (tRPC: these tests are about the PDF, not HTTP),
 * asking it for the total first (its 422 names the computed one).
 */
async function createInvoice(ws: TestWorkspace, clientId: string, body: Record<string, unknown>) {
  const input = { email: ws.ownerEmail, client_id: clientId, number: (body.number as string | undefined) ?? `PDF-${String(++seq).padStart(4, '0')}`, ...body };
  const computed = await ws.caller.invoices.create({ ...input, total: 0 } as never).then(
    (res) => ({ created: res.invoice }),
    (err: { cause?: { extra?: { computed_total?: number } } }) => ({ total: err.cause?.extra?.computed_total }),
  );
  if ('created' in computed) return computed.created;
  expect(computed.total, 'the probe names the computed total').toBeTypeOf('number');
  return (await ws.caller.invoices.create({ ...input, total: computed.total } as never)).invoice;
}

/** The stamp on the first page: a whole word (or words) of capitals. */
const stamped = (pdf: PdfText, text: string) => new RegExp(`(^|\\s)${text}(\\s|$)`, 'm').test(pdf.lines[0]!.join('\n'));

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
    expect(pdf.flat).toContain(`View invoice ${inv.number} online`);
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

describe('stamps, states and credit notes', () => {
  it('draft, partially paid, paid, overdue, void with its credit note', async () => {
    const ws = env.workspace('pdfstates');
    const email = ws.ownerEmail;
    const client = makeClient(ws.handle.db, { name: 'Stamp Client', currency: 'USD' });
    const make = () => createInvoice(ws, client.id, { due_date: '2026-11-25', tax_details: [{ name: 'VAT', percentage: 10, selected: true }], invoice_services: [{ notes: 'Consulting', quantity: 2, unit_amount: 500 }] });
    const draft = await make();
    expect(stamped(await pdfOf(ws, draft.id, 'state-draft.pdf'), 'DRAFT')).toBe(true);

    const partly = await make();
    await ws.caller.invoices.markSent({ email, invoice_id: partly.id });
    expect((await pdfOf(ws, partly.id)).flat).not.toMatch(/\b(DRAFT|PAID|OVERDUE|VOID)\b/);
    await ws.caller.invoices.recordPayment({ email, invoice_id: partly.id, amount: 400, method: 'bank_transfer', paid_on: '2026-11-17', reference: 'TRX-1' });
    const partial = await pdfOf(ws, partly.id, 'state-partially-paid.pdf');
    expect(stamped(partial, 'PARTIALLY PAID')).toBe(true);
    expect(partial.flat).toContain('Paid -$400.00');
    expect(partial.flat).toContain('Balance due $700.00');
    expect(partial.flat).toContain('Nov 17, 2026 bank transfer $400.00 (TRX-1)');
    expect(partial.flat).toContain('Please pay $700.00 by Nov 25, 2026');

    await ws.caller.invoices.markPaid({ email, invoice_id: partly.id, method: 'card' });
    const paid = await pdfOf(ws, partly.id, 'state-paid.pdf');
    expect(stamped(paid, 'PAID')).toBe(true);
    expect(paid.flat).toContain('Paid in full on Nov 18, 2026. Thank you.');

    const late = await make();
    await ws.caller.invoices.markSent({ email, invoice_id: late.id });
    clock.set('2026-11-26T10:00:00.000Z');
    const overdue = await pdfOf(ws, late.id, 'state-overdue.pdf');
    clock.set('2026-11-18T10:00:00.000Z');
    expect(stamped(overdue, 'OVERDUE')).toBe(true);

    const voided = await ws.caller.invoices.void({ email, invoice_id: late.id, reason: 'Billed twice by mistake.' });
    const original = await pdfOf(ws, late.id, 'state-void.pdf');
    expect(stamped(original, 'VOID')).toBe(true);
    expect(original.flat).toContain(`Cancelled by credit note ${voided.credit_note!.number}`);
    const note = await pdfOf(ws, voided.credit_note!.id, 'state-credit-note.pdf');
    expect(stamped(note, 'CREDIT NOTE')).toBe(true);
    expect(note.flat).toContain(`Credit note no. ${voided.credit_note!.number}`);
    expect(note.flat).toContain(`Cancels invoice ${late.number} of Nov 18, 2026`);
    expect(note.flat).toContain('Total (USD) -$1,100.00');
    expect(note.flat).toContain('Billed twice by mistake.');
    // offered under its own kind's name, wherever it is downloaded
    expect((await ws.caller.invoices.pdf({ invoice_id: voided.credit_note!.id })).filename).toBe(`credit-note-${voided.credit_note!.number}.pdf`);
    expect((await ws.caller.invoices.pdf({ invoice_id: late.id })).filename).toBe(`invoice-${late.number}.pdf`);
    expect(note.flat).not.toContain('Due date');
  });
  it('a credit note states the supply date (or period) of the invoice it cancels, not its own issue date', async () => {
    const ws = env.workspace('pdfsupply');
    const email = ws.ownerEmail;
    const client = makeClient(ws.handle.db, { name: 'Supply Client', currency: 'USD' });
    const service = await createInvoice(ws, client.id, { issue_date: '2026-10-01', due_date: '2026-10-31', invoice_services: [{ notes: 'Retainer', quantity: 1, unit_amount: 1000 }] });
    const s = timeSetup(ws, 3);
    const time = await createInvoice(ws, s.client.id, { issue_date: '2026-10-30', invoice_time_entries: s.lines });
    const cases: [invoice: { id: string; number: string }, supply: string][] = [
      [service, 'Date of supply Oct 1, 2026'],
      [time, 'Service period Oct 1, 2026 – Oct 3, 2026'],
    ];
    for (const [invoice, supply] of cases) {
      await ws.caller.invoices.markSent({ email, invoice_id: invoice.id });
      const voided = await ws.caller.invoices.void({ email, invoice_id: invoice.id, reason: 'Issued in error.' });
      const original = await pdfOf(ws, invoice.id);
      const note = await pdfOf(ws, voided.credit_note!.id, `credit-note-supply-${invoice.number}.pdf`);
      // Label and value on one baseline (pdf.js reads them as one line, after the buyer's text there), the same on both documents.
      const supplyLine = (pdf: PdfText) => pdf.lines[0]!.map((l) => /(Date of supply|Service period) .*$/.exec(l)?.[0]).find(Boolean);
      expect(supplyLine(original), invoice.number).toBe(supply);
      expect(supplyLine(note), `credit note of ${invoice.number}`).toBe(supply);
      expect(note.flat, invoice.number).toContain('Issue date Nov 18, 2026');
    }
  });
});

describe('words and columns', () => {
  it('a word too long for its column shrinks or ends in "…", never splits; short names stay on one line', async () => {
    const ws = env.workspace('pdfwords');
    const long = 'Donaudampfschifffahrtsgesellschaftskapitänskajütenschlüsselbundanhängerproduktionsstättenbesichtigungstermin';
    const client = makeClient(ws.handle.db, { name: 'Words GmbH', currency: 'EUR' });
    const lines = [
      { notes: 'Development of the onboarding flow', quantity: 1, unit_amount: 100 },
      { notes: `Research ${long} and more`, quantity: 1, unit_amount: 100 },
      { notes: 'Internationalisation', quantity: 1.5, unit_amount: 100 },
    ];
    const inv = await createInvoice(ws, client.id, { invoice_services: lines });
    const pdf = await pdfOf(ws, inv.id, 'words.pdf');
    expectWholeWords(pdf, ['Development of the onboarding flow', 'Research and more', 'Internationalisation']);
    // The monster word is either whole (shrunk) or cut with an ellipsis, never broken over two lines.
    const piece = [...pdf.words].find((w) => w.startsWith('Donaudampf'))!;
    expect(piece === long || (piece.endsWith('…') && long.startsWith(piece.slice(0, -1)))).toBe(true);
    expect(pdf.flat).not.toMatch(/\n(schifffahrt|kapitäns|termin)/);
  });

  it('honours the display flags: hidden columns are nowhere on the PDF', async () => {
    const ws = env.workspace('pdfflags');
    const db = ws.handle.db;
    const client = makeClient(db, { name: 'Acme' });
    const project = makeProject(db, client.id, { name: 'Secret project name' });
    const task = makeTask(db, project.id, { name: 'Hidden task' });
    const user = makeMember(db, { firstName: 'Hidden', lastName: 'Person' });
    makeProjectUser(db, project.id, user.id);
    const e = makeTimeEntry(db, { clientId: client.id, projectId: project.id, taskId: task.id, userId: user.id }, { notes: 'secret note' });
    const inv = await createInvoice(ws, client.id, {
      display_task_name: false,
      display_person_name: false,
      display_date: false,
      display_note: false,
      display_project_name: false,
      invoice_time_entries: [{ time_entry_id: e.id, project_id: project.id, task_id: task.id, user_id: user.id }],
    });
    const pdf = await pdfOf(ws, inv.id);
    for (const hidden of ['Secret project name', 'Hidden task', 'Hidden Person', 'secret note']) expect(pdf.flat).not.toContain(hidden);
    // The entry's date stays the date of supply (a legal fact), but no line shows it.
    expect(pdf.flat).toContain('Date of supply Nov 16, 2026');
    expect(pdf.flat).toMatch(/^Hours Rate Amount$/m);
    expect(pdf.flat).toContain('$100.00');
  });

  it('service lines in JPY: no decimals; quantity as written', async () => {
    const ws = env.workspace('pdfjpy');
    const client = makeClient(ws.handle.db, { name: 'Umbrella KK', currency: 'JPY' });
    const inv = await createInvoice(ws, client.id, {
      display_project_name: false,
      tax_details: [{ name: 'Consumption tax', percentage: 10, selected: true }],
      invoice_services: [
        { notes: 'Consulting day', quantity: 1, unit_amount: 12000 },
        { notes: 'Travel', quantity: 0.5, unit_amount: 6000 },
      ],
    });
    const pdf = await pdfOf(ws, inv.id);
    expect(pdf.flat).toContain('Travel 0.5 ¥6,000 ¥3,000');
    expect(pdf.flat).toContain('Consumption tax 10% of ¥15,000 ¥1,500');
    expect(pdf.flat).toContain('Total (JPY) ¥16,500');
  });

  it("shows a line's own hours exactly", async () => {
    const ws = env.workspace('pdfhours');
    const db = ws.handle.db;
    const client = makeClient(db);
    const project = makeProject(db, client.id, { hourlyRateMinor: 15000 });
    const task = makeTask(db, project.id);
    const user = makeMember(db);
    makeProjectUser(db, project.id, user.id);
    const e = makeTimeEntry(db, { clientId: client.id, projectId: project.id, taskId: task.id, userId: user.id });
    const inv = await createInvoice(ws, client.id, { invoice_time_entries: [{ time_entry_id: e.id, project_id: project.id, task_id: task.id, user_id: user.id, hours: 0.1234 }] });
    const pdf = await pdfOf(ws, inv.id);
    expect(pdf.flat).toMatch(/0\.1234 \$150\.00 \$18\.51/);
    expect(pdf.flat).toContain('Total hours: 0.1234');
  });
});

describe('fonts, logos and the cache', () => {
  it('an SVG logo is drawn (as its sanitised rendering); without a logo the name stands large', async () => {
    const ws = env.workspace('pdfsvg');
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="60" onload="alert(1)"><script>alert(2)</script><rect width="200" height="60" fill="#c0262d"/></svg>';
    await ws.caller.workspace.updateIdentity({ email: ws.ownerEmail, legal_name: 'Vector Studio Ltd', logo_base64: Buffer.from(svg).toString('base64') });
    const client = makeClient(ws.handle.db);
    const inv = await createInvoice(ws, client.id, { invoice_services: [{ notes: 'Logo work', unit_amount: 10 }] });
    const pdf = await pdfOf(ws, inv.id, 'logo-svg.pdf');
    expect(pdf.bytes.includes(Buffer.from('/Subtype /Image'))).toBe(true);
    expect(pdf.flat).toContain('Vector Studio Ltd');
    await ws.caller.workspace.updateIdentity({ email: ws.ownerEmail, logo_base64: null });
    const plain = await pdfOf(ws, inv.id, 'logo-none.pdf');
    expect(plain.bytes.includes(Buffer.from('/Subtype /Image'))).toBe(false);
    expect(plain.lines[0]![0]).toBe('Vector Studio Ltd');
  });

  it('with the built-in Helvetica, € and ¥ print and other scripts become "?"', async () => {
    const ws = env.workspace('pdfhelv');
    const db = ws.handle.db;
    const client = makeClient(db, { name: 'Дмитрий & Zoë GmbH', currency: 'EUR' });
    await ws.caller.workspace.updateIdentity({ email: ws.ownerEmail, legal_name: 'Ελλάδα Agency' });
    const inv = await createInvoice(ws, client.id, { invoice_services: [{ notes: 'Łódź workshop ¥ “quoted”', unit_amount: 12.5 }] });
    const doc = loadInvoiceDocument(db, inv.id, documentContext(scopeOf(env.services, ws.handle)));
    const pdf = await readPdf(await renderInvoicePdf(doc, STANDARD_FONTS));
    expect(pdf.flat).toContain('?????? Agency');
    expect(pdf.flat).toContain('??????? & Zoë GmbH');
    expect(pdf.flat).toContain('?ód? workshop ¥ “quoted”');
    expect(pdf.flat).toContain('Total (EUR) €12.50');
  });

  it('without an embedded font, characters outside WinAnsi become "?" rather than wrong letters', () => {
    expect(toWinAnsi('Zoë € ¥ “ok”')).toBe('Zoë € ¥ “ok”');
    expect(toWinAnsi('Дмитрий Łódź 東京')).toBe('??????? ?ód? ??');
    expect(pdfFonts().unicode).toBe(true);
  });

  it('keeps at most 32 rendered PDFs, evicting the least recently used', async () => {
    const ws = env.workspace('pdflru');
    const client = makeClient(ws.handle.db);
    const inv = await createInvoice(ws, client.id, { invoice_services: [{ notes: 'One', unit_amount: 1 }] });
    const doc = loadInvoiceDocument(ws.handle.db, inv.id, documentContext(scopeOf(env.services, ws.handle)));
    const key = (n: number) => ({ workspace: 'lru-test', invoiceId: doc.invoice.id, version: `v${n}` });
    for (let n = 1; n <= 32; n++) await cachedInvoicePdf(key(n), () => doc);
    await cachedInvoicePdf(key(1), () => doc); // used again: now the most recent
    const before = pdfRenderStats.renders;
    await cachedInvoicePdf(key(33), () => doc); // evicts v2
    await cachedInvoicePdf(key(1), () => doc);
    expect(pdfRenderStats.renders).toBe(before + 1);
    await cachedInvoicePdf(key(2), () => doc);
    expect(pdfRenderStats.renders).toBe(before + 2);
  });

  it('a new identity or the calendar (overdue) renders the PDF anew; nothing else does', async () => {
    const ws = env.workspace('pdfversion');
    const client = makeClient(ws.handle.db);
    const inv = await createInvoice(ws, client.id, { due_date: '2026-11-20', invoice_services: [{ notes: 'One', unit_amount: 1 }] });
    await ws.caller.invoices.markSent({ email: ws.ownerEmail, invoice_id: inv.id });
    await pdfOf(ws, inv.id);
    const before = pdfRenderStats.renders;
    await pdfOf(ws, inv.id);
    expect(pdfRenderStats.renders).toBe(before);
    await ws.caller.workspace.updateIdentity({ email: ws.ownerEmail, tax_id: 'GB123456789' });
    expect((await pdfOf(ws, inv.id)).flat).toContain('VAT ID: GB123456789');
    expect(pdfRenderStats.renders).toBe(before + 1);
    clock.set('2026-11-21T10:00:00.000Z');
    expect(stamped(await pdfOf(ws, inv.id), 'OVERDUE')).toBe(true);
    clock.set('2026-11-18T10:00:00.000Z');
    expect(pdfRenderStats.renders).toBe(before + 2);
  });
});
