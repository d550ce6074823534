import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issuePasswordLink } from '../src/domain/accounts/links.ts';
import { provisionWorkspace } from '../src/domain/workspace/provision.ts';
import type { AppServices } from '../src/services.ts';
import { prepareApp } from './helpers/app-server.ts';
import { checkPage, hasChromium, launchChromium, nav, NO_CHROMIUM, overflowX, PHONE, SCREENSHOTS, screenshots, signInByLink } from './helpers/browser.ts';
import { scopeOf } from './helpers/env.ts';
import { makeMember, makeProject, makeProjectSetup, makeProjectUser, makeTask, makeTimeEntry } from './helpers/factories.ts';

/**
 * What a review of the staff app found, each checked in real Chromium against a real server: a page
 * whose code fails to download says so with a Reload button (not a blank app); the timer and the
 * week grid leave archived tasks alone; locked days and rejected time read as such in the week
 * grid; saving offline says the server could not be reached; the invoice preview puts a refused
 * field's message beside the field in words, describes time lines as the saved invoice does, and a
 * long URL in a line does not widen a phone's page. Screenshots into SHOTS_DIR (default
 * test-results/screenshots/fixes).
 */

if (!hasChromium) console.log(NO_CHROMIUM);

const SHOTS = process.env.SHOTS_DIR ?? join(SCREENSHOTS, 'fixes');
const OWNER = 'otto@fix.test';
const NOTES = 'Fixed the importer';
const LONG_URL = 'Hosting per https://status.example.com/incidents/2026-11-frankfurt-datacenter-outage-postmortem-and-credits';

let prepared: Awaited<ReturnType<typeof prepareApp>>;
let port: number;
let services: AppServices;
let browser: Browser;
let setup: ReturnType<typeof makeProjectSetup>;
let archived: ReturnType<typeof makeTask>;
let lee: ReturnType<typeof makeMember>;
/** Wednesday of last week (all its days past, so a project locking at the end of each day has them all locked). */
let lastWeek: string;

const app = (path = '') => `http://fix.localhost:${port}${path}`;
const look = (page: Page, name: string) => checkPage(page, name, { dir: SHOTS });
const db = () => services.registry.get('fix')!.db;
const signIn = (email: string) => signInByLink(browser, issuePasswordLink(scopeOf(services, services.registry.get('fix')!), { email }).link);
const isoDay = (d: Date) => d.toISOString().slice(0, 10);
const gridRow = (page: Page, label: string) => page.locator('table.week-grid tbody tr', { has: page.getByRole('rowheader', { name: label, exact: true }) });

describe.skipIf(!hasChromium)('fixes from the review of the staff app, in Chromium', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    prepared = await prepareApp('fix.test');
    ({ port } = prepared);
    ({ services } = await prepared.start());
    provisionWorkspace(services.registry, { subdomain: 'fix', timeZone: 'UTC', owner: { email: OWNER, firstName: 'Otto', lastName: 'Owner' } }, new Date());
    setup = makeProjectSetup(db(), { member: { email: 'mia@fix.test', firstName: 'Mia', lastName: 'Member' }, project: { name: 'Website' } });
    const refs = { clientId: setup.client.id, projectId: setup.project.id, taskId: setup.task.id, userId: setup.member.id };
    // The project's first task, archived: neither the timer nor the grid may offer it.
    archived = makeTask(db(), setup.project.id, { name: 'Discovery', archived: true, position: -1 });
    // Wednesday of last week, and Thursday: in the same week whether weeks start on Sunday or Monday.
    const today = new Date();
    lastWeek = isoDay(new Date(today.getTime() - (((today.getUTCDay() + 6) % 7) + 7 - 2) * 86_400_000));
    const dayAfter = isoDay(new Date(Date.parse(lastWeek) + 86_400_000));
    makeTimeEntry(db(), { ...refs, taskId: archived.id }, { recordedOn: lastWeek, status: 'pending_approval' });
    makeTimeEntry(db(), refs, { recordedOn: lastWeek, notes: NOTES });
    // A project that locks each day once it is over: all of last week is locked.
    // Lee is on it (and on Website, where the rejected time is his too).
    const lockedProject = makeProject(db(), setup.client.id, { name: 'Retainer', autolockEnabled: true, lockEndOfDay: true });
    const lockedTask = makeTask(db(), lockedProject.id, { name: 'Support' });
    lee = makeMember(db(), { email: 'lee@fix.test', firstName: 'Lee', lastName: 'Member' });
    makeProjectUser(db(), lockedProject.id, lee.id);
    makeProjectUser(db(), setup.project.id, lee.id);
    makeTimeEntry(db(), { clientId: setup.client.id, projectId: lockedProject.id, taskId: lockedTask.id, userId: lee.id }, { recordedOn: lastWeek, status: 'pending_approval' });
    makeTimeEntry(db(), { ...refs, userId: lee.id }, { recordedOn: dayAfter, status: 'rejected', seconds: 5400, enteredSeconds: 5400 });
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await prepared?.close();
  });

  it('a page whose code fails to download shows a message and a Reload button, not a blank app', async () => {
    const page = await signIn(OWNER);
    // As after an upgrade: the files of the version this tab loaded are gone.
    await page.route(/\/assets\/.*\.js$/, (r) => r.fulfill({ status: 404, body: 'not found' }));
    await nav(page, 'Invoices');
    await page.getByRole('heading', { name: 'This page could not be loaded' }).waitFor();
    await page.getByText('hourbook was updated since you opened it, or the connection dropped').waitFor();
    await look(page, 'chunk-failed');
    await page.unroute(/\/assets\/.*\.js$/);
    await page.getByRole('button', { name: 'Reload' }).click();
    await page.getByRole('heading', { name: 'Invoices' }).waitFor();
    await page.context().close();
  });

  it('the timer starts on the first task that is not archived; the week grid offers no "+" for an archived task', async () => {
    const page = await signIn(setup.member.email);
    // Her only project is preset, and its first task that takes time, without choosing anything.
    await page.getByText('Start a timer').click();
    expect(await page.getByLabel('Project').inputValue()).toBe(setup.project.id);
    expect(await page.getByLabel('Task').inputValue()).toBe(setup.task.id);
    expect(await page.getByLabel('Task').locator('option', { hasText: 'Discovery' }).count()).toBe(0);

    await page.goto(app(`/timesheet?week=${lastWeek}`));
    const open = gridRow(page, `Website · ${setup.task.name}`);
    await open.waitFor();
    expect(await open.locator('button.cell-add').count()).toBeGreaterThan(0);
    expect(await gridRow(page, 'Website · Discovery').locator('button.cell-add').count()).toBe(0);
    await page.context().close();
  });

  it('the week grid marks locked days with a drawn padlock and the word, and shows rejected time struck through as rejected', async () => {
    const page = await signIn(lee.email);
    await page.goto(app(`/timesheet?week=${lastWeek}`));
    const locked = gridRow(page, 'Retainer · Support');
    await locked.waitFor();
    const cells = locked.locator('td.locked');
    expect(await cells.count()).toBe(7);
    for (const text of await cells.allTextContents()) {
      expect(text).not.toContain('🔒');
      expect(text).toContain('locked');
    }
    expect(await cells.locator('svg.lock-icon').count()).toBe(7);
    expect(await cells.first().locator('[title="Locked"]').count()).toBe(1);

    const row = gridRow(page, `Website · ${setup.task.name}`);
    const rejected = row.locator('.cell-rejected');
    await expect.poll(() => rejected.count()).toBe(1);
    expect(await rejected.innerText()).toMatch(/^1:30\s+Rejected$/);
    expect(await rejected.locator('s').textContent()).toBe('1:30');
    expect(await rejected.getAttribute('title')).toBe('1:30 h rejected: not counted');
    // Its cell says nothing else: not a "0:00" beside it.
    expect(await rejected.locator('xpath=..').innerText()).not.toContain('0:00');
    await look(page, 'week-grid-locked-rejected');
    await page.context().close();
  });

  it('saving offline says the server could not be reached, and the button can be pressed again', async () => {
    const page = await signIn(setup.member.email);
    await page.getByRole('button', { name: /^Add time on / }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Hours').fill('1');
    await page.context().setOffline(true);
    await dialog.getByRole('button', { name: 'Add time' }).click();
    await dialog.getByText('The server could not be reached; check your connection and try again').waitFor({ timeout: 5000 });
    expect(await dialog.getByRole('button', { name: 'Add time' }).isDisabled()).toBe(false);
    await screenshots(page, 'offline-add', { dir: SHOTS });
    await page.context().setOffline(false);
    await dialog.getByRole('button', { name: 'Add time' }).click();
    await page.getByText('Time entry added').waitFor();
    await page.context().close();
  });

  it('focus never drops to the page body: a refused form puts it on the invalid field, a page chosen from the phone menu on the page', async () => {
    const page = await signIn(setup.member.email);
    await page.getByRole('button', { name: /^Add time on / }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Hours').fill('xyz');
    // Sent from the button by keyboard: the button is disabled while the call runs.
    await dialog.getByRole('button', { name: 'Add time' }).press('Enter');
    await dialog.getByText(/Not a number of hours/).waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-invalid'))).toBe('true');
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).value)).toBe('xyz');
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    await page.setViewportSize(PHONE);
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Reports' }).click();
    await page.waitForURL(/\/reports/);
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('main');
    await page.context().close();
  });

  it("the invoice preview describes a time line with its notes, as the saved invoice does", async () => {
    const page = await signIn(OWNER);
    await page.goto(app(`/invoicing/new?client=${setup.client.id}`));
    await page.getByRole('checkbox', { name: new RegExp(NOTES) }).check();
    const preview = page.getByRole('region', { name: 'Preview' });
    await preview.getByRole('row', { name: /Total/ }).waitFor();
    await preview.getByRole('cell', { name: new RegExp(` — ${NOTES}$`) }).waitFor();
    await look(page, 'invoice-preview-notes');
    await page.context().close();
  });

  it('the invoice preview says a refused tax percentage beside the field, in words; a long URL in a line does not widen a phone', async () => {
    const page = await signIn(OWNER);
    await page.goto(app(`/invoicing/new?client=${setup.client.id}`));
    await page.getByLabel('Service lines').check();
    await page.getByLabel('Description 1').fill(LONG_URL);
    await page.getByLabel(/Unit price/).fill('100');
    const preview = page.getByRole('region', { name: 'Preview' });
    await preview.getByRole('cell', { name: LONG_URL }).waitFor();
    await page.setViewportSize(PHONE);
    await page.waitForTimeout(100);
    expect(await overflowX(page)).toBeLessThanOrEqual(0);
    await look(page, 'invoice-preview-long-url');

    await page.getByRole('button', { name: 'Add a tax' }).click();
    await page.getByLabel('Percent').fill('150');
    const percent = page.locator('.field', { has: page.getByLabel('Percent', { exact: true }) });
    await percent.locator('.error').getByText('Must be between 0 and 100').waitFor();
    await preview.getByText('Correct the marked field above to see the preview').waitFor();
    expect(await page.getByLabel('Percent').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('main').innerText()).not.toContain('tax_details');
    await look(page, 'invoice-preview-tax-refused');
    await page.getByLabel('Percent').fill('19');
    await preview.getByRole('row', { name: /VAT \(19 %\)/ }).waitFor();
    expect(await percent.locator('.error').count()).toBe(0);
    await page.context().close();
  });
});
