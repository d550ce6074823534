import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoices, outbox, timeEntries } from '../src/db/schema/index.ts';
import { issuePasswordLink } from '../src/domain/accounts/links.ts';
import { provisionWorkspace } from '../src/domain/workspace/provision.ts';
import type { AppServices } from '../src/services.ts';
import { prepareApp } from './helpers/app-server.ts';
import { checkPage, confirmWithPassword, hasChromium, launchChromium, NO_CHROMIUM, SCREENSHOTS, signInByLink } from './helpers/browser.ts';
import { callerFor, scopeOf } from './helpers/env.ts';
import { makeClient, makeMember, makeProject, makeProjectUser, makeRecipient, makeTask, makeTimeEntry } from './helpers/factories.ts';
import { readPdf } from './helpers/pdf.ts';
import { mailTo as mailToOf } from './helpers/smtp.ts';

/**
 * The billing screens in real Chromium against a real server, workspace file, SMTP server and
 * webhook receiver: an Owner takes an invoice through payments (partial, then the rest), edits and
 * sends a draft, voids a sent invoice and follows the link to its credit note, sets the workspace's
 * identity with a logo (and finds the legal name in the PDF), sets up card payment, and manages a
 * webhook endpoint whose secret is shown once; a Member can open none of it. Every page is checked
 * with axe-core and at 390 px, and photographed (SHOTS_DIR, default test-results/screenshots/billing).
 */

if (!hasChromium) console.log(NO_CHROMIUM);

const SHOTS = process.env.SHOTS_DIR ?? join(SCREENSHOTS, 'billing');
const DESKTOP_SHOT = { width: 1280, height: 800 };
const OWNER = 'olga@bill.test';
const MEMBER = 'mia@bill.test';

let prepared: Awaited<ReturnType<typeof prepareApp>>;
let port: number;
let smtp: Awaited<ReturnType<typeof prepareApp>>['smtp'];
let services: AppServices;
let browser: Browser;
let owner: Page;
let member: Page;
let receiver: Server;
const hooks: { headers: IncomingHttpHeaders; body: string }[] = [];
const ids: Record<'partial' | 'draft' | 'overdue', string> = { partial: '', draft: '', overdue: '' };
let droppedEntry = '';

const app = (path = '') => `http://bill.localhost:${port}${path}`;
const checked: string[] = [];

/** Every page: checked (axe, phone width) and photographed at 1280×800 and 390×844. */
async function look(page: Page, name: string) {
  await checkPage(page, name, { dir: SHOTS, desktop: DESKTOP_SHOT });
  checked.push(name);
}

const mailTo = (address: string) => mailToOf(smtp, address);
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
const nav = (page: Page, name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
const facts = (page: Page, term: string) => page.locator('.facts div', { has: page.locator('dt', { hasText: new RegExp(`^${term}$`) }) }).locator('dd');

// window.confirm (delete, rotate, remove) is answered yes.
const signIn = (email: string) => signInByLink(browser, issuePasswordLink(scopeOf(services, services.registry.get('bill')!), { email }).link);

/** Invoices made through the procedures, so each screen starts from a known state. */
async function seed(apiKey: string) {
  const caller = callerFor(services, 'bill', apiKey);
  const db = services.registry.get('bill')!.db;
  const client = makeClient(db, { name: 'Nordlicht Medien GmbH', currency: 'EUR' });
  makeRecipient(db, client.id, { name: 'Greta Buchhaltung', email: 'greta@nordlicht.test' });
  const project = makeProject(db, client.id, { name: 'Relaunch', currency: 'EUR', hourlyRateMinor: 9500 });
  const task = makeTask(db, project.id, { name: 'Design' });
  const mia = makeMember(db, { email: MEMBER, firstName: 'Mia', lastName: 'Member' });
  makeProjectUser(db, project.id, mia.id);
  const refs = { clientId: client.id, projectId: project.id, taskId: task.id, userId: mia.id };
  const entries = [1, 2, 3].map((n) => makeTimeEntry(db, refs, { recordedOn: daysAgo(n + 1), notes: `Wireframes, part ${n}` }));
  droppedEntry = entries[2]!.id;
  const base = { email: OWNER, client_id: client.id };
  const services19 = { invoice_services: [{ notes: 'Website maintenance, November', quantity: 1, unit_amount: 1000 }], tax_details: [{ name: 'VAT', percentage: 19, selected: true }] };
  const partial = (await caller.invoices.create({ ...base, number: 'INV-0001', total: 1190, ...services19 })).invoice;
  await caller.invoices.markSent({ email: OWNER, invoice_id: partial.id });
  const draft = (
    await caller.invoices.create({
      ...base,
      number: 'INV-0002',
      total: 285,
      invoice_time_entries: entries.map((e) => ({ time_entry_id: e.id, project_id: project.id, task_id: task.id, user_id: mia.id })),
    })
  ).invoice;
  const overdue = (
    await caller.invoices.create({ ...base, number: 'INV-0003', total: 900, issue_date: daysAgo(60), due_date_period: 14, invoice_services: [{ notes: 'Strategy workshop', quantity: 2, unit_amount: 450 }] })
  ).invoice;
  await caller.invoices.markSent({ email: OWNER, invoice_id: overdue.id });
  Object.assign(ids, { partial: partial.id, draft: draft.id, overdue: overdue.id });
}

describe.skipIf(!hasChromium)('the billing screens in Chromium', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        hooks.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    // The receiver is on this machine.
    prepared = await prepareApp('bill.test', { WEBHOOK_ALLOW_PRIVATE: '1' });
    ({ port, smtp } = prepared);
    ({ services } = await prepared.start());
    const created = provisionWorkspace(services.registry, { subdomain: 'bill', timeZone: 'Europe/Berlin', owner: { email: OWNER, firstName: 'Olga', lastName: 'Owner' } }, new Date());
    await seed(created.apiKey);
    browser = await launchChromium();
    owner = await signIn(OWNER);
    member = await signIn(MEMBER);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await prepared?.close();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it('records a partial payment, then the rest: partly paid, then paid with nothing due', async () => {
    await nav(owner, 'Invoices');
    await owner.getByRole('link', { name: 'INV-0003' }).waitFor();
    // INV-0003 was due weeks ago: overdue, in the list and in its filter.
    await expect.poll(() => owner.getByRole('row', { name: /INV-0003/ }).getByText('Overdue').isVisible()).toBe(true);
    await look(owner, 'invoices');
    await owner.getByLabel('Status').selectOption({ label: 'Overdue' });
    await expect.poll(() => owner.getByRole('link', { name: /^INV-/ }).allTextContents()).toEqual(['INV-0003']);
    await owner.getByLabel('Status').selectOption({ label: 'All' });

    await owner.getByRole('link', { name: 'INV-0001' }).click();
    await owner.getByRole('heading', { name: 'Invoice INV-0001' }).waitFor();
    await look(owner, 'invoice-sent');
    await owner.getByRole('button', { name: 'Record a payment' }).click();
    const dialog = owner.getByRole('dialog', { name: 'Record a payment on INV-0001' });
    await expect.poll(() => dialog.getByLabel('Amount (EUR)').inputValue()).toBe('1,190.00');
    // More than the balance: refused, the message beside the amount.
    await dialog.getByLabel('Amount (EUR)').fill('1500');
    await dialog.getByRole('button', { name: 'Record payment' }).click();
    await dialog.locator('.field', { has: owner.getByLabel('Amount (EUR)') }).locator('.error').waitFor();
    expect(await dialog.getByLabel('Amount (EUR)').getAttribute('aria-invalid')).toBe('true');
    await dialog.getByLabel('Amount (EUR)').fill('500');
    await dialog.getByLabel('Method').selectOption('bank_transfer');
    await dialog.getByLabel('Note or reference').fill('Transfer 2611-A');
    await look(owner, 'invoice-record-payment');
    await dialog.getByRole('button', { name: 'Record payment' }).click();
    await dialog.waitFor({ state: 'detached' });
    await owner.locator('.page-head').getByText('Partly paid').waitFor();
    await expect.poll(() => facts(owner, 'Balance due').textContent()).toBe('€690.00');
    // Focus lands on the payments, where the new one is listed.
    await expect.poll(() => owner.evaluate('document.activeElement?.id')).toBe('payments-title');
    await owner.getByRole('cell', { name: 'Transfer 2611-A' }).waitFor();
    await look(owner, 'invoice-partially-paid');

    await owner.getByRole('button', { name: 'Record a payment' }).click();
    await expect.poll(() => owner.getByLabel('Amount (EUR)').inputValue()).toBe('690.00');
    await owner.getByRole('dialog').getByRole('button', { name: 'Record payment' }).click();
    await owner.locator('.page-head').getByText('Paid', { exact: true }).waitFor();
    await expect.poll(() => facts(owner, 'Balance due').textContent()).toBe('€0.00');
    expect(await owner.getByRole('button', { name: 'Record a payment' }).count()).toBe(0);
    await look(owner, 'invoice-paid');

    // A payment recorded by mistake is deleted: partly paid again.
    await owner.getByRole('button', { name: /^Delete the payment of €690\.00/ }).click();
    await owner.locator('.page-head').getByText('Partly paid').waitFor();
    await owner.getByRole('button', { name: 'Record a payment' }).click();
    await owner.getByRole('dialog').getByRole('button', { name: 'Record payment' }).click();
    await owner.locator('.page-head').getByText('Paid', { exact: true }).waitFor();
  });

  it('edits a draft (one entry fewer, new notes) and sends it: the mail arrives', async () => {
    await owner.goto(app(`/invoicing/${ids.draft}`));
    await owner.getByRole('heading', { name: 'Invoice INV-0002' }).waitFor();
    await look(owner, 'invoice-draft');
    await owner.getByRole('link', { name: 'Edit' }).click();
    await owner.getByRole('heading', { name: 'Edit draft INV-0002' }).waitFor();
    await look(owner, 'invoice-edit');
    await owner.getByRole('checkbox', { name: /Wireframes, part 3/ }).uncheck();
    const preview = owner.getByRole('region', { name: 'Preview' });
    await preview.getByRole('row', { name: /Total/ }).getByText('€190.00').waitFor();
    await owner.getByLabel('Notes on the invoice').fill('Thank you for the good work together!');
    await look(owner, 'invoice-edit-changed');
    await owner.getByRole('button', { name: 'Save draft · €190.00' }).click();
    await owner.getByRole('heading', { name: 'Invoice INV-0002' }).waitFor();
    await owner.getByText('Thank you for the good work together!').waitFor();
    await expect.poll(() => facts(owner, 'Total').textContent()).toBe('€190.00');
    const db = services.registry.get('bill')!.db;
    expect(db.select({ status: timeEntries.status }).from(timeEntries).where(eq(timeEntries.id, droppedEntry)).get()?.status).toBe('unbilled');

    await owner.getByRole('button', { name: 'Send now' }).click();
    const dialog = owner.getByRole('dialog', { name: 'Send: INV-0002' });
    expect(await dialog.getByRole('checkbox', { name: /Greta Buchhaltung/ }).isChecked()).toBe(true);
    await dialog.getByLabel('Message (optional)').fill('Hello,\n\nhere is the invoice for the wireframes.');
    await look(owner, 'invoice-send');
    await dialog.getByRole('button', { name: 'Send now' }).click();
    await dialog.waitFor({ state: 'detached' });
    const mail = await mailTo('greta@nordlicht.test');
    expect(mail.mail.subject).toContain('INV-0002');
    expect(mail.mail.text).toContain('here is the invoice for the wireframes');
    expect(mail.mail.attachments.map((a) => a.contentType)).toEqual(['application/pdf']);
    await expect.poll(async () => (await owner.locator('.page-head').textContent()) ?? '', { timeout: 15_000 }).toContain('Sent');
    await owner.getByRole('button', { name: 'Send again' }).waitFor();
  });

  it('voids a sent invoice: a credit note is issued, and each links to the other', async () => {
    await owner.goto(app(`/invoicing/${ids.overdue}`));
    await owner.getByRole('heading', { name: 'Invoice INV-0003' }).waitFor();
    await owner.locator('.page-head').getByText('Overdue').waitFor();
    await owner.getByRole('button', { name: 'Void' }).click();
    const dialog = owner.getByRole('dialog', { name: 'Void INV-0003' });
    await dialog.getByLabel('Reason (printed on the credit note, optional)').fill('Billed to the wrong project.');
    await look(owner, 'invoice-void');
    await dialog.getByRole('button', { name: 'Void and issue a credit note' }).click();
    await owner.locator('.page-head').getByText('Void').waitFor();
    const link = owner.getByRole('link', { name: 'Credit note CN-0001' });
    await link.waitFor();
    await expect.poll(() => owner.evaluate('document.activeElement?.id')).toBe('related-link');
    await look(owner, 'invoice-void-done');
    await link.click();
    await owner.getByRole('heading', { name: 'Credit note CN-0001' }).waitFor();
    await owner.getByText('Billed to the wrong project.').waitFor();
    await expect.poll(() => facts(owner, 'Total').textContent()).toBe('-€900.00');
    // The line's own arithmetic holds: its price carries the amount's sign.
    expect((await owner.locator('tr', { hasText: 'Strategy workshop' }).locator('td').allTextContents()).slice(-3)).toEqual(['2', '-€450.00', '-€900.00']);
    await look(owner, 'credit-note');
    await owner.getByRole('link', { name: 'Invoice INV-0003' }).click();
    await owner.getByRole('heading', { name: 'Invoice INV-0003' }).waitFor();

    await nav(owner, 'Invoices');
    await owner.getByLabel('Kind').selectOption({ label: 'Credit notes' });
    await expect.poll(() => owner.getByRole('link', { name: /^(INV|CN)-/ }).allTextContents()).toEqual(['CN-0001']);
    expect(owner.url()).toBe(app('/invoicing?kind=credit_note'));
    await look(owner, 'invoices-credit-notes');
  });

  it("sets the workspace's identity with a logo, and the legal name is on the invoice PDF", async () => {
    await nav(owner, 'Settings');
    const identity = owner.getByRole('region', { name: 'On invoices and e-mail' });
    await identity.getByLabel('Legal name').waitFor();
    await look(owner, 'settings');
    await identity.getByLabel('Legal name').fill('Nordwind Digital GmbH');
    await identity.getByLabel('Tax or VAT id').fill('DE123456789');
    await identity.getByLabel('Address', { exact: true }).fill('Hafenstraße 12\n20457 Hamburg\nGermany');
    await identity.getByLabel('Payment instructions').fill('IBAN DE89 3704 0044 0532 0130 00\nBIC COBADEFFXXX');
    await identity.getByLabel('Locale').fill('xx-nope-1');
    await identity.getByRole('button', { name: 'Save identity' }).click();
    // The server's 422 names the field; the message stands beside it.
    await identity.locator('.field', { has: owner.getByLabel('Locale') }).locator('.error').waitFor();
    expect(await identity.getByLabel('Locale').getAttribute('aria-invalid')).toBe('true');
    await identity.getByLabel('Locale').fill('en-GB');
    // Not an image, whatever its name says: refused beside the logo field.
    await identity.getByLabel('Logo').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: Buffer.from('not a picture at all') });
    await identity.getByRole('button', { name: 'Save identity' }).click();
    await identity.locator('.field', { has: owner.getByLabel('Logo') }).locator('.error').waitFor();
    const png = await sharp({ create: { width: 360, height: 120, channels: 4, background: '#0f766e' } })
      .composite([{ input: Buffer.from('<svg width="360" height="120"><text x="20" y="78" font-size="56" fill="#fff" font-family="sans-serif">NORDWIND</text></svg>') }])
      .png()
      .toBuffer();
    await identity.getByLabel('Logo').setInputFiles({ name: 'nordwind.png', mimeType: 'image/png', buffer: png });
    await identity.getByRole('img', { name: 'New logo: nordwind.png' }).waitFor();
    await identity.getByRole('button', { name: 'Save identity' }).click();
    // en-GB is the workspace's locale now: the app formats in it.
    await owner.getByRole('img', { name: 'The current logo' }).waitFor();
    await expect.poll(() => owner.getByRole('region', { name: 'On invoices and e-mail' }).getByLabel('Locale').inputValue()).toBe('en-GB');
    expect(await owner.getByRole('region', { name: 'On invoices and e-mail' }).getByLabel('Address', { exact: true }).inputValue()).toBe('Hafenstraße 12\n20457 Hamburg\nGermany');
    await look(owner, 'settings-identity-saved');

    await owner.goto(app(`/invoicing/${ids.partial}`));
    await owner.getByRole('heading', { name: 'Invoice INV-0001' }).waitFor();
    // en-GB: day before month.
    const issued = await facts(owner, 'Issued').textContent();
    expect(issued).toMatch(/^\d{1,2} [A-Z][a-z]{2} \d{4}$/);
    const download = owner.waitForEvent('download');
    await owner.getByRole('button', { name: 'Download PDF' }).click();
    const pdf = await readPdf(new Uint8Array(readFileSync(await (await download).path())));
    expect(pdf.flat).toContain('Nordwind Digital GmbH');
    expect(pdf.flat).toContain('DE123456789');
    expect(pdf.flat).toContain('Hafenstraße 12');
  });

  it('sets up card payment with the keys shown only by their last 4 characters, and turns it off', async () => {
    await nav(owner, 'Settings');
    const card = owner.getByRole('region', { name: 'Card payment' });
    await card.getByLabel('Secret key').fill('pk_test_not_a_secret');
    await card.getByLabel('Webhook signing secret').fill('whsec_abcdefgh12345678');
    await card.getByRole('button', { name: 'Turn card payment on' }).click();
    await card.locator('.field', { has: owner.getByLabel('Secret key') }).locator('.error').waitFor();
    await card.getByLabel('Secret key').fill('sk_test_51abcdefghijklmnopWXYZ');
    await card.getByRole('button', { name: 'Turn card payment on' }).click();
    // Keys that decide where the money goes take the password as well as the session.
    await confirmWithPassword(owner);
    await card.getByText('On, test mode').waitFor();
    await card.getByText('…WXYZ').waitFor();
    expect(await owner.content()).not.toContain('sk_test_51abcdefghijklmnopWXYZ');
    await look(owner, 'settings-card-payment');
    await card.getByRole('button', { name: 'Turn card payment off' }).click();
    await card.getByText('Card payment is off.', { exact: false }).waitFor();
  });

  it('adds a webhook endpoint: its secret is shown once, deliveries are listed and sent again', async () => {
    await owner.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Webhooks' }).click();
    await owner.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await owner.getByText('No endpoints yet.', { exact: false }).waitFor();
    await look(owner, 'webhooks-empty');
    await owner.getByRole('button', { name: 'Add an endpoint' }).click();
    const dialog = owner.getByRole('dialog', { name: 'Add an endpoint' });
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hourbook/events`;
    await dialog.getByLabel('URL').fill(url);
    await dialog.getByLabel('Description (optional)').fill('Accounting sync');
    await dialog.getByLabel('Only these:').check();
    await dialog.getByRole('checkbox', { name: 'invoice.paid' }).check();
    await dialog.getByRole('checkbox', { name: 'payment.recorded' }).check();
    await look(owner, 'webhook-add');
    await dialog.getByRole('button', { name: 'Add endpoint' }).click();
    await confirmWithPassword(owner);
    const secret = (await owner.locator('code.secret').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_/);
    await look(owner, 'webhooks-secret-shown');

    // A payment: two events, signed with the secret the page showed.
    await owner.goto(app(`/invoicing/${ids.draft}`));
    await owner.getByRole('button', { name: 'Record a payment' }).click();
    await owner.getByRole('dialog').getByRole('button', { name: 'Record payment' }).click();
    await owner.locator('.page-head').getByText('Paid', { exact: true }).waitFor();
    await expect.poll(() => hooks.length, { timeout: 20_000 }).toBe(2);
    const types = hooks.map((h) => (new Webhook(secret).verify(h.body, h.headers as Record<string, string>) as { type: string }).type);
    expect(types.sort()).toEqual(['invoice.paid', 'payment.recorded']);

    await owner.goto(app('/settings/webhooks'));
    await owner.getByRole('heading', { name: url }).waitFor();
    expect(await owner.locator('code.secret').count()).toBe(0);
    const section = owner.getByRole('region', { name: url });
    await expect.poll(() => section.getByText('HTTP 204').count(), { timeout: 15_000 }).toBe(2);
    await look(owner, 'webhooks');
    await section.getByRole('button', { name: /^Redeliver payment\.recorded/ }).click();
    await expect.poll(() => hooks.length, { timeout: 20_000 }).toBe(3);
    expect(hooks[2]!.headers['webhook-id']).toBe(hooks.find((h) => h.body.includes('"payment.recorded"'))!.headers['webhook-id']);
    await section.getByText('sent again by hand', { exact: false }).waitFor();

    await section.getByRole('button', { name: 'Rotate secret' }).click();
    await confirmWithPassword(owner);
    const rotated = (await owner.locator('code.secret').textContent()) ?? '';
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await owner.getByRole('button', { name: 'I have copied it' }).click();
    await section.getByRole('button', { name: 'Turn off' }).click();
    await section.getByText('Off', { exact: true }).waitFor();
    await section.getByRole('button', { name: 'Remove' }).click();
    await owner.getByText('No endpoints yet.', { exact: false }).waitFor();
  });

  it("says of each message why it has not gone: retrying only while it is pending, else cancelled or given up", async () => {
    const db = services.registry.get('bill')!.db;
    const at = new Date().toISOString();
    // Messages in each state, the pending one not due for a year, so the running outbox leaves them be.
    const message = (to: string, status: 'pending' | 'failed', lastError: string) => ({
      id: crypto.randomUUID(),
      kind: 'invoice_reminder',
      invoiceId: ids.partial,
      toAddress: to,
      subject: 'Reminder',
      text: 'Reminder',
      status,
      attempts: 1,
      nextAttemptAt: '2099-01-01T00:00:00.000Z',
      lastError,
      messageId: `<${crypto.randomUUID()}@bill.test>`,
      createdAt: at,
    });
    db.insert(outbox)
      .values([
        message('later@nordlicht.test', 'pending', '421 try again later'),
        message('void@nordlicht.test', 'failed', 'cancelled: the invoice was voided before delivery'),
        message('nobody@nordlicht.test', 'failed', '550 no such user'),
      ])
      .run();
    await owner.goto(app(`/invoicing/${ids.partial}`));
    const note = (to: string) => owner.getByRole('row', { name: new RegExp(to) }).locator('td').last().textContent();
    await expect.poll(() => note('later@nordlicht.test')).toBe('Retrying: 421 try again later');
    expect(await note('void@nordlicht.test')).toBe('Cancelled: the invoice was voided before delivery');
    expect(await note('nobody@nordlicht.test')).toBe('Gave up: 550 no such user');
  });

  it('an invoice whose e-mail gave up without reaching the client offers "Mark as sent", and stops looking again', async () => {
    const db = services.registry.get('bill')!.db;
    const at = new Date().toISOString();
    // The state a sending leaves when its only client message failed for good (the address refused).
    const client = db.select({ id: invoices.clientId }).from(invoices).where(eq(invoices.id, ids.partial)).get()!;
    const stuck = crypto.randomUUID();
    const template = db.select().from(invoices).where(eq(invoices.id, ids.partial)).get()!;
    db.insert(invoices)
      .values({ ...template, id: stuck, clientId: client.id, number: 'INV-0099', status: 'sending', sentAt: null, paidAt: null, publicToken: crypto.randomUUID().replace(/-/g, ''), createdAt: at, updatedAt: at })
      .run();
    db.insert(outbox)
      .values({ id: crypto.randomUUID(), kind: 'invoice', invoiceId: stuck, toAddress: 'nobody@nordlicht.test', subject: 'Invoice INV-0099', text: 'x', status: 'failed', attempts: 8, nextAttemptAt: at, lastError: '550 no such user', messageId: `<${crypto.randomUUID()}@bill.test>`, createdAt: at })
      .run();
    const views: string[] = [];
    owner.on('request', (r) => r.url().includes('invoices.view') && views.push(r.url()));
    await owner.goto(app(`/invoicing/${stuck}`));
    await owner.getByRole('button', { name: 'Mark as sent' }).waitFor();
    // Nothing pending: the page does not poll an invoice that will not settle by itself.
    await owner.waitForTimeout(4000);
    expect(views.length).toBe(1);
    await owner.getByRole('button', { name: 'Mark as sent' }).click();
    await expect.poll(() => db.select({ status: invoices.status }).from(invoices).where(eq(invoices.id, stuck)).get()!.status).toBe('sent');
    await owner.getByRole('button', { name: 'Mark as sent' }).waitFor({ state: 'detached' });
  });

  it('a Member can open none of these pages nor call their procedures', async () => {
    for (const path of [`/invoicing/${ids.partial}`, `/invoicing/${ids.draft}/edit`, '/settings', '/settings/webhooks']) {
      await member.goto(app(path));
      await member.getByRole('heading', { name: 'No access' }).waitFor();
    }
    const status = (path: string, input: unknown, post: boolean) =>
      member.evaluate(
        `fetch(${JSON.stringify(post ? `/trpc/${path}` : `/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`)}, ${JSON.stringify(
          post ? { method: 'POST', headers: { 'content-type': 'application/json', 'x-hourbook-csrf': '1' }, body: JSON.stringify(input) } : {},
        )}).then((r) => r.status)`,
      );
    for (const [path, input] of [
      ['invoices.view', { invoice_id: ids.partial }],
      ['invoices.payments', { invoice_id: ids.partial }],
      ['workspace.settings', {}],
      ['workspace.identity', {}],
      ['workspace.paymentProcessor', {}],
      ['webhooks.overview', {}],
    ] as const) {
      expect(await status(path, input, false), path).toBe(403);
    }
    for (const [path, input] of [
      ['invoices.recordPayment', { invoice_id: ids.overdue, amount: 1, method: 'cash' }],
      ['invoices.update', { invoice_id: ids.draft, notes: 'mine' }],
      ['invoices.void', { invoice_id: ids.partial }],
      ['workspace.updateIdentity', { legal_name: 'Taken over' }],
      ['webhooks.create', { url: 'https://evil.test/hook' }],
    ] as const) {
      expect(await status(path, input, true), path).toBe(403);
    }
  });

  it('looked at every new page', () => {
    expect(checked).toEqual(
      expect.arrayContaining(['invoices', 'invoice-sent', 'invoice-record-payment', 'invoice-partially-paid', 'invoice-paid', 'invoice-draft', 'invoice-edit', 'invoice-send', 'invoice-void', 'credit-note', 'settings', 'webhooks', 'webhook-add']),
    );
  });
});
