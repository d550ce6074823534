import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { eq } from 'drizzle-orm';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { teamMembers } from '../src/db/schema/index.ts';
import { provisionWorkspace } from '../src/domain/workspace/provision.ts';
import type { AppServices } from '../src/services.ts';
import { prepareApp } from './helpers/app-server.ts';
import { checkPage, confirmWithPassword, DESKTOP, hasChromium, launchChromium, nav, NO_CHROMIUM } from './helpers/browser.ts';
import { send } from './helpers/http.ts';
import { mailTo as mailToOf } from './helpers/smtp.ts';

/**
 * The web app's whole story in real Chromium against a real server, real workspace files and a real
 * SMTP server: an Owner sets a password from the link `hourbook workspace create` printed, invites
 * a Member (the link comes from the e-mail), the Member records a week of time, the manager
 * approves, the Owner invoices the unbilled time, sends it (the mail carries the PDF) and marks it
 * paid. Every page is checked with axe-core, for sideways scrolling on a phone, and photographed.
 */

if (!hasChromium) console.log(NO_CHROMIUM);

const exec = promisify(execFile);
const BIN = fileURLToPath(new URL('../bin/hourbook.js', import.meta.url));
const PASSWORD = 'a long owner password';
const MEMBER_PASSWORD = 'the member password';

let prepared: Awaited<ReturnType<typeof prepareApp>>;
let port: number;
let smtp: Awaited<ReturnType<typeof prepareApp>>['smtp'];
let services: AppServices;
let browser: Browser;
let ownerContext: BrowserContext;
let owner: Page;
let memberPage: Page;
let cliOutput: string;

const app = (subdomain = 'story') => `http://${subdomain}.localhost:${port}`;
const checked: string[] = [];

/** Every page the story shows: checked (axe, phone width) and photographed. */
async function look(page: Page, name: string) {
  await checkPage(page, name);
  checked.push(name);
}

const mailTo = (address: string) => mailToOf(smtp, address);

const linkIn = (text: string) => {
  const m = /(http:\/\/\S+\/set-password#token=[A-Za-z0-9_-]+)/.exec(text);
  if (!m?.[1]) throw new Error(`no link in: ${text}`);
  return m[1];
};

describe.skipIf(!hasChromium)('the staff web app in Chromium', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    prepared = await prepareApp('story.test');
    ({ port, smtp } = prepared);
    // The workspace as an operator makes it: the command line prints the Owner's link.
    cliOutput = (await exec(process.execPath, [BIN, 'workspace', 'create', 'story', '--owner-email', 'owner@story.test', '--owner-first-name', 'Olga', '--owner-last-name', 'Owner'], { env: { ...process.env, ...prepared.env } })).stdout;
    ({ services } = await prepared.start());
    browser = await launchChromium();
    ownerContext = await browser.newContext({ viewport: DESKTOP, locale: 'en-US', bypassCSP: true });
    owner = await ownerContext.newPage();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await prepared?.close();
  });

  it('the Owner sets a password from the printed link and invites a Member by e-mail', async () => {
    // bypassCSP: axe-core is injected as a script; the app's CSP would rightly refuse it.
    const signedOut = await browser.newPage({ viewport: DESKTOP, bypassCSP: true });
    await signedOut.goto(`${app()}/timesheet`);
    await expect.poll(() => signedOut.getByRole('heading', { name: 'Sign in' }).isVisible()).toBe(true);
    expect(signedOut.url()).toBe(`${app()}/sign-in?next=%2Ftimesheet`);
    await look(signedOut, 'sign-in');
    await signedOut.getByRole('link', { name: 'Forgot your password?' }).click();
    await look(signedOut, 'forgot-password');
    await signedOut.close();

    // The link's token never travels in an address (proxies log those): its check is POSTed.
    const calls: { method: string; url: string; body: string }[] = [];
    const record = (r: Request) => void (r.url().includes('/trpc') && calls.push({ method: r.method(), url: r.url(), body: r.postData() ?? '' }));
    owner.on('request', record);
    const link = linkIn(cliOutput);
    await owner.goto(link);
    await owner.getByRole('heading', { name: 'Welcome to story' }).waitFor();
    owner.off('request', record);
    const token = link.slice(link.indexOf('#token=') + '#token='.length);
    expect(calls.find((c) => c.url.includes('auth.checkLink'))).toMatchObject({ method: 'POST', body: expect.stringContaining(token) });
    expect(calls.filter((c) => c.url.includes(token))).toEqual([]);
    await look(owner, 'set-password');
    await owner.getByLabel('New password').fill(PASSWORD);
    await owner.getByLabel('Repeat the password').fill(PASSWORD);
    await owner.getByRole('button', { name: 'Save password and sign in' }).click();
    await owner.getByRole('heading', { name: 'Timesheet' }).waitFor();
    expect(owner.url()).toBe(`${app()}/timesheet`);

    await nav(owner, 'Team');
    await owner.getByRole('button', { name: 'Invite someone' }).click();
    const dialog = owner.getByRole('dialog', { name: 'Invite a team member' });
    await dialog.getByLabel('E-mail').fill('mia@story.test');
    await dialog.getByLabel('First name').fill('Mia');
    await dialog.getByLabel('Last name').fill('Member');
    await look(owner, 'team-invite');
    await dialog.getByRole('button', { name: 'Send invitation' }).click();
    await owner.locator('.who strong', { hasText: 'Mia Member' }).waitFor();
    await look(owner, 'team');
  });

  it('the Owner sets up a client with a recipient and a project with approvals and the Member on it', async () => {
    await nav(owner, 'Clients');
    await owner.getByRole('button', { name: 'New client' }).click();
    const dialog = owner.getByRole('dialog', { name: 'New client' });
    await dialog.getByLabel('Name').fill('Acme Corp');
    await dialog.getByRole('button', { name: 'Create client' }).click();
    await owner.getByRole('heading', { name: 'Acme Corp', level: 1 }).waitFor();

    const recipients = owner.getByRole('region', { name: 'Invoice recipients' });
    await recipients.getByLabel('Name').fill('Ann Payer');
    await recipients.getByLabel('E-mail').fill('ann@acme.test');
    await recipients.getByRole('button', { name: 'Add recipient' }).click();
    await recipients.getByRole('button', { name: 'Remove Ann Payer' }).waitFor();

    await owner.getByRole('button', { name: 'New project' }).click();
    const project = owner.getByRole('dialog', { name: 'New project for Acme Corp' });
    await project.getByLabel('Name').fill('Website');
    await project.getByLabel('Hourly rate (USD)').fill('100');
    await project.getByLabel('First task').fill('Design');
    await project.getByRole('button', { name: 'Create project' }).click();
    await owner.getByRole('heading', { name: 'Website', level: 1 }).waitFor();

    await owner.getByLabel('Entries need a project manager’s approval').check();
    await owner.getByRole('button', { name: 'Save settings' }).click();
    await owner.getByText('Project saved').waitFor();
    const people = owner.getByRole('region', { name: 'People on the project' });
    await people.getByLabel('Team member').selectOption({ label: 'Mia Member' });
    await people.getByRole('button', { name: 'Add to project' }).click();
    await people.getByText('mia@story.test').waitFor();
    await look(owner, 'project');

    await owner.getByRole('link', { name: '← The client' }).click();
    await owner.getByRole('link', { name: 'Website' }).waitFor();
    await look(owner, 'client');
    await nav(owner, 'Clients');
    await owner.getByRole('link', { name: 'Acme Corp' }).waitFor();
    await look(owner, 'clients');
  });

  it('the Member accepts the invitation from the e-mail and records a week of time', async () => {
    const invite = await mailTo('mia@story.test');
    expect(invite.mail.subject).toBe('You are invited to story on hourbook');
    const memberContext = await browser.newContext({ viewport: DESKTOP, locale: 'en-US', bypassCSP: true });
    memberPage = await memberContext.newPage();
    await memberPage.goto(linkIn(invite.mail.text ?? ''));
    await memberPage.getByRole('heading', { name: 'Welcome to story' }).waitFor();
    await memberPage.getByLabel('New password').fill(MEMBER_PASSWORD);
    await memberPage.getByLabel('Repeat the password').fill(MEMBER_PASSWORD);
    await memberPage.getByRole('button', { name: 'Save password and sign in' }).click();
    await memberPage.getByRole('heading', { name: 'Timesheet' }).waitFor();
    // A Member's navigation has no Owner pages.
    await expect.poll(() => memberPage.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents()).toEqual(['Timesheet', 'Reports', 'Mia Member']);

    const addButtons = memberPage.getByRole('button', { name: /^Add time on / });
    const hours = ['8', '7:30', '6.5', '8', '4:15'];
    for (const [day, value] of hours.entries()) {
      await addButtons.nth(day).click();
      const dialog = memberPage.getByRole('dialog', { name: 'Add time' });
      if (day === 0) {
        // A domain error appears next to the field it concerns.
        await dialog.getByLabel('Hours').fill('25');
        await dialog.getByRole('button', { name: 'Add time' }).click();
        const hoursField = dialog.locator('.field', { has: memberPage.getByLabel('Hours') });
        await hoursField.locator('.error').waitFor();
        await expect.poll(() => dialog.getByLabel('Hours').getAttribute('aria-invalid')).toBe('true');
        await look(memberPage, 'timesheet-entry-error');
      }
      await dialog.getByLabel('Hours').fill(value);
      await dialog.getByLabel('Notes').fill(`Design work, day ${day + 1}`);
      await dialog.getByRole('button', { name: 'Add time' }).click();
      await dialog.waitFor({ state: 'detached' });
    }
    await expect.poll(() => memberPage.getByText('34:15 h').isVisible()).toBe(true);
    await expect.poll(() => memberPage.getByText('Awaiting approval').count()).toBe(5);
    await look(memberPage, 'timesheet');
    await memberPage.getByRole('link', { name: 'Mia Member' }).click();
    await look(memberPage, 'account-member');
  });

  it("the Member can neither open an Owner's page nor call an Owner's procedure", async () => {
    await memberPage.goto(`${app()}/invoicing`);
    await memberPage.getByRole('heading', { name: 'No access' }).waitFor();
    await look(memberPage, 'no-access');
    const read = await memberPage.evaluate(`fetch('/trpc/invoices.list?input=%7B%7D').then((r) => r.status)`);
    expect(read).toBe(403);
    const write = await memberPage.evaluate(`fetch('/trpc/clients.create', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hourbook-csrf': '1' },
      body: JSON.stringify({ name: 'Mine now' }),
    }).then((r) => r.status)`);
    expect(write).toBe(403);
  });

  it('the manager approves the week', async () => {
    await nav(owner, 'Approvals');
    await owner.getByText('Mia Member — week of').waitFor();
    await look(owner, 'approvals');
    await owner.getByLabel('Select all (5)').check();
    await owner.getByRole('button', { name: 'Approve selected (5)' }).click();
    await owner.getByText('Nothing is waiting for approval.').waitFor();
  });

  it('the Owner invoices the unbilled time, sends it with the PDF and records its payment', async () => {
    await nav(owner, 'Invoices');
    await owner.getByRole('link', { name: 'New invoice' }).click();
    await owner.getByRole('button', { name: /Acme Corp/ }).click();
    await owner.getByRole('heading', { name: 'New invoice for Acme Corp' }).waitFor();
    await expect.poll(() => owner.getByRole('checkbox', { name: /Design work/ }).count()).toBe(5);
    // The preview is the server's pricing: 34.25 h at 100 USD.
    const preview = owner.getByRole('region', { name: 'Preview' });
    await preview.getByRole('row', { name: /Total/ }).getByText('$3,425.00').waitFor();
    await look(owner, 'invoice-new');
    await owner.getByRole('button', { name: /Create and send · \$3,425\.00/ }).click();
    await owner.getByRole('heading', { name: 'Invoice INV-0001' }).waitFor();

    const mail = await mailTo('ann@acme.test');
    expect(mail.mail.subject).toContain('INV-0001');
    expect(mail.mail.attachments.map((a) => a.contentType)).toEqual(['application/pdf']);
    expect(mail.mail.attachments[0]!.content.subarray(0, 5).toString()).toBe('%PDF-');

    await owner.reload();
    await owner.getByText('Sent', { exact: true }).first().waitFor();
    await look(owner, 'invoice');
    const download = owner.waitForEvent('download');
    await owner.getByRole('button', { name: 'Download PDF' }).click();
    expect((await download).suggestedFilename()).toMatch(/\.pdf$/);
    await owner.getByRole('button', { name: 'Record a payment' }).click();
    await owner.getByRole('dialog').getByRole('button', { name: 'Record payment' }).click();
    await owner.locator('.page-head').getByText('Paid').waitFor();

    await nav(owner, 'Invoices');
    await owner.getByRole('link', { name: 'INV-0001' }).waitFor();
    await look(owner, 'invoices');
  });

  it('the settings show API keys; a new key is shown once', async () => {
    await nav(owner, 'Settings');
    await owner.getByLabel('Label (what uses the key)').fill('Accounting sync');
    // A key outlives the session, so it takes the password: asked in a dialog, a wrong one said there.
    await owner.getByRole('button', { name: 'Create key' }).click();
    const confirm = owner.getByRole('dialog', { name: 'Confirm with your password' });
    await confirm.getByText('To create an API key, enter your password').waitFor();
    await confirm.getByLabel('Your password').fill('not my password');
    await confirm.getByRole('button', { name: 'Confirm' }).click();
    await confirm.getByText('This is not your password').waitFor();
    await look(owner, 'settings-confirm-password');
    await confirmWithPassword(owner, PASSWORD);
    const secret = await owner.locator('code.secret').textContent();
    expect(secret).toMatch(/^hb_/);
    const ok = await send(`http://127.0.0.1:${port}`, 'GET', '/api/external/v2/team-members', { host: `story.localhost:${port}`, key: secret!, headers: { accept: 'application/json' } });
    expect(ok.status).toBe(200);
    await look(owner, 'settings');
    await owner.getByRole('button', { name: 'I have copied it' }).click();
    await owner.getByRole('link', { name: 'Olga Owner' }).click();
    await look(owner, 'account');
  });

  it('a session cookie replayed on another workspace is refused', async () => {
    provisionWorkspace(services.registry, { subdomain: 'other', timeZone: 'UTC', owner: { email: 'owner@other.test', firstName: 'O', lastName: 'Other' } }, new Date());
    const cookie = (await ownerContext.cookies()).find((c) => c.name === 'hourbook_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', domain: 'story.localhost', secure: false });
    const replay = await send(`http://127.0.0.1:${port}`, 'GET', '/trpc/auth.me', { host: `other.localhost:${port}`, headers: { cookie: `hourbook_session=${cookie!.value}` } });
    expect(replay.status).toBe(401);
    // And in the browser: the same cookie set for the other host opens nothing there.
    await ownerContext.addCookies([{ name: 'hourbook_session', value: cookie!.value, domain: 'other.localhost', path: '/', httpOnly: true, sameSite: 'Lax' }]);
    const page = await ownerContext.newPage();
    await page.goto(`${app('other')}/timesheet`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.close();
  });

  it('a cross-site form POST is refused with 403 and changes nothing', async () => {
    const page = await ownerContext.newPage();
    await page.goto(`${app('evil')}/sign-in`);
    const answered = page.waitForResponse((r) => r.url() === `${app()}/trpc/accounts.invite`);
    await page.evaluate(`(() => {
      const form = document.createElement('form');
      form.method = 'POST';
      form.action = '${app()}/trpc/accounts.invite';
      form.enctype = 'text/plain';
      const input = document.createElement('input');
      input.name = '{"email":"evil@evil.test","first_name":"E","last_name":"Vil","x":"';
      input.value = '"}';
      form.append(input);
      document.body.append(form);
      form.submit();
    })()`);
    expect((await answered).status()).toBe(403);
    const handle = services.registry.get('story')!;
    expect(handle.db.select().from(teamMembers).where(eq(teamMembers.email, 'evil@evil.test')).all()).toHaveLength(0);
    await page.close();
  });

  it('looked at every page', () => {
    expect(checked).toEqual(
      expect.arrayContaining(['sign-in', 'forgot-password', 'set-password', 'team', 'project', 'client', 'clients', 'timesheet', 'approvals', 'invoice-new', 'invoice', 'invoices', 'settings', 'account', 'no-access']),
    );
  });
});
