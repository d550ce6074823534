import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import pino from 'pino';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { issuePasswordLink } from '../src/domain/accounts/links.ts';
import { addDays, localDate } from '../src/domain/time/calendar.ts';
import { provisionWorkspace } from '../src/domain/workspace/provision.ts';
import { startServer, type RunningServer } from '../src/server.ts';
import { createServices, type AppServices } from '../src/services.ts';
import { checkPage, DESKTOP, hasChromium, launchChromium, nav, NO_CHROMIUM } from './helpers/browser.ts';
import { callerFor, scopeOf } from './helpers/env.ts';
import { seedAgency } from './helpers/report-factories.ts';
import { BrowserSession, tokenOf } from './helpers/session.ts';
import { freePort } from './helpers/ports.ts';

/** Checks a page (axe, phone width), photographs it and notes its name. */
async function look(page: Page, name: string, seen: string[]): Promise<void> {
  await checkPage(page, name);
  seen.push(name);
}

/**
 * The report screens in real Chromium against a real server and workspace file holding ten weeks
 * of an agency's work: the time report (period, grouping, filters, totals as the procedure gives
 * them, the weekly chart and its table, the CSV), unbilled work turned into an invoice in one click,
 * receivables, and what a Member may see. Every page is checked with axe-core, for sideways
 * scrolling at 390 px, and photographed (SCREENSHOTS_DIR=/tmp/shots-reports to keep them apart).
 */

if (!hasChromium) console.log(NO_CHROMIUM);

const ZONE = 'Europe/Berlin';
let dataDir: string;
let port: number;
let services: AppServices;
let server: RunningServer;
let browser: Browser;
let owner: Page;
let member: Page;
let today: string;
let data: ReturnType<typeof seedAgency>;
let caller: ReturnType<typeof callerFor>;
const seen: string[] = [];

const app = () => `http://agency.localhost:${port}`;
/** As the app shows hours (H:MM) and money (in the workspace's locale, en-US). */
const hm = (hours: number) => {
  const minutes = Math.round(hours * 60);
  return `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, '0')}`;
};
const money = (amount: number, currency: string) => new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(amount);
const csvRows = (text: string) => parse(text, { bom: true, columns: true }) as Record<string, string>[];

/** A page of a fresh browser signed in as `email` (a password set from a one-time link, as people do). */
async function signedInPage(email: string): Promise<Page> {
  const session = new BrowserSession(`http://127.0.0.1:${port}`, `agency.localhost:${port}`);
  const token = tokenOf(issuePasswordLink(scopeOf(services, services.registry.get('agency')!), { email }).link);
  expect((await session.mutate('auth.setPassword', { token, password: 'a long test password' })).status).toBe(200);
  // en-GB: the app must format in the workspace's locale (en-US), not the browser's.
  const context = await browser.newContext({ viewport: DESKTOP, locale: 'en-GB', bypassCSP: true, acceptDownloads: true });
  const [name, value] = session.cookie!.split('=') as [string, string];
  await context.addCookies([{ name, value, domain: 'agency.localhost', path: '/', httpOnly: true, sameSite: 'Lax' }]);
  return context.newPage();
}

/** The value beside a term of the page's totals. */
const total = (page: Page, term: string): Locator =>
  page.getByRole('region', { name: 'Totals' }).locator('div', { has: page.locator('dt', { hasText: new RegExp(`^${term}$`) }) }).locator('dd');

/** The CSV behind a download link, as the browser saved it. */
async function downloaded(page: Page, link: Locator): Promise<{ name: string; rows: Record<string, string>[] }> {
  const download = page.waitForEvent('download');
  await link.click();
  const file = await download;
  return { name: file.suggestedFilename(), rows: csvRows(readFileSync((await file.path())!, 'utf8')) };
}

describe.skipIf(!hasChromium)('the report screens in Chromium', { timeout: 180_000 }, () => {
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'hourbook-web-reports-'));
    port = await freePort();
    services = createServices(loadConfig({ DATA_DIR: dataDir, PORT: String(port), PUBLIC_URL: `http://{subdomain}.localhost:${port}`, LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '0' }), {
      logger: pino({ level: 'silent' }),
    });
    server = await startServer(services, { port, host: '127.0.0.1', jobs: false });
    const created = provisionWorkspace(services.registry, { subdomain: 'agency', timeZone: ZONE, owner: { email: 'olga@agency.test', firstName: 'Olga', lastName: 'Owner' } }, new Date());
    today = localDate(new Date(), ZONE);
    data = seedAgency(services.registry.get('agency')!.db, created.owner.id, today);
    caller = callerFor(services, 'agency', created.apiKey);
    browser = await launchChromium();
    owner = await signedInPage('olga@agency.test');
    member = await signedInPage(data.mia.email);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('an Owner changes range and grouping and sees the totals the procedure gives', async () => {
    await owner.goto(`${app()}/timesheet`);
    await nav(owner, 'Reports');
    await owner.getByRole('heading', { name: 'Time report', level: 1 }).waitFor();
    // This month by client and project, unless told otherwise.
    const monthStart = `${today.slice(0, 8)}01`;
    const thisMonth = await caller.reports.time({ from: monthStart, to: addDays(`${addDays(monthStart, 32).slice(0, 8)}01`, -1), by: ['client', 'project'] });
    await expect.poll(() => total(owner, 'Hours').textContent()).toBe(hm(thisMonth.totals.hours));

    await owner.getByLabel('Period').selectOption('last-month');
    await owner.getByLabel('Group by', { exact: true }).selectOption('person');
    await owner.getByLabel('Then by').selectOption('');
    await expect.poll(() => new URL(owner.url()).search).toBe('?period=last-month&by=person');
    const lastStart = `${addDays(monthStart, -1).slice(0, 8)}01`;
    const lastMonth = await caller.reports.time({ from: lastStart, to: addDays(monthStart, -1), by: ['person'] });
    await expect.poll(() => total(owner, 'Hours').textContent()).toBe(hm(lastMonth.totals.hours));
    const table = owner.getByRole('table', { name: /^Time .* by person$/ });
    await expect.poll(() => table.locator('tbody tr').count()).toBe(lastMonth.rows.length);
    for (const row of lastMonth.rows) {
      await expect.poll(() => table.getByRole('row', { name: row.keys[0]!.label }).locator('td').nth(1).textContent()).toBe(hm(row.hours));
    }
    const amounts = lastMonth.totals.amounts.map((a) => money(a.billable_amount, a.currency));
    expect(amounts.length).toBeGreaterThan(1);
    await expect.poll(() => total(owner, 'Billable amount').locator('.amounts > span').allTextContents()).toEqual(amounts);

    // Ten weeks by week: the chart draws them and its table lists them.
    const from = addDays(today, -((new Date(`${today}T00:00:00Z`).getUTCDay() + 6) % 7) - 63);
    await owner.getByLabel('From', { exact: true }).fill(from);
    await owner.getByLabel('To', { exact: true }).fill(today);
    await owner.getByLabel('Group by', { exact: true }).selectOption('week');
    const weekly = await caller.reports.time({ from, to: today, by: ['week'] });
    await expect.poll(() => total(owner, 'Hours').textContent()).toBe(hm(weekly.totals.hours));
    const chart = owner.getByRole('img', { name: /^Bar chart of hours per week/ });
    await chart.locator('canvas').waitFor();
    const box = await chart.locator('canvas').boundingBox();
    expect(box!.width).toBeGreaterThan(300);
    expect(box!.height).toBeGreaterThan(150);
    await owner.getByText('Show the hours per week as a table').click();
    const weeksTable = owner.getByRole('table', { name: 'Hours per week' });
    await expect.poll(() => weeksTable.locator('tbody tr').count()).toBe(10);
    expect(weekly.rows).toHaveLength(10);
    const shown = await weeksTable.locator('tbody tr td:nth-child(2)').allTextContents();
    expect(shown).toEqual(weekly.rows.map((r) => hm(r.hours)));
    await look(owner, 'reports-time', seen);
  });

  it('the filters narrow the report, and its CSV download holds the same rows', async () => {
    const from = addDays(today, -70);
    await owner.goto(`${app()}/reports?period=custom&from=${from}&to=${today}&by=week`);
    await owner.getByText('All clients').click();
    await owner.getByRole('checkbox', { name: 'Café Müller' }).check();
    // The list closes like a menu, focus back on its button.
    await owner.keyboard.press('Escape');
    await expect.poll(() => owner.getByRole('checkbox', { name: 'Acme Corp' }).isVisible()).toBe(false);
    expect(await owner.evaluate('document.activeElement.textContent')).toBe('Clients: Café Müller');
    await owner.getByLabel('Billable', { exact: true }).selectOption('true');
    const report = await caller.reports.time({ from, to: today, by: ['week'], client_ids: [data.cafe.id], billable: true });
    await expect.poll(() => total(owner, 'Hours').textContent()).toBe(hm(report.totals.hours));
    expect(report.totals.hours).toBeGreaterThan(0);
    await look(owner, 'reports-time-filtered', seen);

    const csv = await downloaded(owner, owner.getByRole('link', { name: 'Download CSV' }));
    expect(csv.name).toBe(`hourbook-agency-time-${from}_${today}.csv`);
    expect(csv.rows.map((r) => [r.week, Number(r.hours)])).toEqual(report.rows.map((r) => [r.keys[0]!.id, r.hours]));
    const entries = await downloaded(owner, owner.getByRole('link', { name: 'Entries as CSV' }));
    expect(new Set(entries.rows.map((r) => r.client))).toEqual(new Set(['Café Müller']));
    expect(entries.rows).toHaveLength(report.totals.entries);
  });

  it('from unbilled work, one click starts the invoice of exactly those entries; once created they are gone', async () => {
    await owner.goto(`${app()}/reports`);
    await owner.getByRole('navigation', { name: 'Reports' }).getByRole('link', { name: 'Unbilled work' }).click();
    await owner.getByRole('heading', { name: 'Unbilled work', level: 1 }).waitFor();
    const unbilled = await caller.reports.unbilled({});
    await expect.poll(() => total(owner, 'To invoice').locator('.amounts > span').allTextContents()).toEqual(unbilled.totals.map((t) => money(t.amount, t.currency)));
    await look(owner, 'reports-unbilled', seen);

    const cafe = owner.getByRole('region', { name: 'Café Müller' });
    const draft = await caller.reports.invoiceDraft({ client_id: data.cafe.id, project_ids: [data.seo.id] });
    await cafe.getByRole('link', { name: 'Invoice this project (SEO)' }).click();
    await owner.getByRole('heading', { name: 'New invoice for Café Müller' }).waitFor();
    const picks = owner.locator('ul.entries.pick input[type=checkbox]');
    await expect.poll(() => picks.count()).toBeGreaterThan(draft.entries);
    const picked = await owner.locator('ul.entries.pick li', { has: owner.locator('input:checked') }).allTextContents();
    expect(picked).toHaveLength(draft.entries);
    expect(picked.every((text) => text.includes('· SEO ·'))).toBe(true);
    const preview = owner.getByRole('region', { name: 'Preview' });
    await preview.getByRole('row', { name: /Total/ }).getByText(money(draft.amount, 'EUR')).waitFor();
    await look(owner, 'invoice-new-from-unbilled', seen);
    await owner.getByRole('button', { name: `Create invoice · ${money(draft.amount, 'EUR')}` }).click();
    await owner.getByRole('heading', { name: /^Invoice INV-/ }).waitFor();

    await nav(owner, 'Reports');
    await owner.getByRole('navigation', { name: 'Reports' }).getByRole('link', { name: 'Unbilled work' }).click();
    // The list may show what it had cached until its refetch answers.
    await expect.poll(() => cafe.getByRole('cell', { name: 'SEO', exact: true }).count()).toBe(0);
    await cafe.getByRole('cell', { name: 'Relaunch', exact: true }).waitFor();
    expect((await caller.reports.unbilled({})).rows.filter((r) => r.project.id === data.seo.id)).toEqual([]);

    // A client with one line: its button bills all of it.
    const north = await caller.reports.invoiceDraft({ client_id: data.north.id });
    await owner.getByRole('region', { name: 'Northwind Traders' }).getByRole('link', { name: /^Start an invoice/ }).click();
    await owner.getByRole('heading', { name: 'New invoice for Northwind Traders' }).waitFor();
    await owner.getByRole('button', { name: `Create invoice · ${money(north.amount, 'GBP')}` }).click();
    await owner.getByRole('heading', { name: /^Invoice INV-/ }).waitFor();
    // Back to the composer: the draft was billed, so it says there is nothing left, and no longer that its entries are selected.
    await owner.goBack();
    await owner.getByRole('alert').filter({ hasText: /no unbilled time/ }).waitFor();
    expect(await owner.getByText('From unbilled work:').count()).toBe(0);
    await owner.goto(`${app()}/reports/unbilled`);
    await owner.getByRole('region', { name: 'Acme Corp' }).waitFor();
    expect(await owner.getByRole('region', { name: 'Northwind Traders' }).count()).toBe(0);
  });

  it('receivables: balances by age and client, the overdue total, links to the invoices', async () => {
    await owner.goto(`${app()}/reports`);
    await owner.getByRole('navigation', { name: 'Reports' }).getByRole('link', { name: 'Receivables' }).click();
    await owner.getByRole('heading', { name: 'Receivables', level: 1 }).waitFor();
    const report = await caller.reports.receivables({});
    await expect.poll(() => total(owner, 'Overdue').locator('.amounts > span').allTextContents()).toEqual(report.totals.map((t) => money(t.overdue, t.currency)));
    const acme = report.clients.find((c) => c.client.name === 'Acme Corp')!;
    expect(acme.over_90).toBeGreaterThan(0);
    const acmeRow = owner.getByRole('table', { name: 'Open balances by client and age' }).getByRole('row', { name: /^Acme Corp/ });
    await expect.poll(() => acmeRow.locator('td').nth(5).textContent()).toBe(money(acme.over_90, 'USD'));
    await look(owner, 'reports-receivables', seen);
    const csv = await downloaded(owner, owner.getByRole('link', { name: 'Download CSV' }));
    expect(csv.rows.map((r) => r.number)).toEqual(report.invoices.map((i) => i.number));
    await owner.getByRole('link', { name: 'INV-0003' }).click();
    await owner.getByRole('heading', { name: 'Invoice INV-0003' }).waitFor();
  });

  it('a Member sees only their own time and cannot open unbilled work or receivables', async () => {
    await member.goto(`${app()}/timesheet`);
    await nav(member, 'Reports');
    await member.getByRole('heading', { name: 'Time report', level: 1 }).waitFor();
    expect(await member.getByRole('navigation', { name: 'Reports' }).count()).toBe(0);
    expect(await member.getByText('Everyone').count()).toBe(0);
    const from = addDays(today, -70);
    await member.goto(`${app()}/reports?period=custom&from=${from}&to=${today}&by=person`);
    const own = await caller.reports.time({ email: data.mia.email, from, to: today, by: ['person'] });
    expect(own.rows.map((r) => r.keys[0]!.label)).toEqual(['Mia Member']);
    await expect.poll(() => total(member, 'Hours').textContent()).toBe(hm(own.totals.hours));
    await expect.poll(() => member.getByRole('table', { name: /by person$/ }).locator('tbody tr').allTextContents()).toEqual([expect.stringContaining('Mia Member')]);
    await look(member, 'reports-time-member', seen);
    const entries = await downloaded(member, member.getByRole('link', { name: 'Entries as CSV' }));
    expect(entries.rows.length).toBe(own.totals.entries);
    expect(new Set(entries.rows.map((r) => r.person))).toEqual(new Set(['Mia Member']));

    for (const path of ['/reports/receivables', '/reports/unbilled']) {
      await member.goto(`${app()}${path}`);
      await member.getByRole('heading', { name: 'No access' }).waitFor();
    }
    const status = await member.evaluate(`fetch('/api/exports/receivables.csv').then((r) => r.status)`);
    expect(status).toBe(403);
  });

  it('looked at every new page', () => {
    expect(seen).toEqual(expect.arrayContaining(['reports-time', 'reports-time-filtered', 'reports-unbilled', 'invoice-new-from-unbilled', 'reports-receivables', 'reports-time-member']));
  });
});
