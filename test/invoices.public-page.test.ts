import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textEdges } from './helpers/browser.ts';
import { startTestEnv, testClock, type TestEnv, type TestWorkspace } from './helpers/env.ts';
import { send } from './helpers/http.ts';
import { makeClient, makeMember, makeProject, makeProjectUser, makeTask, makeTimeEntry } from './helpers/factories.ts';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`invoices.public-page.test.ts: skipping the browser tests: ${CHROMIUM} is missing (apt-get install chromium)`);
/** Set SCREENSHOTS=dir to keep the screenshots taken here. */
const shots = process.env.SCREENSHOTS;

let env: TestEnv;
let ws: TestWorkspace;
const clock = testClock('2026-11-18T10:00:00.000Z');
let partly: { id: string; token: string; number: string };
let voided: { token: string; number: string; creditToken: string; creditNumber: string };
let hebrew: string;

const tokenOf = (url: string) => url.split('/invoices/')[1]!;

/** A partly paid invoice of 12 time lines with long names and notes, from an agency with a logo. */
async function richInvoice(): Promise<typeof partly> {
  const db = ws.handle.db;
  const client = makeClient(db, { name: 'Globex Corporation International Holdings', currency: 'EUR', fullAddress: 'Mönckebergstraße 7\n20095 Hamburg\nDeutschland', taxId: 'DE999999999' });
  const project = makeProject(db, client.id, { name: 'Customer portal relaunch', currency: 'EUR', hourlyRateMinor: 12000 });
  const task = makeTask(db, project.id, { name: 'Backend development' });
  const person = makeMember(db, { firstName: 'Zoë', lastName: 'Müller-Lüdenscheidt' });
  makeProjectUser(db, project.id, person.id);
  const lines = Array.from({ length: 12 }, (_, i) => {
    const e = makeTimeEntry(db, { clientId: client.id, projectId: project.id, taskId: task.id, userId: person.id }, {
      recordedOn: `2026-11-${String(i + 1).padStart(2, '0')}`,
      notes: i === 3 ? 'Investigated https://example.com/a/very/long/url/that/has/no/spaces/at/all/and/goes/on/and/on' : `Implemented the reconciliation job, part ${i + 1}`,
    });
    return { time_entry_id: e.id, project_id: project.id, task_id: task.id, user_id: person.id };
  });
  const body = { email: ws.ownerEmail, number: 'WEB-0001', include_payment_link: true, tax_details: [{ name: 'USt', percentage: 19, selected: true }], invoice_time_entries: lines, notes: 'Thank you for the good work together.' };
  const probe = await ws.api.post(`/api/external/v2/clients/${client.id}/invoices`, { ...body, total: 0 });
  const res = await ws.api.post(`/api/external/v2/clients/${client.id}/invoices`, { ...body, total: probe.body.computed_total });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const id = res.body.invoice.id as string;
  await ws.caller.invoices.markSent({ email: ws.ownerEmail, invoice_id: id });
  await ws.caller.invoices.recordPayment({ email: ws.ownerEmail, invoice_id: id, amount: 500, method: 'bank_transfer', reference: 'SEPA 4711', paid_on: '2026-11-17' });
  const { invoice } = await ws.caller.invoices.get({ invoice_id: id });
  return { id, token: tokenOf(invoice.public_url), number: invoice.number };
}

beforeAll(async () => {
  env = await startTestEnv({ clock });
  ws = env.alpha;
  const logo = await sharp(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="180" height="60"><rect width="180" height="60" rx="8" fill="#0f766e"/></svg>')).png().toBuffer();
  await ws.caller.workspace.updateIdentity({
    email: ws.ownerEmail,
    legal_name: 'Nordlicht Digital GmbH',
    address: 'Große Bleichen 12\n20354 Hamburg',
    tax_id: 'DE812345678',
    locale: 'de-DE',
    payment_instructions: 'IBAN DE02 1203 0000 0000 2020 51 · BIC BYLADEM1001',
    invoice_footer: 'Nordlicht Digital GmbH · Amtsgericht Hamburg HRB 12345',
    logo_base64: logo.toString('base64'),
  });
  partly = await richInvoice();
  const client = makeClient(ws.handle.db, { name: 'Void Client', currency: 'EUR' });
  const created = await ws.api.post(`/api/external/v2/clients/${client.id}/invoices`, { email: ws.ownerEmail, number: 'WEB-0002', total: 100, invoice_services: [{ notes: 'Workshop', unit_amount: 100 }] });
  await ws.caller.invoices.markSent({ email: ws.ownerEmail, invoice_id: created.body.invoice.id });
  const v = await ws.caller.invoices.void({ email: ws.ownerEmail, invoice_id: created.body.invoice.id });
  voided = { token: tokenOf(v.invoice.public_url), number: v.invoice.number, creditToken: tokenOf(v.credit_note!.public_url), creditNumber: v.credit_note!.number };
  hebrew = await hebrewInvoice();
});
afterAll(() => env.close());

/** The token of an invoice to a Hebrew-named client, with notes of a Hebrew and an English paragraph and a Hebrew line. */
async function hebrewInvoice(): Promise<string> {
  const client = makeClient(ws.handle.db, { name: 'סטודיו תל אביב בע״מ', currency: 'EUR' });
  const created = await ws.api.post(`/api/external/v2/clients/${client.id}/invoices`, {
    email: ws.ownerEmail,
    number: 'WEB-RTL-1',
    total: 100,
    notes: 'תודה רבה!\nSee you next month.',
    invoice_services: [{ notes: 'עיצוב אתר (שלב א)', unit_amount: 100 }],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const { invoice } = await ws.caller.invoices.get({ invoice_id: created.body.invoice.id });
  return tokenOf(invoice.public_url);
}

const get = (path: string) => send(env.url, 'GET', path, { host: ws.host });

describe('the public invoice page', () => {
  it('shows the seller block, status, balance, payments and how to pay', async () => {
    const res = await get(`/invoices/${partly.token}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-security-policy']).toContain("img-src data:");
    const text = res.text;
    // English words, German amounts and dates: the page's language is that of its words.
    expect(text).toContain('<html lang="en">');
    // An icon of its own (empty), so the browser asks for no /favicon.ico, which would be a 404.
    expect(text).toContain('<link rel="icon" href="data:,">');
    expect(text).toMatch(/-500,00\s€/);
    expect(text).toContain('Nordlicht Digital GmbH');
    expect(text).toContain('Große Bleichen 12\n20354 Hamburg');
    expect(text).toContain('VAT ID: DE812345678');
    expect(text).toMatch(/<img src="data:image\/png;base64,[A-Za-z0-9+/=]+" alt="Nordlicht Digital GmbH">/);
    expect(text).toContain('<span class="badge partially_paid">Partially paid</span>');
    expect(text).toContain('VAT ID: DE999999999');
    expect(text).toMatch(/Paid<\/td><td class="num">-500,00\s€/);
    expect(text).toContain('SEPA 4711');
    expect(text).toContain('How to pay');
    expect(text).toContain('Amtsgericht Hamburg');
    // Card payment is not set up in this workspace: no "Pay now".
    expect(text).not.toContain('Pay now');
  });

  it('isolates what a person typed, so Hebrew or Arabic keeps its own direction', async () => {
    const { text } = await get(`/invoices/${hebrew}`);
    expect(text).toContain('<strong dir="auto">סטודיו תל אביב בע״מ</strong>');
    expect(text).toContain('<p dir="auto" class="written">תודה רבה!\nSee you next month.</p>');
    expect(text).toContain('<td data-label="Description" class="text"><bdi>עיצוב אתר (שלב א)</bdi></td>');
    // The seller's own text too.
    expect(text).toContain('<strong dir="auto">Nordlicht Digital GmbH</strong>');
    expect(text).toContain('<footer dir="auto">Nordlicht Digital GmbH · Amtsgericht Hamburg HRB 12345</footer>');
  });

  it('a void invoice points to its credit note, and the credit note back to it', async () => {
    const original = await get(`/invoices/${voided.token}`);
    expect(original.text).toContain('<span class="badge void">Void</span>');
    expect(original.text).toContain(`cancelled by credit note <a href="http://alpha.localhost:3000/invoices/${voided.creditToken}">${voided.creditNumber}</a>`);
    const credit = await get(`/invoices/${voided.creditToken}`);
    expect(credit.text).toContain('<span class="badge credit_note">Credit note</span>');
    expect(credit.text).toContain(`cancels invoice <a href="http://alpha.localhost:3000/invoices/${voided.token}">${voided.number}</a>`);
    // The line's price carries its amount's sign, so "1 × -100,00 € = -100,00 €" adds up.
    const cells = (label: string) => [...credit.text.matchAll(new RegExp(`<td data-label="${label}"[^>]*>([^<]*)</td>`, 'g'))].map((m) => m[1]);
    expect(cells('Unit price')).toEqual(['-100,00\u00a0€']);
    expect(cells('Amount')).toEqual(['-100,00\u00a0€']);
  });

  it('says overdue once the due date has passed with a balance', async () => {
    clock.set('2027-01-20T10:00:00.000Z');
    try {
      expect((await get(`/invoices/${partly.token}`)).text).toContain('<span class="badge overdue">Overdue</span>');
    } finally {
      clock.set('2026-11-18T10:00:00.000Z');
    }
  });
});

describe.skipIf(!hasChromium)('in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--host-resolver-rules=MAP *.localhost 127.0.0.1'],
    });
    if (shots) mkdirSync(shots, { recursive: true });
  });
  afterAll(() => browser?.close());

  const port = () => new URL(env.url).port;

  it.each([
    ['phone', 390, 844],
    ['desktop', 1280, 900],
  ] as const)('fits a %s (%i px) without sideways scrolling', async (name, width, height) => {
    const page = await browser.newPage({ viewport: { width, height } });
    try {
      for (const [label, token] of [['partly-paid', partly.token], ['void', voided.token], ['credit-note', voided.creditToken], ['hebrew', hebrew]] as const) {
        const response = await page.goto(`http://alpha.localhost:${port()}/invoices/${token}`);
        expect(response?.status()).toBe(200);
        const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
        expect(scrollWidth, `${label} at ${width}px`).toBeLessThanOrEqual(width);
        expect(await page.locator('header.seller img').isVisible()).toBe(true);
        if (shots) await page.screenshot({ path: join(shots, `public-${label}-${name}.png`), fullPage: true });
      }
    } finally {
      await page.close();
    }
  }, 60_000);

  it('sets each paragraph of the notes in its own direction: the Hebrew one on the right, the English one on the left', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    try {
      await page.goto(`http://alpha.localhost:${port()}/invoices/${hebrew}`);
      const notes = 'תודה רבה!\nSee you next month.';
      const at = (word: string) => notes.indexOf(word);
      const rects = await textEdges(page.locator('p.written'), {
        hebrew: [0, at('\n')],
        english: [at('See'), notes.length],
        // The full stop of the English paragraph, drawn after its last word (in a right-to-left
        // paragraph it would stand at the left end, before "See").
        stop: [notes.length - 1, notes.length],
        lastWord: [at('month'), at('month') + 5],
      });
      expect(rects.hebrew.right).toBeCloseTo(rects.box.right, 0);
      expect(rects.english.left).toBeCloseTo(rects.box.left, 0);
      expect(rects.stop.left).toBeGreaterThanOrEqual(rects.lastWord.right - 0.5);
    } finally {
      await page.close();
    }
  });
});
