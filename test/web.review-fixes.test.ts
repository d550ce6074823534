import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeys, teamMembers, timeEntries } from '../src/db/schema/index.ts';
import { issuePasswordLink } from '../src/domain/accounts/links.ts';
import type { AppServices } from '../src/services.ts';
import { startBrowserSuite } from './helpers/app-server.ts';
import { checkPage, confirmWithPassword, DESKTOP, hasChromium, NO_CHROMIUM, SCREENSHOTS, screenshots, signInByLink } from './helpers/browser.ts';
import { callerFor, scopeOf } from './helpers/env.ts';
import { makeClient, makeMember, makeProject, makeProjectUser, makeRecipient, makeTask, makeTimeEntry } from './helpers/factories.ts';

/**
 * What a review of the web app from a user's point of view found, each fixed and checked in real
 * Chromium against a real server: signing in returns to the page asked for (with its query
 * string), and signing out goes straight to the sign-in page; Approvals recovers from an
 * out-of-date list, naming the entry in words; saving one form of the project page keeps what is
 * typed in the others, and archiving a client keeps the unsaved details; "Sign out everywhere"
 * asks first, naming the personal keys it revokes; fixed-price time is explained and not offered
 * at 0, and an invoice of 0 is not sent with one click; field messages in plain words; the timer
 * starts empty after Stop; the timesheet's headings do not skip a level; API key dates are the
 * workspace's days; the draft editor takes an empty due date as the client's terms. Screenshots
 * into SHOTS_DIR (default test-results/screenshots/review).
 */

if (!hasChromium) console.log(NO_CHROMIUM);

const SHOTS = process.env.SHOTS_DIR ?? join(SCREENSHOTS, 'review');
const OWNER = 'olga@rev.test';
const PASSWORD = 'a long password for tests';
const ISSUE = '2026-11-02';

let suite: Awaited<ReturnType<typeof startBrowserSuite>>;
let port: number;
let services: AppServices;
let browser: Browser;
const data = {
  acme: '',
  initech: '',
  umbrella: '',
  website: '',
  grace: { id: '', email: 'grace@rev.test' },
  linus: { id: '', email: 'linus@rev.test' },
  pending: {} as Record<'kickoff' | 'wireframes' | 'review', string>,
  draft: '',
};

const app = (path = '') => `http://rev.localhost:${port}${path}`;
const look = (page: Page, name: string) => checkPage(page, name, { dir: SHOTS });
const db = () => services.registry.get('rev')!.db;
const signIn = (email: string) => signInByLink(browser, issuePasswordLink(scopeOf(services, services.registry.get('rev')!), { email }).link);
/** A browser context signed out, with no answer to confirm() prepared. */
const signedOut = async () => (await browser.newContext({ viewport: DESKTOP, locale: 'en-US', bypassCSP: true })).newPage();
const notice = (page: Page) => page.locator('.notice[role=status]');

/** Signs in on the sign-in page the app shows at `page`'s address. */
async function signInHere(page: Page, email: string) {
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

async function seed() {
  const caller = callerFor(services, 'rev', suite.apiKey);
  const grace = makeMember(db(), { email: data.grace.email, firstName: 'Grace', lastName: 'Hopper' });
  const linus = makeMember(db(), { email: data.linus.email, firstName: 'Linus', lastName: 'Member' });
  data.grace.id = grace.id;
  data.linus.id = linus.id;

  // An hourly client: two tasks, Grace's time awaiting approval, a draft invoice.
  const acme = makeClient(db(), { name: 'Acme GmbH', currency: 'EUR', defaultInvoiceDueInDays: 30 });
  data.acme = acme.id;
  // A client of its own for archiving (the other tests need Acme active).
  data.initech = makeClient(db(), { name: 'Initech AG', currency: 'EUR', fullAddress: 'Hauptstraße 1, Berlin' }).id;
  const website = makeProject(db(), acme.id, { name: 'Website', currency: 'EUR', enableApprovals: true });
  data.website = website.id;
  const design = makeTask(db(), website.id, { name: 'Design' });
  makeTask(db(), website.id, { name: 'Build' });
  makeProjectUser(db(), website.id, grace.id);
  makeProjectUser(db(), website.id, linus.id);
  const refs = { clientId: acme.id, projectId: website.id, taskId: design.id, userId: grace.id };
  for (const [key, notes, day] of [
    ['kickoff', 'Kickoff call', '2026-11-16'],
    ['wireframes', 'Wireframes', '2026-11-17'],
    ['review', 'Design review', '2026-11-18'],
  ] as const) {
    data.pending[key] = makeTimeEntry(db(), refs, { recordedOn: day, notes, status: 'pending_approval' }).id;
  }
  const { invoice } = await caller.invoices.create({ email: OWNER, client_id: acme.id, number: 'AC-001', total: 500, issue_date: ISSUE, due_date: '2026-11-09', invoice_services: [{ notes: 'Hosting', unit_amount: 500 }] });
  data.draft = invoice.id;

  // A client whose only unbilled time is on a fixed-price project, with a recipient.
  const umbrella = makeClient(db(), { name: 'Umbrella KK', currency: 'JPY' });
  data.umbrella = umbrella.id;
  makeRecipient(db(), umbrella.id, { name: 'Keiko Accounts', email: 'keiko@umbrella.test' });
  const mvp = makeProject(db(), umbrella.id, { name: 'Mobile app MVP', currency: 'JPY', billingMethod: 'fixed_price_project', hourlyRateMinor: 0, flatAmountMinor: 2_500_000 });
  const build = makeTask(db(), mvp.id, { name: 'App build' });
  for (const day of ['2026-11-10', '2026-11-11']) {
    makeTimeEntry(db(), { clientId: umbrella.id, projectId: mvp.id, taskId: build.id, userId: grace.id }, { recordedOn: day, notes: `Sprint work ${day}`, seconds: 7200, enteredSeconds: 7200 });
  }
}

describe.skipIf(!hasChromium)('fixes from the review of the web app from a user’s point of view, in Chromium', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    suite = await startBrowserSuite('rev.test', { subdomain: 'rev', timeZone: 'Europe/Berlin', owner: { email: OWNER, firstName: 'Olga', lastName: 'Owner' } });
    ({ port, services, browser } = suite);
    await seed();
    // The Owner's password, for the tests that sign in on the sign-in page.
    await (await signIn(OWNER)).context().close();
  }, 120_000);

  afterAll(() => suite?.close());

  it('#1 signing in returns to the page that was asked for, with its query string', async () => {
    const page = await signedOut();
    const deepLink = `/invoicing/new?client=${data.umbrella}`;
    await page.goto(app(deepLink));
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(page.url()).toBe(app(`/sign-in?next=${encodeURIComponent(deepLink)}`));
    await signInHere(page, OWNER);
    await page.getByRole('heading', { name: 'New invoice for Umbrella KK' }).waitFor();
    expect(page.url()).toBe(app(deepLink));

    // A report's settings are in its address: they survive signing in too.
    await page.context().clearCookies();
    await page.goto(app('/reports?period=last-month&by=person'));
    await signInHere(page, OWNER);
    await page.getByRole('heading', { name: 'Time report', level: 1 }).waitFor();
    expect(page.url()).toBe(app('/reports?period=last-month&by=person'));
    expect(await page.getByLabel('Period').inputValue()).toBe('last-month');
    await page.context().close();
  });

  it('#7 signing out goes straight to the sign-in page: no detour through the timesheet, no refused calls, no ?next=', async () => {
    const page = await signIn(OWNER);
    await page.goto(app('/invoicing'));
    await page.getByRole('heading', { name: 'Invoices' }).waitFor();
    await page.waitForLoadState('networkidle');
    // Every address the app goes through, and every call the server refuses, from here on.
    await page.evaluate(() => {
      const w = window as unknown as { visited: string[] };
      w.visited = [];
      for (const method of ['pushState', 'replaceState'] as const) {
        const original = history[method].bind(history);
        history[method] = (state: unknown, unused: string, url?: string | URL | null) => {
          w.visited.push(String(url));
          original(state, unused, url);
        };
      }
    });
    const refused: string[] = [];
    page.on('response', (r) => void (r.status() === 401 && refused.push(r.url())));
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.waitForLoadState('networkidle');
    expect(page.url()).toBe(app('/sign-in'));
    expect(await page.evaluate(() => (window as unknown as { visited: string[] }).visited)).toEqual(['/sign-in']);
    expect(refused).toEqual([]);
    // The next person to sign in on this browser lands on their timesheet.
    await signInHere(page, OWNER);
    await page.getByRole('heading', { name: 'Timesheet' }).waitFor();
    expect(page.url()).toBe(app('/timesheet'));
    await page.context().close();
  });

  it('#2 Approvals recovers from an out-of-date list: the list reloads, the choice is cleared, the entry is named in words', async () => {
    const page = await signIn(OWNER);
    await page.goto(app('/approvals'));
    await page.getByRole('checkbox', { name: /Kickoff call/ }).check();
    await page.getByRole('button', { name: 'Approve selected (1)' }).waitFor();
    // Meanwhile, in another tab, the entry is deleted.
    db().delete(timeEntries).where(eq(timeEntries.id, data.pending.kickoff)).run();
    await page.getByRole('button', { name: 'Approve selected (1)' }).click();
    const alert = page.getByRole('alert');
    await alert.getByText('Nothing was approved: Grace Hopper’s 1:00 on Monday, November 16 (Website · Design: Kickoff call) was deleted meanwhile.').waitFor();
    expect(await alert.innerText()).toContain('The list is up to date again');
    expect(await alert.innerText()).not.toContain(data.pending.kickoff);
    // The deleted entry is gone from the list, and nothing is chosen any more.
    await expect.poll(() => page.getByRole('checkbox', { name: /Kickoff call/ }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Approve selected (0)' }).isDisabled()).toBe(true);
    await look(page, 'approvals-out-of-date');

    // Another manager approves an entry this page still lists as waiting.
    await page.getByRole('checkbox', { name: /Wireframes/ }).check();
    db().update(timeEntries).set({ status: 'unbilled' }).where(eq(timeEntries.id, data.pending.wireframes)).run();
    await page.getByRole('button', { name: 'Reject selected' }).click();
    await alert.getByText(/^Nothing was rejected: Grace Hopper’s 1:00 on Tuesday, November 17 \(Website · Design: Wireframes\) was already approved, rejected/).waitFor();
    await expect.poll(() => page.getByRole('checkbox', { name: /Wireframes/ }).count()).toBe(0);

    // What is still listed can be decided at once, without reloading the page.
    await page.getByRole('checkbox', { name: /Design review/ }).check();
    await page.getByRole('button', { name: 'Approve selected (1)' }).click();
    await notice(page).getByText('1 entry approved').waitFor();
    await page.getByText('Nothing is waiting for approval.').waitFor();
    await page.context().close();
  });

  it('#3 project page: saving one task keeps what is typed in the other task forms and in Settings', async () => {
    const page = await signIn(OWNER);
    await page.goto(app(`/projects/${data.website}`));
    const settings = page.locator('form[aria-labelledby=settings]');
    const tasks = page.locator('section[aria-labelledby=tasks] li.task');
    await tasks.nth(1).waitFor();
    await tasks.nth(0).getByLabel('Task', { exact: true }).fill('Design and UX');
    await settings.getByLabel('Name').fill('Website relaunch 2027');
    // The second task: renamed, with a new checklist item, and saved.
    await tasks.nth(1).getByLabel('Task', { exact: true }).fill('Build and launch');
    await tasks.nth(1).getByLabel('Add a checklist item').fill('Go-live checklist');
    await tasks.nth(1).getByRole('button', { name: 'Save task' }).click();
    await notice(page).getByText('Task Build and launch saved').waitFor();
    await page.waitForLoadState('networkidle');
    // The form that saved shows the task as saved: its new item is an item of the checklist now.
    expect(await tasks.nth(1).getByLabel('Item 1').inputValue()).toBe('Go-live checklist');
    expect(await tasks.nth(1).getByLabel('Add a checklist item').inputValue()).toBe('');
    // The other forms keep what was typed.
    expect(await tasks.nth(0).getByLabel('Task', { exact: true }).inputValue()).toBe('Design and UX');
    expect(await settings.getByLabel('Name').inputValue()).toBe('Website relaunch 2027');
    await look(page, 'project-after-task-save');

    // Saving the settings keeps the first task's unsaved name as well.
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await notice(page).getByText('Project saved').waitFor();
    await page.getByRole('heading', { level: 1, name: 'Website relaunch 2027' }).waitFor();
    expect(await tasks.nth(0).getByLabel('Task', { exact: true }).inputValue()).toBe('Design and UX');
    expect(await tasks.nth(1).getByLabel('Item 1').inputValue()).toBe('Go-live checklist');
    await page.context().close();
  });

  it('#4 client page: Archive and Reactivate keep what is typed in the Details form', async () => {
    const page = await signIn(OWNER);
    await page.goto(app(`/clients/${data.initech}`));
    const details = page.locator('section[aria-labelledby=details]');
    await details.getByLabel('Address').fill('Unter den Linden 5, Berlin');
    await details.getByRole('button', { name: 'Archive' }).click();
    await notice(page).getByText('Client archived').waitFor();
    await details.getByRole('button', { name: 'Reactivate' }).waitFor();
    expect(await details.locator('.badge').innerText()).toBe('Archived');
    expect(await details.getByLabel('Address').inputValue()).toBe('Unter den Linden 5, Berlin');
    await look(page, 'client-after-archive');
    await details.getByRole('button', { name: 'Reactivate' }).click();
    await notice(page).getByText('Client reactivated').waitFor();
    await details.getByRole('button', { name: 'Archive' }).waitFor();
    expect(await details.getByLabel('Address').inputValue()).toBe('Unter den Linden 5, Berlin');
    // Saved, the form shows the client as saved.
    await details.getByRole('button', { name: 'Save details' }).click();
    await notice(page).getByText('Client saved').waitFor();
    await page.reload();
    await expect.poll(() => details.getByLabel('Address').inputValue()).toBe('Unter den Linden 5, Berlin');
    await page.context().close();
  });

  it('#5 "Sign out everywhere" asks first, saying which personal API keys it revokes', async () => {
    const page = await signIn(data.linus.email);
    page.removeAllListeners('dialog');
    await page.goto(app('/account'));
    await page.getByLabel('Label (what uses the key)').fill('deploy script');
    await page.getByRole('button', { name: 'Create key' }).click();
    await confirmWithPassword(page, PASSWORD);
    await page.getByRole('cell', { name: 'deploy script', exact: true }).waitFor();
    const keyOf = () => db().select().from(apiKeys).where(eq(apiKeys.memberId, data.linus.id)).get();
    expect(keyOf()?.revokedAt).toBeNull();

    // Asked, and answered no: nothing happens.
    const asked: string[] = [];
    page.once('dialog', (d) => {
      asked.push(d.message());
      void d.dismiss();
    });
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await expect.poll(() => asked.length).toBe(1);
    expect(asked[0]).toContain('End every session, this one included?');
    expect(asked[0]).toContain('This also revokes your personal API key “deploy script”: scripts using it stop working, and this cannot be undone.');
    await page.waitForTimeout(300);
    expect(page.url()).toBe(app('/account'));
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    expect(keyOf()?.revokedAt).toBeNull();
    await screenshots(page, 'account-sessions', { dir: SHOTS });

    // Answered yes: every session ends, the key is revoked, and the sign-in page shows.
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(page.url()).toBe(app('/sign-in'));
    expect(keyOf()?.revokedAt).not.toBeNull();
    await page.context().close();
  });

  it('#6 fixed-price time is explained and not picked, and an invoice of ¥0 is not e-mailed with one click', async () => {
    const page = await signIn(OWNER);
    await page.goto(app(`/invoicing/new?client=${data.umbrella}`));
    await page.getByRole('heading', { name: 'New invoice for Umbrella KK' }).waitFor();
    await page.getByText('Mobile app MVP is a fixed-price project: its time is not charged by the hour, so its entries come to ¥0.').waitFor();
    // With nothing billed by the hour, the page starts on service lines, for the flat amount.
    expect(await page.getByRole('radio', { name: 'Service lines' }).isChecked()).toBe(true);
    await look(page, 'new-invoice-fixed-price');

    // Picked anyway, the entries are marked and priced at ¥0; sending that is not one click away.
    await page.getByRole('radio', { name: /Time entries/ }).check();
    const entries = page.getByRole('checkbox', { name: /Sprint work/ });
    expect(await entries.count()).toBe(2);
    for (const e of await entries.all()) expect(await e.isChecked()).toBe(false);
    expect(await page.getByText('(fixed price: no charge)').count()).toBe(2);
    await page.getByRole('checkbox', { name: 'All entries' }).check();
    const send = page.getByRole('button', { name: 'Create and send · ¥0' });
    await send.waitFor();
    await page.getByText('The total is ¥0: an invoice for nothing is not e-mailed to Umbrella KK.').waitFor();
    await expect.poll(() => send.isDisabled()).toBe(true);
    await look(page, 'new-invoice-zero-total');
    await page.getByRole('checkbox', { name: 'Send it by e-mail now' }).uncheck();
    await expect.poll(() => page.getByRole('button', { name: 'Create invoice · ¥0' }).isDisabled()).toBe(false);
    expect(await page.getByText('The total is ¥0').count()).toBe(0);

    // With an amount, sending is offered as before.
    await page.getByRole('checkbox', { name: 'Send it by e-mail now' }).check();
    await page.getByRole('radio', { name: 'Service lines' }).check();
    await page.getByLabel('Description 1').fill('Mobile app MVP, fixed price');
    await page.getByLabel(/Unit price/).fill('2500000');
    await expect.poll(() => page.getByRole('button', { name: 'Create and send · ¥2,500,000' }).isDisabled()).toBe(false);
    await page.context().close();
  });

  it('#8 field messages are plain words: an empty sign-in form', async () => {
    const page = await signedOut();
    await page.goto(app('/sign-in'));
    await page.getByRole('button', { name: 'Sign in' }).click();
    const field = (label: string) => page.locator('.field', { has: page.getByLabel(label, { exact: true }) });
    await field('E-mail').locator('.error').getByText('Enter an e-mail address, such as name@example.com', { exact: true }).waitFor();
    await field('Password').locator('.error').getByText('Enter your password', { exact: true }).waitFor();
    await look(page, 'sign-in-empty');
    await page.context().close();
  });

  it('#8 field messages are plain words: hours out of range', async () => {
    const page = await signIn(data.grace.email);
    await page.getByRole('button', { name: /^Add time on / }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Hours').fill('25');
    await dialog.getByRole('button', { name: 'Add time' }).click();
    await dialog.locator('.error').getByText('At most 24 hours in one entry', { exact: true }).waitFor();
    await dialog.getByLabel('Hours').fill('0');
    await dialog.getByRole('button', { name: 'Add time' }).click();
    await dialog.locator('.error').getByText('Enter more than 0 hours', { exact: true }).waitFor();
    await page.context().close();
  });

  it('#9 the timer starts empty after Stop: the last timer’s notes are not carried over', async () => {
    const page = await signIn(data.grace.email);
    const timer = page.locator('details.timer');
    await timer.locator('summary').click();
    await timer.getByLabel('Notes').fill('Pairing on the header');
    await timer.getByRole('button', { name: 'Start' }).click();
    await page.getByRole('heading', { name: 'Timer running' }).waitFor();
    await page.getByRole('button', { name: 'Stop and record' }).click();
    await notice(page).getByText('Timer stopped; time recorded').waitFor();
    await page.getByText('— Pairing on the header').first().waitFor();
    await timer.locator('summary').click();
    expect(await timer.getByLabel('Notes').inputValue()).toBe('');
    await page.context().close();
  });

  it('#10 the timesheet’s headings do not skip a level (h1, then the days as h2)', async () => {
    const page = await signIn(data.grace.email);
    await page.getByRole('heading', { level: 2, name: /^Monday/ }).first().waitFor();
    const levels = await page.locator('main').evaluate((main) => [...main.querySelectorAll('h1, h2, h3, h4, h5, h6')].map((h) => Number(h.tagName[1])));
    expect(levels[0]).toBe(1);
    for (let i = 1; i < levels.length; i++) expect(levels[i]!, `heading ${i} after h${levels[i - 1]}`).toBeLessThanOrEqual(levels[i - 1]! + 1);
    expect(levels.filter((l) => l === 2).length).toBeGreaterThanOrEqual(7);
    await look(page, 'timesheet-headings');
    await page.context().close();
  });

  it('#11 an API key’s Created date is the workspace’s day, not UTC’s', async () => {
    // Created at 00:30 on November 29 in Berlin: 23:30 on November 28 in UTC.
    db().update(apiKeys).set({ createdAt: '2026-11-28T23:30:00.000Z' }).where(eq(apiKeys.label, 'owner')).run();
    const page = await signIn(OWNER);
    await page.goto(app('/settings'));
    const row = page.getByRole('row', { name: /owner/ });
    await row.waitFor();
    expect(await row.locator('td[data-label="Created"]').innerText()).toBe('Nov 29, 2026');
    await page.context().close();
  });

  it('#12 the draft editor takes an emptied due date as the client’s terms, and says so', async () => {
    const page = await signIn(OWNER);
    await page.goto(app(`/invoicing/${data.draft}/edit`));
    await page.getByRole('heading', { name: 'Edit draft AC-001' }).waitFor();
    const due = page.locator('.field', { has: page.getByLabel('Due date', { exact: true }) });
    expect(await due.locator('.hint').innerText()).toBe('Empty: 30 days after issue');
    await page.getByLabel('Due date', { exact: true }).fill('');
    await look(page, 'edit-draft-empty-due-date');
    await page.getByRole('button', { name: /^Save draft/ }).click();
    await notice(page).getByText('Draft AC-001 saved').waitFor();
    await page.waitForURL(app(`/invoicing/${data.draft}`));
    // 30 days after November 2.
    await page.getByText('Dec 2, 2026').first().waitFor();
    const caller = callerFor(services, 'rev', suite.apiKey);
    expect((await caller.invoices.view({ invoice_id: data.draft })).invoice).toMatchObject({ issue_date: ISSUE, due_date: '2026-12-02' });
    await page.context().close();
  });

  it('#13 making a member an Admin asks for the password; closing the dialog changes nothing, a time zone alone asks nothing', async () => {
    const page = await signIn(OWNER);
    await page.goto(app('/team'));
    const row = page.locator('li', { has: page.getByText('Linus Member') });
    const role = () => db().select({ role: teamMembers.organizationRole, zone: teamMembers.timeZone }).from(teamMembers).where(eq(teamMembers.id, data.linus.id)).get();
    await row.getByLabel('Role').selectOption('Admin');
    await row.getByRole('button', { name: 'Save Linus Member' }).click();
    const confirm = page.getByRole('dialog', { name: 'Confirm with your password' });
    await confirm.getByText("To change a member's e-mail address or make them an Owner or Admin", { exact: false }).waitFor();
    await look(page, 'team-confirm-password');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await row.getByText('Nothing was changed: this needs your password').waitFor();
    expect(role()?.role).toBe('Member');

    await row.getByRole('button', { name: 'Save Linus Member' }).click();
    await confirmWithPassword(page, PASSWORD);
    await notice(page).getByText('Linus saved').waitFor();
    expect(role()?.role).toBe('Admin');

    await row.getByLabel('Role').selectOption('Member');
    await row.getByLabel('Time zone').selectOption('Europe/Paris');
    await row.getByRole('button', { name: 'Save Linus Member' }).click();
    await expect.poll(() => role()).toEqual({ role: 'Member', zone: 'Europe/Paris' });
    expect(await confirm.count()).toBe(0);
    await page.context().close();
  });
});
