import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issuePasswordLink } from '../src/domain/accounts/links.ts';
import { startTestEnv, scopeOf, testClock, type TestEnv, type TestWorkspace } from './helpers/env.ts';
import { makeClient, makeMember, makeProject, makeProjectUser, makeTask, makeTimeEntry } from './helpers/factories.ts';
import { send } from './helpers/http.ts';
import { makeInvoice } from './helpers/report-factories.ts';
import { BrowserSession, tokenOf } from './helpers/session.ts';

/**
 * Reports for signed-in members. CSV downloads with the session cookie have the same authorization
 * as the procedures (a Member sees their own time and their managed projects', money reports are
 * for Owners and Admins), and the cookie works only on its own workspace's host. The filter lists
 * of the time report page follow the same rules.
 */

let env: TestEnv;
const clock = testClock('2026-11-18T10:00:00.000Z');
const PASSWORD = 'a long enough password';

let data: ReturnType<typeof seed>;

function seed(ws: TestWorkspace) {
  const db = ws.handle.db;
  const client = makeClient(db, { name: 'Acme', currency: 'USD' });
  const web = makeProject(db, client.id, { name: 'Website', hourlyRateMinor: 10000 });
  const app = makeProject(db, client.id, { name: 'App', hourlyRateMinor: 10000 });
  const webTask = makeTask(db, web.id, { name: 'Design' });
  const appTask = makeTask(db, app.id, { name: 'Build' });
  const mia = makeMember(db, { firstName: 'Mia', lastName: 'Member', email: 'mia@exports.test' });
  const pam = makeMember(db, { firstName: 'Pam', lastName: 'Manager', email: 'pam@exports.test' });
  const sam = makeMember(db, { firstName: 'Sam', lastName: 'Other', email: 'sam@exports.test' });
  makeProjectUser(db, web.id, mia.id);
  makeProjectUser(db, web.id, sam.id);
  makeProjectUser(db, app.id, sam.id);
  makeProjectUser(db, app.id, pam.id, { role: 'project_manager' });
  const on = (p: { id: string; clientId: string }, taskId: string, userId: string, recordedOn: string) =>
    makeTimeEntry(db, { clientId: p.clientId, projectId: p.id, taskId, userId }, { recordedOn, notes: `${userId === mia.id ? 'mia' : userId === sam.id ? 'sam' : 'pam'} on ${recordedOn}` });
  const entries = [on(web, webTask.id, mia.id, '2026-11-02'), on(web, webTask.id, mia.id, '2026-11-03'), on(web, webTask.id, sam.id, '2026-11-03'), on(app, appTask.id, sam.id, '2026-11-04'), on(app, appTask.id, pam.id, '2026-11-05')];
  makeInvoice(db, client.id, ws.ownerId, { number: 'INV-1', dueDate: '2026-10-01' });
  return { client, web, app, mia, pam, sam, entries };
}

beforeAll(async () => {
  env = await startTestEnv({ clock });
  data = seed(env.alpha);
});
afterAll(() => env.close());

/** A member of `ws` signed in the way the app does it: a password set from a one-time link. */
async function signedIn(ws: TestWorkspace, email: string): Promise<BrowserSession> {
  const browser = new BrowserSession(env.url, ws.host);
  const token = tokenOf(issuePasswordLink(scopeOf(env.services, ws.handle), { email }).link);
  const res = await browser.mutate('auth.setPassword', { token, password: PASSWORD });
  expect(res.status).toBe(200);
  return browser;
}

/** A download as the browser makes it: a plain GET with the cookie, no key, no CSRF header. */
const download = (browser: BrowserSession, path: string, host = browser.host) =>
  send(env.url, 'GET', `/api/exports/${path}`, { host, headers: browser.cookie ? { cookie: browser.cookie } : {} });
const rowsOf = (text: string) => parse(text, { bom: true, columns: true }) as Record<string, string>[];
const RANGE = 'from=2026-11-01&to=2026-11-30';

describe('CSV downloads with the session cookie', () => {
  it('an Owner downloads every entry and the money reports', async () => {
    const owner = await signedIn(env.alpha, env.alpha.ownerEmail);
    const entries = await download(owner, `time-entries.csv?${RANGE}&bom=true`);
    expect(entries.status).toBe(200);
    expect(entries.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(entries.headers['content-disposition']).toMatch(/^attachment; filename="hourbook-alpha-time-entries-2026-11-01_2026-11-30\.csv"$/);
    expect(new Set(rowsOf(entries.text).map((r) => r.id))).toEqual(new Set(data.entries.map((e) => e.id)));
    const receivables = await download(owner, 'receivables.csv');
    expect(receivables.status).toBe(200);
    expect(rowsOf(receivables.text).map((r) => r.number)).toEqual(['INV-1']);
    // The report's figures are those of the procedure the page shows.
    const time = rowsOf((await download(owner, `time.csv?${RANGE}&by=person`)).text);
    const report = await owner.query('reports.time', { from: '2026-11-01', to: '2026-11-30', by: ['person'] });
    expect(time.map((r) => [r.person, Number(r.hours)])).toEqual(report.data.rows.map((r: { keys: { label: string }[]; hours: number }) => [r.keys[0]!.label, r.hours]));
  });

  it("a Member's CSV holds only their own entries; money reports are refused", async () => {
    const mia = await signedIn(env.alpha, data.mia.email);
    const entries = await download(mia, `time-entries.csv?${RANGE}`);
    expect(entries.status).toBe(200);
    const rows = rowsOf(entries.text);
    expect(rows.map((r) => r.notes).sort()).toEqual(['mia on 2026-11-02', 'mia on 2026-11-03']);
    expect(rowsOf((await download(mia, `time.csv?${RANGE}&by=person`)).text).map((r) => r.person)).toEqual(['Mia Member']);
    for (const money of ['receivables.csv', 'paid-per-month.csv', 'invoices.csv', 'payments.csv']) {
      const refused = await download(mia, money);
      expect(refused.status, money).toBe(403);
      expect(refused.body).toMatchObject({ code: 'forbidden' });
    }
    // Naming someone else's time, or acting as someone else, is refused, not widened.
    expect((await download(mia, `time-entries.csv?${RANGE}&user_ids=${data.sam.id}`)).status).toBe(403);
    const asOwner = await download(mia, `time-entries.csv?${RANGE}&email=${encodeURIComponent(env.alpha.ownerEmail)}`);
    expect(asOwner.status).toBe(403);
    expect(asOwner.body).toMatchObject({ code: 'acting_user_mismatch' });
    expect((await mia.query('reports.receivables', { email: env.alpha.ownerEmail })).error?.code).toBe('acting_user_mismatch');
  });

  it("a project manager's CSV adds the entries of the projects they manage", async () => {
    const pam = await signedIn(env.alpha, data.pam.email);
    const rows = rowsOf((await download(pam, `time-entries.csv?${RANGE}`)).text);
    expect(rows.map((r) => r.notes).sort()).toEqual(['pam on 2026-11-05', 'sam on 2026-11-04']);
    const sams = rowsOf((await download(pam, `time-entries.csv?${RANGE}&user_ids=${data.sam.id}&project_ids=${data.app.id}`)).text);
    expect(sams.map((r) => r.notes)).toEqual(['sam on 2026-11-04']);
  });

  it("another workspace's cookie, no cookie, or an ended session opens nothing", async () => {
    const owner = await signedIn(env.alpha, env.alpha.ownerEmail);
    const replayed = await download(owner, `time-entries.csv?${RANGE}`, env.beta.host);
    expect(replayed.status).toBe(401);
    expect(replayed.headers['content-type']).toMatch(/^application\/json/);
    expect(replayed.text).not.toContain('mia on');
    // Beta's own Owner is fine on beta, and sees none of alpha's entries.
    const betaOwner = await signedIn(env.beta, env.beta.ownerEmail);
    const beta = await download(betaOwner, `time-entries.csv?${RANGE}`);
    expect(beta.status).toBe(200);
    expect(rowsOf(beta.text)).toEqual([]);

    expect((await download(new BrowserSession(env.url, env.alpha.host), `time-entries.csv?${RANGE}`)).status).toBe(401);
    await owner.mutate('auth.signOut');
    const stale = new BrowserSession(env.url, env.alpha.host);
    stale.cookie = `hourbook_session=${'x'.repeat(43)}`;
    const ended = await download(stale, `time-entries.csv?${RANGE}`);
    expect(ended.status).toBe(401);
    expect(ended.body).toMatchObject({ code: 'session_expired' });
    expect(String(ended.headers['set-cookie'])).toMatch(/hourbook_session=; Max-Age=0/);
  });

  it('an API key still wins over a cookie, as on /trpc', async () => {
    const mia = await signedIn(env.alpha, data.mia.email);
    const res = await send(env.url, 'GET', `/api/exports/time-entries.csv?${RANGE}`, { host: env.alpha.host, key: env.alpha.key, headers: { cookie: mia.cookie! } });
    expect(res.status).toBe(200);
    expect(rowsOf(res.text)).toHaveLength(data.entries.length);
  });
});

describe('reports.filterOptions (the time report page’s filter lists)', () => {
  const names = (list: { name: string }[]) => list.map((x) => x.name);

  it('gives an Owner every client, project and person', async () => {
    const owner = await signedIn(env.alpha, env.alpha.ownerEmail);
    const options = (await owner.query('reports.filterOptions', {})).data;
    expect(names(options.clients)).toEqual(['Acme']);
    expect(names(options.projects)).toEqual(['App', 'Website']);
    expect(names(options.people)).toEqual(['Mia Member', 'Owner alpha', 'Pam Manager', 'Sam Other']);
    expect(options.managed_project_ids).toBeNull();
  });

  it('gives a Member their projects and themselves; a manager also the people of the projects they manage', async () => {
    const mia = (await (await signedIn(env.alpha, data.mia.email)).query('reports.filterOptions', {})).data;
    expect([names(mia.clients), names(mia.projects), names(mia.people), mia.managed_project_ids]).toEqual([['Acme'], ['Website'], ['Mia Member'], []]);
    const pam = (await (await signedIn(env.alpha, data.pam.email)).query('reports.filterOptions', {})).data;
    expect([names(pam.projects), names(pam.people), pam.managed_project_ids]).toEqual([['App'], ['Pam Manager', 'Sam Other'], [data.app.id]]);
  });

  it('answers the workspace key for the person it names, and refuses unknown parameters', async () => {
    const asMia = await env.alpha.caller.reports.filterOptions({ email: data.mia.email });
    expect(names(asMia.projects)).toEqual(['Website']);
    await expect(env.alpha.caller.reports.filterOptions({ client_ids: [data.client.id] } as never)).rejects.toMatchObject({ cause: { code: 'validation_failed' } });
  });
});

describe('a query POSTed because its input is too long for a URL', () => {
  it('runs as the query it is, behind the CSRF guard of every cookie POST', async () => {
    const owner = await signedIn(env.alpha, env.alpha.ownerEmail);
    const input = { from: '2026-11-01', to: '2026-11-30', by: ['person'], user_ids: [data.mia.id, data.sam.id, data.pam.id] };
    const posted = await owner.mutate('reports.time', input);
    expect(posted.status).toBe(200);
    expect(posted.data).toEqual((await owner.query('reports.time', input)).data);
    expect((await owner.mutate('reports.time', input, { csrf: false })).status).toBe(403);
    expect((await owner.mutate('reports.time', input, { origin: 'http://evil.localhost' })).status).toBe(403);
  });
});
