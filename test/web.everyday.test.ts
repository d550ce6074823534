import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checklistItems, tasks, timeEntries } from '../src/db/schema/index.ts';
import { issuePasswordLink } from '../src/domain/accounts/links.ts';
import { provisionWorkspace } from '../src/domain/workspace/provision.ts';
import type { AppServices } from '../src/services.ts';
import { prepareApp } from './helpers/app-server.ts';
import { checkPage, DESKTOP, hasChromium, launchChromium, NO_CHROMIUM, SCREENSHOTS, signInByLink } from './helpers/browser.ts';
import { scopeOf } from './helpers/env.ts';
import { makeProjectSetup } from './helpers/factories.ts';

/**
 * The buttons people press every day, pressed in real Chromium against a real server: a Member
 * starts the timer from the timesheet and stops it (the entry is recorded), changes their password
 * (the old one stops working, the new one signs in), and an Owner edits a project's tasks (rename,
 * checklist item, archive and reactivate, a new task). What the server stored is read back from
 * the workspace file. axe-core and 390 px on every screen; screenshots into SHOTS_DIR (default
 * test-results/screenshots/everyday).
 */

if (!hasChromium) console.log(NO_CHROMIUM);

const SHOTS = process.env.SHOTS_DIR ?? join(SCREENSHOTS, 'everyday');
const OWNER = 'olive@day.test';
const FIRST_PASSWORD = 'a long password for tests';
const NEW_PASSWORD = 'correct horse battery staple';

let prepared: Awaited<ReturnType<typeof prepareApp>>;
let port: number;
let services: AppServices;
let browser: Browser;
let setup: ReturnType<typeof makeProjectSetup>;

const app = (path = '') => `http://day.localhost:${port}${path}`;
const look = (page: Page, name: string) => checkPage(page, name, { dir: SHOTS });
const db = () => services.registry.get('day')!.db;
const signIn = (email: string) => signInByLink(browser, issuePasswordLink(scopeOf(services, services.registry.get('day')!), { email }).link);

/** The sign-in form, filled and sent; resolves once the app answered (signed in, or the error shown). */
async function signInWith(page: Page, email: string, password: string): Promise<void> {
  await page.goto(app('/sign-in'));
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('h1:has-text("Timesheet"), [role="alert"]').first().waitFor();
}

describe.skipIf(!hasChromium)('everyday buttons in Chromium: the timer, a password change, the task editor', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    prepared = await prepareApp('day.test');
    ({ port } = prepared);
    ({ services } = await prepared.start());
    provisionWorkspace(services.registry, { subdomain: 'day', timeZone: 'Europe/Berlin', owner: { email: OWNER, firstName: 'Olive', lastName: 'Owner' } }, new Date());
    setup = makeProjectSetup(db(), { member: { email: 'max@day.test', firstName: 'Max', lastName: 'Member' } });
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await prepared?.close();
  });

  it('a Member starts the timer, sees it run, stops it, and the time is recorded on the timesheet', async () => {
    const page = await signIn(setup.member.email);
    const entries = () => db().select().from(timeEntries).where(eq(timeEntries.userId, setup.member.id)).all();
    expect(entries()).toEqual([]);

    await page.getByText('Start a timer').click();
    await page.getByLabel('Project').selectOption(setup.project.id);
    await page.getByLabel('Task').selectOption(setup.task.id);
    await page.getByLabel('Notes').fill('Pairing on the importer');
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    await page.getByRole('heading', { name: 'Timer running' }).waitFor();
    await expect.poll(() => page.getByLabel('Elapsed time').textContent()).toMatch(/^0:00:0[1-9]|^0:00:[1-5]\d/);
    await look(page, 'timer-running');

    await page.getByRole('button', { name: 'Stop and record' }).click();
    await page.getByText('Timer stopped; time recorded').waitFor();
    expect(await page.getByRole('heading', { name: 'Timer running' }).count()).toBe(0);
    // A few seconds, rounded up to the minute, on the day it started, with the notes typed.
    await expect.poll(() => entries().length).toBe(1);
    expect(entries()[0]).toMatchObject({ projectId: setup.project.id, taskId: setup.task.id, seconds: 60, notes: 'Pairing on the importer', status: 'unbilled' });
    await page.getByRole('button', { name: /^Edit 0:01 on / }).first().waitFor();
    await look(page, 'timer-recorded');
    await page.context().close();
  });

  it('a Member changes their password: the old one is refused afterwards, the new one signs in', async () => {
    const page = await signIn(setup.member.email);
    await page.getByRole('link', { name: 'Max Member' }).click();
    await page.getByRole('heading', { name: 'Change your password' }).waitFor();
    const form = page.getByRole('form', { name: 'Change your password' });
    // A wrong current password is refused beside the field, and nothing changes.
    await form.getByLabel('Current password').fill('not my password at all');
    await form.getByLabel('New password').fill(NEW_PASSWORD);
    await form.getByRole('button', { name: 'Change password' }).click();
    await form.getByText('is not right').waitFor();
    await look(page, 'account-password-refused');
    await form.getByLabel('Current password').fill(FIRST_PASSWORD);
    await form.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed; your other sessions were signed out').waitFor();
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();

    await signInWith(page, setup.member.email, FIRST_PASSWORD);
    expect(await page.getByRole('heading', { name: 'Timesheet' }).count()).toBe(0);
    await signInWith(page, setup.member.email, NEW_PASSWORD);
    await page.getByRole('heading', { name: 'Timesheet' }).waitFor();
    await page.context().close();
  });

  it('an Owner renames a task, adds a checklist item, archives and reactivates it, and adds a task', async () => {
    const page = await signIn(OWNER);
    await page.goto(app(`/projects/${setup.project.id}`));
    const tasksPanel = page.getByRole('region', { name: 'Tasks and checklists' });
    await tasksPanel.waitFor();
    const first = tasksPanel.locator('li.task').first();
    await first.getByLabel('Task', { exact: true }).fill('Design and build');
    await first.getByLabel('Add a checklist item').fill('Cross-browser check');
    await first.getByRole('button', { name: 'Save task' }).click();
    await page.getByText('Task Design and build saved').waitFor();
    const task = () => db().select().from(tasks).where(eq(tasks.id, setup.task.id)).get()!;
    expect(task().name).toBe('Design and build');
    const items = db().select().from(checklistItems).where(eq(checklistItems.taskId, setup.task.id)).all();
    expect(items.map((i) => i.description)).toEqual(expect.arrayContaining([setup.item.description, 'Cross-browser check']));

    await tasksPanel.getByRole('button', { name: 'Archive Design and build' }).click();
    await tasksPanel.getByRole('button', { name: 'Reactivate Design and build' }).waitFor();
    expect(task().archived).toBe(true);
    await look(page, 'project-task-archived');
    await tasksPanel.getByRole('button', { name: 'Reactivate Design and build' }).click();
    await tasksPanel.getByRole('button', { name: 'Archive Design and build' }).waitFor();
    expect(task().archived).toBe(false);

    const fresh = tasksPanel.locator('li.task').last();
    await fresh.getByLabel('New task').fill('Maintenance');
    await fresh.getByRole('button', { name: 'Add task' }).click();
    await page.getByText('Task Maintenance added').waitFor();
    expect(db().select().from(tasks).where(and(eq(tasks.projectId, setup.project.id), eq(tasks.name, 'Maintenance'))).get()).toMatchObject({ archived: false });
    await tasksPanel.getByLabel('Task', { exact: true }).nth(1).waitFor();
    await page.setViewportSize(DESKTOP);
    await look(page, 'project-tasks');
    await page.context().close();
  });
});
