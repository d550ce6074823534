import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projects } from '../src/db/schema/index.ts';
import { issuePasswordLink } from '../src/domain/accounts/links.ts';
import { provisionWorkspace } from '../src/domain/workspace/provision.ts';
import type { AppServices } from '../src/services.ts';
import { prepareApp } from './helpers/app-server.ts';
import { checkPage, hasChromium, launchChromium, nav, NO_CHROMIUM, SCREENSHOTS, signInByLink } from './helpers/browser.ts';
import { scopeOf } from './helpers/env.ts';
import { makeClient, makeMember, makeProject, makeProjectUser, makeTask } from './helpers/factories.ts';

/**
 * Projects in Chromium against a real server: an Owner sets up fixed-price billing (a new project,
 * and an hourly project switched over) by entering its flat amount, which the project's page then
 * shows; a project manager reaches the projects they manage from the menu, and only those. What
 * the server stored is read back from the workspace file. Screenshots into SHOTS_DIR (default
 * test-results/screenshots/projects).
 */

if (!hasChromium) console.log(NO_CHROMIUM);

const SHOTS = process.env.SHOTS_DIR ?? join(SCREENSHOTS, 'projects');
const OWNER = 'olga@proj.test';

let prepared: Awaited<ReturnType<typeof prepareApp>>;
let port: number;
let services: AppServices;
let browser: Browser;
let yen: ReturnType<typeof makeClient>;
let mvp: ReturnType<typeof makeProject>;
let hourly: ReturnType<typeof makeProject>;
let other: ReturnType<typeof makeProject>;
let manager: ReturnType<typeof makeMember>;

const app = (path = '') => `http://proj.localhost:${port}${path}`;
const look = (page: Page, name: string) => checkPage(page, name, { dir: SHOTS });
const db = () => services.registry.get('proj')!.db;
const signIn = (email: string) => signInByLink(browser, issuePasswordLink(scopeOf(services, services.registry.get('proj')!), { email }).link);
const stored = (id: string) => db().select().from(projects).where(eq(projects.id, id)).get()!;

describe.skipIf(!hasChromium)('projects in Chromium: fixed-price billing, and a project manager’s projects', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    prepared = await prepareApp('proj.test');
    ({ port } = prepared);
    ({ services } = await prepared.start());
    provisionWorkspace(services.registry, { subdomain: 'proj', timeZone: 'Asia/Tokyo', owner: { email: OWNER, firstName: 'Olga', lastName: 'Owner' } }, new Date());
    yen = makeClient(db(), { name: 'Sakura Foods', identifier: 'SAKURA', currency: 'JPY' });
    mvp = makeProject(db(), yen.id, { name: 'Mobile app MVP', identifier: 'SAKURA-0001', currency: 'JPY', billingMethod: 'fixed_price_project', hourlyRateMinor: 0, flatAmountMinor: 2_500_000 });
    hourly = makeProject(db(), yen.id, { name: 'Store support', identifier: 'SAKURA-0002', currency: 'JPY', hourlyRateMinor: 12_000 });
    other = makeProject(db(), yen.id, { name: 'Not theirs', identifier: 'SAKURA-0003', currency: 'JPY', hourlyRateMinor: 9_000 });
    for (const p of [mvp, hourly, other]) makeTask(db(), p.id);
    manager = makeMember(db(), { email: 'pia@proj.test', firstName: 'Pia', lastName: 'Manager' });
    makeProjectUser(db(), mvp.id, manager.id, { role: 'project_manager' });
    makeProjectUser(db(), hourly.id, manager.id, { role: 'project_manager' });
    makeProjectUser(db(), other.id, manager.id, { role: 'regular_user' });
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await prepared?.close();
  });

  it('an Owner creates a fixed-price project with its flat amount (checked in the client’s currency), and its page shows it', async () => {
    const page = await signIn(OWNER);
    await page.goto(app(`/clients/${yen.id}`));
    // The client's projects say what each bills at: the flat amount, not a rate of ¥0.
    const list = page.getByRole('table', { name: 'Projects' });
    await expect.poll(() => list.getByRole('row', { name: /Mobile app MVP/ }).textContent()).toContain('¥2,500,000');
    await page.getByRole('button', { name: 'New project' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('Brand book');
    await dialog.getByLabel('Hourly rate (JPY)').waitFor();
    expect(await dialog.getByLabel('Flat amount (JPY)').count()).toBe(0);
    await dialog.getByLabel('Billing').selectOption({ label: 'Fixed price' });
    // The rate means nothing on a fixed-price project: the flat amount takes its place.
    await dialog.getByLabel('Flat amount (JPY)').waitFor();
    expect(await dialog.getByLabel('Hourly rate (JPY)').count()).toBe(0);
    await dialog.getByRole('button', { name: 'Create project' }).click();
    await dialog.getByText('Enter an amount').waitFor();
    await dialog.getByLabel('Flat amount (JPY)').fill('1,500,000.50');
    await dialog.getByRole('button', { name: 'Create project' }).click();
    await dialog.getByText('JPY amounts have no decimals').waitFor();
    await dialog.getByLabel('Flat amount (JPY)').fill('1,500,000');
    await look(page, 'new-fixed-price-project');
    await dialog.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { name: 'Brand book', level: 1 }).waitFor();
    await page.getByText('¥1,500,000 fixed price').waitFor();
    const created = db().select().from(projects).where(eq(projects.name, 'Brand book')).get()!;
    expect(created).toMatchObject({ billingMethod: 'fixed_price_project', flatAmountMinor: 1_500_000, currency: 'JPY' });
    await page.context().close();
  });

  it('an existing fixed-price project shows its flat amount; an hourly one switches to fixed price with one', async () => {
    const page = await signIn(OWNER);
    await page.goto(app(`/projects/${mvp.id}`));
    await page.getByText('¥2,500,000 fixed price').waitFor();
    const settings = page.getByRole('form', { name: 'Settings' });
    expect(await settings.getByLabel('Flat amount (JPY)').inputValue()).toBe('2,500,000');
    expect(await settings.getByLabel('Hourly rate (JPY)').count()).toBe(0);
    expect(await page.getByText('¥0').count()).toBe(0);
    await look(page, 'fixed-price-project');

    await page.goto(app(`/projects/${hourly.id}`));
    await page.getByText('¥12,000 an hour').waitFor();
    await settings.getByLabel('Billing').selectOption({ label: 'Fixed price' });
    await settings.getByLabel('Flat amount (JPY)').fill('800,000');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Project saved').waitFor();
    await page.getByText('¥800,000 fixed price').waitFor();
    // Only the flat amount was sent: the stored rate stays as it was.
    expect(stored(hourly.id)).toMatchObject({ billingMethod: 'fixed_price_project', flatAmountMinor: 800_000, hourlyRateMinor: 12_000 });
    await page.context().close();
  });

  it('a project manager opens Projects from the menu: the projects they manage, each leading to its page', async () => {
    const page = await signIn(manager.email);
    await nav(page, 'Projects');
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    const list = page.getByRole('table', { name: 'Projects' });
    await list.waitFor();
    expect(await list.getByRole('link').allTextContents()).toEqual(['Mobile app MVP', 'Store support']);
    await look(page, 'manager-projects');
    await list.getByRole('link', { name: 'Mobile app MVP' }).click();
    await page.getByRole('heading', { name: 'Mobile app MVP', level: 1 }).waitFor();
    await page.getByRole('form', { name: 'Settings' }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Projects', exact: true }).getAttribute('aria-current')).toBe('page');
    await page.context().close();
  });
});
