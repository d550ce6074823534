import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadInvoiceDocument } from '../src/domain/invoices/document.ts';
import { pdfFonts, STANDARD_FONTS, toWinAnsi } from '../src/pdf/fonts.ts';
import { cachedInvoicePdf, pdfRenderStats, renderInvoicePdf } from '../src/pdf/invoice.ts';
import { startTestEnv, testClock, type TestEnv } from './helpers/env.ts';
import { makeClient, makeMember, makeProject, makeProjectUser, makeTask, makeTimeEntry } from './helpers/factories.ts';

let env: TestEnv;
let dir: string;

beforeAll(async () => {
  env = await startTestEnv({ clock: testClock() });
  dir = mkdtempSync(join(tmpdir(), 'hourbook-pdf-'));
});
afterAll(async () => {
  await env.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The PDF of an invoice through `invoices.pdf`, as text extracted by poppler's pdftotext. */
async function pdfText(invoiceId: string): Promise<{ text: string; bytes: Buffer; file: string }> {
  const out = await env.alpha.caller.invoices.pdf({ invoice_id: invoiceId });
  const bytes = Buffer.from(out.base64, 'base64');
  const file = join(dir, out.filename);
  writeFileSync(file, bytes);
  return { text: execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' }), bytes, file };
}

describe('invoice PDF', () => {
  it('a 300-line time invoice: header, client, lines, summaries, taxes, total, notes, link, several pages', async () => {
    const db = env.alpha.handle.db;
    const client = makeClient(db, { name: 'Łódź Software Spółka', currency: 'EUR', fullAddress: 'ul. Piotrkowska 1\n90-001 Łódź, Poland' });
    const project = makeProject(db, client.id, { name: 'Website relaunch', currency: 'EUR', hourlyRateMinor: 9550 });
    const design = makeTask(db, project.id, { name: 'Design' });
    const build = makeTask(db, project.id, { name: 'Build' });
    const dmitry = makeMember(db, { firstName: 'Дмитрий', lastName: 'Иванов' });
    const zoe = makeMember(db, { firstName: 'Zoë', lastName: 'Müller' });
    makeProjectUser(db, project.id, dmitry.id);
    makeProjectUser(db, project.id, zoe.id);
    const lines = Array.from({ length: 300 }, (_, i) => {
      const task = i % 2 ? build : design;
      const user = i % 3 ? zoe : dmitry;
      const e = makeTimeEntry(db, { clientId: client.id, projectId: project.id, taskId: task.id, userId: user.id }, {
        seconds: 1800 + 60 * (i % 7),
        recordedOn: `2026-10-${String((i % 28) + 1).padStart(2, '0')}`,
        notes: `Work item ${i + 1}`,
      });
      return { e, line: { time_entry_id: e.id, project_id: project.id, task_id: task.id, user_id: user.id } };
    });
    const subtotal = lines.reduce((s, { e }) => s + Math.floor((e.seconds * 9550 * 2 + 3600) / 7200), 0);
    const tax = Math.floor((subtotal * 19 * 2 + 100) / 200);
    const total = (subtotal + tax) / 100;
    const res = await env.alpha.api.post(`/api/external/v2/clients/${client.id}/invoices`, {
      email: env.alpha.ownerEmail,
      number: 'PDF-0001',
      total,
      notes: 'Payable by bank transfer. Danke schön!',
      include_hours_by_person: true,
      include_hours_by_task: true,
      include_time_entries: true,
      include_payment_link: true,
      tax_details: [{ name: 'USt', percentage: 19, selected: true }],
      invoice_time_entries: lines.map((l) => l.line),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const { text, bytes, file } = await pdfText(res.body.invoice.id);
    expect(bytes.subarray(0, 4).toString('latin1')).toBe('%PDF');
    const flat = text.replace(/\s+/g, ' ');
    expect(flat).toContain('PDF-0001');
    // With DejaVu Sans installed every name is drawn as written; without it, as "?" (never garbage).
    const drawn = pdfFonts().unicode ? (s: string) => s : toWinAnsi;
    expect(flat).toContain(drawn('Łódź Software Spółka'));
    expect(flat).toContain(drawn('90-001 Łódź'));
    expect(flat).toContain(drawn('Дмитрий Иванов'));
    expect(flat).toContain('Zoë Müller');
    expect(flat).toContain('Work item 1 ');
    expect(flat).toContain('Work item 300');
    expect(flat).toContain('Website relaunch');
    expect(flat).toContain('2026-11-18'); // issue date
    expect(flat).toContain('2026-12-18'); // due date
    const fmt = (minor: number) => `€${(minor / 100).toLocaleString('en-US', { minimumFractionDigits: 2 })}`;
    expect(flat).toContain(`Subtotal ${fmt(subtotal)}`);
    expect(flat).toContain(`USt (19%) ${fmt(tax)}`);
    expect(flat).toContain(`Total (EUR) ${fmt(subtotal + tax)}`);
    expect(flat).toContain('Hours by person');
    expect(flat).toContain('Hours by task');
    expect(flat).toContain('Time entries');
    expect(flat).toContain('Danke schön!');
    expect(flat).toMatch(/http:\/\/alpha\.localhost:3000\/invoices\/[A-Za-z0-9_-]{43}/);
    const pages = /page 1 of (\d+)/.exec(flat);
    expect(Number(pages?.[1])).toBeGreaterThan(5);
    // The header row repeats on every page of the line table.
    expect(text.split('\f').slice(0, 3).every((page) => /Amount/.test(page))).toBe(true);
    // A PNG of the first page, for people checking the layout by eye (kept next to the PDF).
    execFileSync('pdftoppm', ['-png', '-r', '60', '-f', '1', '-l', '1', file, join(dir, 'page')]);
  });

  it('honours the display flags and renders service lines, JPY without decimals', async () => {
    const db = env.alpha.handle.db;
    const client = makeClient(db, { name: 'Umbrella KK', currency: 'JPY' });
    const res = await env.alpha.api.post(`/api/external/v2/clients/${client.id}/invoices`, {
      email: env.alpha.ownerEmail,
      number: 'PDF-JPY-1',
      total: 16500,
      display_project_name: false,
      tax_details: [{ name: 'Consumption tax', percentage: 10, selected: true }],
      invoice_services: [
        { notes: 'Consulting day', quantity: 1, unit_amount: 12000 },
        { notes: 'Travel', quantity: 0.5, unit_amount: 6000 },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const { text } = await pdfText(res.body.invoice.id);
    const flat = text.replace(/\s+/g, ' ');
    expect(flat).toContain('Consulting day');
    expect(flat).toContain('Travel 0.5 ¥6,000 ¥3,000');
    expect(flat).toContain('Total (JPY) ¥16,500');
    expect(flat).not.toContain('Project');
  });

  it('leaves out the columns whose display flag is false', async () => {
    const db = env.alpha.handle.db;
    const client = makeClient(db, { name: 'Acme' });
    const project = makeProject(db, client.id, { name: 'Secret project name' });
    const task = makeTask(db, project.id, { name: 'Hidden task' });
    const user = makeMember(db, { firstName: 'Hidden', lastName: 'Person' });
    makeProjectUser(db, project.id, user.id);
    const e = makeTimeEntry(db, { clientId: client.id, projectId: project.id, taskId: task.id, userId: user.id }, { notes: 'secret note' });
    const res = await env.alpha.api.post(`/api/external/v2/clients/${client.id}/invoices`, {
      email: env.alpha.ownerEmail,
      number: 'PDF-FLAGS',
      total: 100,
      display_task_name: false,
      display_person_name: false,
      display_date: false,
      display_note: false,
      display_project_name: false,
      invoice_time_entries: [{ time_entry_id: e.id, project_id: project.id, task_id: task.id, user_id: user.id }],
    });
    const { text } = await pdfText(res.body.invoice.id);
    for (const hidden of ['Secret project name', 'Hidden task', 'Hidden Person', 'secret note', '2026-11-16']) expect(text).not.toContain(hidden);
    expect(text).toContain('$100.00');
  });

  it('with the built-in Helvetica, € and ¥ print and other scripts become "?"', async () => {
    const db = env.alpha.handle.db;
    const client = makeClient(db, { name: 'Дмитрий & Zoë GmbH', currency: 'EUR' });
    const res = await env.alpha.api.post(`/api/external/v2/clients/${client.id}/invoices`, {
      email: env.alpha.ownerEmail,
      number: 'PDF-HELV',
      total: 12.5,
      invoice_services: [{ notes: 'Łódź workshop ¥ “quoted”', unit_amount: 12.5 }],
    });
    const doc = loadInvoiceDocument(db, res.body.invoice.id, { workspaceName: 'Ελλάδα Agency', publicBase: 'http://alpha.localhost:3000' });
    const file = join(dir, 'helvetica.pdf');
    writeFileSync(file, await renderInvoicePdf(doc, STANDARD_FONTS));
    const flat = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
    expect(flat).toContain('?????? Agency');
    expect(flat).toContain('??????? & Zoë GmbH');
    expect(flat).toContain('?ód? workshop ¥ “quoted”');
    expect(flat).toContain('Total (EUR) €12.50');
  });

  it('without an embedded font, characters outside WinAnsi become "?" rather than wrong letters', () => {
    expect(toWinAnsi('Zoë € ¥ “ok”')).toBe('Zoë € ¥ “ok”');
    expect(toWinAnsi('Дмитрий Łódź 東京')).toBe('??????? ?ód? ??');
  });

  it('keeps at most 32 rendered PDFs, evicting the least recently used', async () => {
    const db = env.alpha.handle.db;
    const client = makeClient(db);
    const res = await env.alpha.api.post(`/api/external/v2/clients/${client.id}/invoices`, {
      email: env.alpha.ownerEmail,
      number: 'PDF-LRU',
      total: 1,
      invoice_services: [{ notes: 'One', unit_amount: 1 }],
    });
    const doc = loadInvoiceDocument(db, res.body.invoice.id, { workspaceName: 'alpha', publicBase: 'http://alpha.localhost:3000' });
    const key = (n: number) => ({ workspace: 'lru-test', invoiceId: doc.invoice.id, updatedAt: `v${n}` });
    for (let n = 1; n <= 32; n++) await cachedInvoicePdf(key(n), () => doc);
    await cachedInvoicePdf(key(1), () => doc); // used again: now the most recent
    const before = pdfRenderStats.renders;
    await cachedInvoicePdf(key(33), () => doc); // evicts v2
    await cachedInvoicePdf(key(1), () => doc);
    expect(pdfRenderStats.renders).toBe(before + 1);
    await cachedInvoicePdf(key(2), () => doc);
    expect(pdfRenderStats.renders).toBe(before + 2);
  });

  it("shows a line's own hours exactly", async () => {
    const db = env.alpha.handle.db;
    const client = makeClient(db);
    const project = makeProject(db, client.id, { hourlyRateMinor: 15000 });
    const task = makeTask(db, project.id);
    const user = makeMember(db);
    makeProjectUser(db, project.id, user.id);
    const e = makeTimeEntry(db, { clientId: client.id, projectId: project.id, taskId: task.id, userId: user.id });
    const res = await env.alpha.api.post(`/api/external/v2/clients/${client.id}/invoices`, {
      email: env.alpha.ownerEmail,
      number: 'PDF-HOURS',
      total: 18.51,
      invoice_time_entries: [{ time_entry_id: e.id, project_id: project.id, task_id: task.id, user_id: user.id, hours: 0.1234 }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const { text } = await pdfText(res.body.invoice.id);
    expect(text).toMatch(/0\.1234\s+\$150\.00\s+\$18\.51/);
  });
});
