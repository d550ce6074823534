import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issuePasswordLink } from '../src/domain/accounts/links.ts';
import { workspace } from '../src/db/schema/index.ts';
import type { AppServices } from '../src/services.ts';
import { startBrowserSuite } from './helpers/app-server.ts';
import { checkPage, hasChromium, NO_CHROMIUM, PHONE, SCREENSHOTS } from './helpers/browser.ts';
import { callerFor, scopeOf } from './helpers/env.ts';
import { makeClient, makeProjectSetup, makeRecipient } from './helpers/factories.ts';

/**
 * What people meet around the edges, in real Chromium against a real server: focus goes back to
 * the opener when a dialog closes (Escape, Cancel, ×), Escape closes the phone menu, a new invoice
 * is dated today in the workspace's zone (not the browser's), a credit note has no due date in the
 * list, a void invoice's payments cannot be deleted, and the server's API wording (hours "as a
 * string", an unformatted balance) is said in people's words. axe-core and 390 px on every screen;
 * screenshots into SHOTS_DIR (default test-results/screenshots/polish).
 */

if (!hasChromium) console.log(NO_CHROMIUM);

const SHOTS = process.env.SHOTS_DIR ?? join(SCREENSHOTS, 'polish');
const DESKTOP_SHOT = { width: 1280, height: 800 };
const OWNER = 'pia@polish.test';
// A day apart at every moment (UTC+14 and UTC−11): "today" in the browser is never the workspace's.
const WORKSPACE_ZONE = 'Pacific/Kiritimati';
const BROWSER_ZONE = 'Pacific/Pago_Pago';

let suite: Awaited<ReturnType<typeof startBrowserSuite>>;
let port: number;
let services: AppServices;
let browser: Browser;
let owner: Page;
let caller: ReturnType<typeof callerFor>;
let setup: ReturnType<typeof makeProjectSetup>;
const seeded = { client: '', open: '', voided: '', creditNote: '' };

const app = (path = '') => `http://polish.localhost:${port}${path}`;
const look = (page: Page, name: string) => checkPage(page, name, { dir: SHOTS, desktop: DESKTOP_SHOT });
const todayIn = (timeZone: string) => new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
/** What has focus: its accessible name as the tests look for it (aria-label, else its text), or the tag. */
const focused = (page: Page) => page.evaluate('document.activeElement === document.body ? "<body>" : (document.activeElement?.getAttribute("aria-label") || document.activeElement?.textContent?.trim())') as Promise<string>;
const fieldError = (page: Page, label: string) => page.locator('.field', { has: page.getByLabel(label, { exact: true }) }).locator('.error');

/** Signed in through a set-password link in a browser whose clock is in BROWSER_ZONE. */
async function signIn(email: string): Promise<Page> {
  const context = await browser.newContext({ viewport: DESKTOP_SHOT, locale: 'en-US', timezoneId: BROWSER_ZONE, bypassCSP: true });
  const page = await context.newPage();
  page.on('dialog', (d) => void d.accept());
  await page.goto(issuePasswordLink(scopeOf(services, services.registry.get('polish')!), { email }).link);
  await page.getByLabel('New password').fill('a long password for tests');
  await page.getByLabel('Repeat the password').fill('a long password for tests');
  await page.getByRole('button', { name: 'Save password and sign in' }).click();
  await page.getByRole('heading', { name: 'Timesheet' }).waitFor();
  return page;
}

async function seed(apiKey: string) {
  caller = callerFor(services, 'polish', apiKey);
  const db = services.registry.get('polish')!.db;
  setup = makeProjectSetup(db, { member: { email: 'mo@polish.test', firstName: 'Mo', lastName: 'Member' } });
  const client = makeClient(db, { name: 'Kestrel Books', currency: 'GBP' });
  seeded.client = client.id;
  makeRecipient(db, client.id, { name: 'Kit Accounts', email: 'kit@kestrel.test' });
  const make = async (number: string) => {
    const { invoice } = await caller.invoices.create({ email: OWNER, client_id: client.id, number, total: 412, invoice_services: [{ notes: 'Typesetting', unit_amount: 412 }] });
    await caller.invoices.markSent({ email: OWNER, invoice_id: invoice.id });
    return invoice.id;
  };
  seeded.open = await make('KB-001');
  seeded.voided = await make('KB-002');
  await caller.invoices.recordPayment({ email: OWNER, invoice_id: seeded.voided, amount: 100, method: 'bank_transfer', reference: 'Part paid before the cancellation' });
  const voided = await caller.invoices.void({ email: OWNER, invoice_id: seeded.voided, reason: 'Ordered twice' });
  seeded.creditNote = voided.credit_note!.number;
}

describe.skipIf(!hasChromium)('focus, the phone menu, business dates and messages for people in Chromium', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    suite = await startBrowserSuite('polish.test', { subdomain: 'polish', timeZone: WORKSPACE_ZONE, owner: { email: OWNER, firstName: 'Pia', lastName: 'Owner' } });
    ({ port, services, browser } = suite);
    await seed(suite.apiKey);
    owner = await signIn(OWNER);
  }, 120_000);

  afterAll(() => suite?.close());

  it('returns focus to the opener when the time dialog closes by Escape, Cancel or ×, and says how to write hours', async () => {
    const page = await signIn(setup.member.email);
    const opener = page.getByRole('button', { name: /^Add time on / }).first();
    const name = (await opener.getAttribute('aria-label'))!;
    const dialog = page.getByRole('dialog', { name: 'Add time' });
    for (const close of ['Escape', 'Cancel', 'Close'] as const) {
      await opener.focus();
      await page.keyboard.press('Enter');
      await dialog.waitFor();
      if (close === 'Escape') await page.keyboard.press('Escape');
      else await dialog.getByRole('button', { name: close, exact: true }).click();
      await dialog.waitFor({ state: 'detached' });
      expect(await focused(page), `after ${close}`).toBe(name);
    }

    // Hours the server cannot read: said as a person would, not in the API's words.
    await opener.focus();
    await page.keyboard.press('Enter');
    await dialog.getByLabel('Hours').fill('abc');
    await dialog.getByRole('button', { name: 'Add time', exact: true }).click();
    await fieldError(page, 'Hours').getByText('Not a number of hours: write it as 1.5, 0.25 or 1:30').waitFor();
    expect(await dialog.textContent()).not.toContain('as a string');
    await look(page, 'time-hours-refused');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await focused(page)).toBe(name);

    // Deleting an entry removes the Edit button that opened the dialog: focus goes to its day.
    await opener.focus();
    await page.keyboard.press('Enter');
    await dialog.getByLabel('Hours').fill('0.5');
    await dialog.getByRole('button', { name: 'Add time', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: /^Edit 0:30 on / }).first().click();
    const edit = page.getByRole('dialog', { name: 'Edit time' });
    await edit.getByRole('button', { name: 'Delete', exact: true }).click();
    await edit.waitFor({ state: 'detached' });
    await page.waitForFunction(() => document.activeElement?.tagName === 'H2');
    expect(await page.evaluate(() => document.activeElement?.id)).toMatch(/^day-\d{4}-\d{2}-\d{2}$/);
    await page.context().close();
  });

  it('closes the phone menu on Escape and hands focus back to the Menu button', async () => {
    await owner.setViewportSize(PHONE);
    await owner.goto(app('/timesheet'));
    const menu = owner.getByRole('button', { name: 'Menu' });
    await menu.click();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    mkdirSync(SHOTS, { recursive: true });
    await owner.screenshot({ path: join(SHOTS, 'menu-open-phone.png') });
    await owner.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Invoices' }).focus();
    await owner.keyboard.press('Escape');
    await expect.poll(() => menu.getAttribute('aria-expanded')).toBe('false');
    expect(await owner.getByRole('navigation', { name: 'Main' }).isVisible()).toBe(false);
    expect(await focused(owner)).toBe('Menu');
    await owner.setViewportSize(DESKTOP_SHOT);
  });

  it("dates a new invoice today in the workspace's zone, not the browser's", async () => {
    const workspaceToday = todayIn(WORKSPACE_ZONE);
    expect(workspaceToday).not.toBe(todayIn(BROWSER_ZONE));
    await owner.goto(app(`/invoicing/new?client=${seeded.client}`));
    const issue = owner.getByLabel('Issue date');
    await expect.poll(() => issue.inputValue()).toBe(workspaceToday);
    await owner.getByLabel('Description 1').fill('Proofreading');
    await look(owner, 'invoice-new-workspace-today');
  });

  it("gives the workspace's start as the day in its own zone", async () => {
    // 12:00 UTC on Jan 30 is 02:00 on Jan 31 in Kiritimati (UTC+14).
    const db = services.registry.get('polish')!.db;
    const { id } = db.select({ id: workspace.id }).from(workspace).get()!;
    db.update(workspace).set({ createdAt: '2026-01-30T12:00:00.000Z' }).where(eq(workspace.id, id)).run();
    await owner.goto(app('/settings'));
    const since = owner.locator('.facts div', { has: owner.getByText('Since', { exact: true }) }).locator('dd');
    await expect.poll(() => since.textContent()).toBe('Jan 31, 2026');
  });

  it('says a payment above the balance in money, and returns focus from the Send dialog', async () => {
    await owner.goto(app(`/invoicing/${seeded.open}`));
    await owner.getByRole('heading', { name: 'Invoice KB-001' }).waitFor();
    await owner.getByRole('button', { name: 'Record a payment' }).click();
    const pay = owner.getByRole('dialog', { name: 'Record a payment on KB-001' });
    await pay.getByLabel('Amount (GBP)').fill('500.00');
    await pay.getByRole('button', { name: 'Record payment' }).click();
    await fieldError(owner, 'Amount (GBP)').getByText('More than the balance due, £412.00').waitFor();
    expect(await pay.textContent()).not.toMatch(/balance due, 412\b/);
    await look(owner, 'invoice-payment-above-balance');
    await pay.getByRole('button', { name: 'Cancel' }).click();
    await pay.waitFor({ state: 'detached' });
    expect(await focused(owner)).toBe('Record a payment');

    const again = owner.getByRole('button', { name: 'Send again' });
    const send = owner.getByRole('dialog', { name: 'Send again: KB-001' });
    await again.focus();
    await owner.keyboard.press('Enter');
    await send.waitFor();
    // None ticked: the refusal names what to do, not the API's send_email.
    await send.getByRole('checkbox', { name: /Kit Accounts/ }).uncheck();
    await send.getByRole('button', { name: 'Send again' }).click();
    await send.getByText('Choose at least one recipient').waitFor();
    await look(owner, 'invoice-send-no-recipient');
    await owner.keyboard.press('Escape');
    await send.waitFor({ state: 'detached' });
    expect(await focused(owner)).toBe('Send again');
  });

  it("keeps a void invoice's payments without Delete, and shows no due date for a credit note", async () => {
    await owner.goto(app(`/invoicing/${seeded.voided}`));
    await owner.getByRole('heading', { name: 'Invoice KB-002' }).waitFor();
    const payments = owner.getByRole('region', { name: 'Payments' });
    await payments.getByText('Part paid before the cancellation').waitFor();
    expect(await payments.getByRole('button', { name: /Delete/ }).count()).toBe(0);
    await look(owner, 'invoice-void-payments');

    await owner.goto(app('/invoicing'));
    const row = owner.locator('tr', { has: owner.getByRole('link', { name: seeded.creditNote, exact: true }) });
    await row.waitFor();
    expect(await row.locator('td[data-label="Due"]').textContent()).toBe('—');
    expect(await row.locator('td[data-label="Issued"]').textContent()).not.toBe('—');
    const invoiceRow = owner.locator('tr', { has: owner.getByRole('link', { name: 'KB-001', exact: true }) });
    expect(await invoiceRow.locator('td[data-label="Due"]').textContent()).not.toBe('—');
    await look(owner, 'invoices-credit-note-due');
  });
});
