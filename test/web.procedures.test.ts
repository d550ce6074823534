import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountTokens, teamMembers } from '../src/db/schema/index.ts';
import { issuePasswordLink } from '../src/domain/accounts/links.ts';
import { scopeOf, startTestEnv, testClock, type TestEnv, type TestWorkspace } from './helpers/env.ts';
import { makeMember, makeProject, makeProjectSetup, makeProjectUser, makeTask, makeTimeEntry } from './helpers/factories.ts';
import { send } from './helpers/http.ts';
import { BrowserSession, tokenOf } from './helpers/session.ts';

/** The procedures the web app's pages are built on, called as the app calls them (session cookie over /trpc). */

let env: TestEnv;
// A Wednesday.
const clock = testClock('2026-11-18T10:00:00.000Z');

beforeAll(async () => {
  env = await startTestEnv({ clock });
});
afterAll(() => env.close());

async function signedIn(ws: TestWorkspace, email: string) {
  const b = new BrowserSession(env.url, ws.host);
  const token = tokenOf(issuePasswordLink(scopeOf(env.services, ws.handle), { email }).link);
  expect((await b.mutate('auth.setPassword', { token, password: 'a password for tests' })).status).toBe(200);
  return b;
}

describe('timesheet.week', () => {
  it("gives a person's week in one call: projects with tasks and locked days, entries, people", async () => {
    const db = env.alpha.handle.db;
    const s = makeProjectSetup(db, { project: { autolockEnabled: true, lockEndOfDay: true } });
    makeTimeEntry(db, { clientId: s.client.id, projectId: s.project.id, taskId: s.task.id, userId: s.member.id }, { recordedOn: '2026-11-16', seconds: 5400, enteredSeconds: 5400 });
    makeTimeEntry(db, { clientId: s.client.id, projectId: s.project.id, taskId: s.task.id, userId: s.member.id }, { recordedOn: '2026-11-09' });
    const b = await signedIn(env.alpha, s.member.email);
    const week = (await b.query('timesheet.week', {})).data;
    expect(week.person.email).toBe(s.member.email);
    expect(week.week_start).toBe('2026-11-16');
    expect(week.days).toEqual(['2026-11-16', '2026-11-17', '2026-11-18', '2026-11-19', '2026-11-20', '2026-11-21', '2026-11-22']);
    expect(week.today).toBe('2026-11-18');
    expect(week.entries.map((e: { hours: number }) => e.hours)).toEqual([1.5]);
    const project = week.projects.find((p: { id: string }) => p.id === s.project.id);
    // end_of_the_day: D is locked from D+2, so on the 18th the 16th is locked, the 17th not yet.
    expect(project).toMatchObject({ open: true, locked_days: ['2026-11-16'], may_override: false, client_name: s.client.name });
    expect(project.tasks[0]).toMatchObject({ id: s.task.id, checklist_items: [{ id: s.item.id, description: s.item.description }] });
    expect(week.people.map((p: { id: string }) => p.id)).toEqual([s.member.id]);
    expect((await b.query('timesheet.week', { week_of: '2026-11-11' })).data.entries).toHaveLength(1);
  });

  it("a member cannot open a colleague's timesheet; their project's manager sees that project only; an Owner all", async () => {
    const db = env.alpha.handle.db;
    const s = makeProjectSetup(db);
    const other = makeProject(db, s.client.id);
    makeTask(db, other.id);
    makeProjectUser(db, other.id, s.member.id);
    const colleague = makeMember(db);
    makeProjectUser(db, s.project.id, colleague.id);
    const manager = makeMember(db);
    makeProjectUser(db, s.project.id, manager.id, { role: 'project_manager' });

    const peer = await signedIn(env.alpha, colleague.email);
    expect((await peer.query('timesheet.week', { user_id: s.member.id })).status).toBe(403);
    const pm = await signedIn(env.alpha, manager.email);
    const seen = (await pm.query('timesheet.week', { user_id: s.member.id })).data;
    expect(seen.projects.map((p: { id: string }) => p.id)).toEqual([s.project.id]);
    expect(seen.projects[0].may_override).toBe(true);
    expect(seen.people.map((p: { id: string }) => p.id)).toEqual(expect.arrayContaining([manager.id, s.member.id, colleague.id]));
    const owner = await signedIn(env.alpha, env.alpha.ownerEmail);
    expect((await owner.query('timesheet.week', { user_id: s.member.id })).data.projects.map((p: { id: string }) => p.id).sort()).toEqual([s.project.id, other.id].sort());
  });
});

describe('the timer', () => {
  it('records the elapsed minutes (rounded up) on the day it started; one timer at a time', async () => {
    const db = env.alpha.handle.db;
    const s = makeProjectSetup(db);
    const b = await signedIn(env.alpha, s.member.email);
    const start = { client_id: s.client.id, project_id: s.project.id, task_id: s.task.id, notes: 'Pairing' };
    expect((await b.mutate('timesheet.startTimer', start)).data.timer).toMatchObject({ project_id: s.project.id, started_at: clock().toISOString() });
    expect((await b.mutate('timesheet.startTimer', start)).error?.code).toBe('timer_running');
    expect((await b.query('timesheet.week', {})).data.timer).toMatchObject({ notes: 'Pairing' });
    clock.advance(95 * 60_000 + 10_000);
    const stopped = await b.mutate('timesheet.stopTimer', {});
    expect(stopped.data.time_entry).toMatchObject({ seconds: 96 * 60, recorded_on: '2026-11-18', notes: 'Pairing', user_id: s.member.id });
    expect((await b.query('timesheet.week', {})).data.timer).toBeNull();
    expect((await b.mutate('timesheet.stopTimer', {})).error?.code).toBe('timer_not_found');
    clock.set('2026-11-18T10:00:00.000Z');
  });

  it('records on the day it started by the calendar the person had then, though their zone changed meanwhile', async () => {
    const db = env.alpha.handle.db;
    const s = makeProjectSetup(db);
    db.update(teamMembers).set({ timeZone: 'Europe/Berlin' }).where(eq(teamMembers.id, s.member.id)).run();
    const b = await signedIn(env.alpha, s.member.email);
    // 00:30 on 19 November in Berlin, still 18 November in UTC.
    clock.set('2026-11-18T23:30:00.000Z');
    try {
      await b.mutate('timesheet.startTimer', { client_id: s.client.id, project_id: s.project.id, task_id: s.task.id });
      db.update(teamMembers).set({ timeZone: 'UTC' }).where(eq(teamMembers.id, s.member.id)).run();
      clock.advance(30 * 60_000);
      const stopped = await b.mutate('timesheet.stopTimer', {});
      expect(stopped.data.time_entry).toMatchObject({ seconds: 30 * 60, recorded_on: '2026-11-19' });
    } finally {
      clock.set('2026-11-18T10:00:00.000Z');
    }
  });

  it('refuses a project the person is not on, and discards without recording', async () => {
    const db = env.alpha.handle.db;
    const s = makeProjectSetup(db);
    const outsider = makeMember(db);
    const b = await signedIn(env.alpha, outsider.email);
    const res = await b.mutate('timesheet.startTimer', { client_id: s.client.id, project_id: s.project.id, task_id: s.task.id });
    expect(res.error?.code).toBe('not_a_project_user');
    const member = await signedIn(env.alpha, s.member.email);
    await member.mutate('timesheet.startTimer', { client_id: s.client.id, project_id: s.project.id, task_id: s.task.id });
    expect((await member.mutate('timesheet.discardTimer', {})).data).toEqual({ timer: null });
    expect((await member.query('timesheet.week', {})).data.entries).toHaveLength(0);
  });
});

describe('approvals.pending', () => {
  it("lists what the caller may decide on, with names, in one call", async () => {
    const db = env.beta.handle.db;
    const s = makeProjectSetup(db, { project: { enableApprovals: true } });
    const elsewhere = makeProjectSetup(db, { project: { enableApprovals: true } });
    const refs = { clientId: s.client.id, projectId: s.project.id, taskId: s.task.id, userId: s.member.id };
    makeTimeEntry(db, refs, { status: 'pending_approval', recordedOn: '2026-11-17' });
    makeTimeEntry(db, refs, { status: 'pending_approval', recordedOn: '2026-11-16' });
    makeTimeEntry(db, { clientId: elsewhere.client.id, projectId: elsewhere.project.id, taskId: elsewhere.task.id, userId: elsewhere.member.id }, { status: 'pending_approval' });
    const manager = makeMember(db);
    makeProjectUser(db, s.project.id, manager.id, { role: 'project_manager' });

    const pm = await signedIn(env.beta, manager.email);
    const items = (await pm.query('approvals.pending', {})).data.items;
    expect(items.map((e: { recorded_on: string }) => e.recorded_on)).toEqual(['2026-11-16', '2026-11-17']);
    expect(items[0]).toMatchObject({ user_name: `${s.member.firstName} ${s.member.lastName}`, project_name: s.project.name, task_name: s.task.name, client_name: s.client.name });
    const member = await signedIn(env.beta, s.member.email);
    expect((await member.query('approvals.pending', {})).data.items).toEqual([]);
    const owner = await signedIn(env.beta, env.beta.ownerEmail);
    expect((await owner.query('approvals.pending', {})).data.items).toHaveLength(3);
  });
});

describe('invoices.compose and invoices.preview', () => {
  it('show unbilled time and price it exactly as creating the invoice does', async () => {
    const db = env.alpha.handle.db;
    const s = makeProjectSetup(db, { project: { hourlyRateMinor: 12_345 } });
    const refs = { clientId: s.client.id, projectId: s.project.id, taskId: s.task.id, userId: s.member.id };
    const a = makeTimeEntry(db, refs, { seconds: 5400 });
    const b = makeTimeEntry(db, refs, { seconds: 1000 });
    makeTimeEntry(db, refs, { status: 'pending_approval' });
    const owner = await signedIn(env.alpha, env.alpha.ownerEmail);
    const compose = (await owner.query('invoices.compose', { client_id: s.client.id })).data;
    expect(compose.unbilled.map((e: { id: string }) => e.id).sort()).toEqual([a.id, b.id].sort());
    expect(compose.client).toMatchObject({ currency: 'USD' });
    expect(compose.next_number).toMatch(/^INV-/);

    const lines = [a, b].map((e) => ({ time_entry_id: e.id, project_id: e.projectId, task_id: e.taskId, user_id: e.userId }));
    const input = { client_id: s.client.id, invoice_time_entries: lines, tax_details: [{ name: 'VAT', percentage: 19, selected: true }] };
    const preview = (await owner.query('invoices.preview', input)).data;
    // 1.5 h × 123.45 = 185.175 → 185.18; 1000 s × 123.45 / 3600 = 34.2916… → 34.29; VAT 19 % of 219.47 = 41.6993 → 41.70
    expect(preview).toMatchObject({ subtotal: 219.47, tax_total: 41.7, total: 261.17 });
    expect(preview.lines.map((l: { amount: number }) => l.amount)).toEqual([185.18, 34.29]);
    const created = await owner.mutate('invoices.create', { ...input, number: compose.next_number, total: preview.total });
    expect(created.status).toBe(200);
    const again = await owner.query('invoices.preview', input);
    expect(again.status).toBe(422);

    const view = (await owner.query('invoices.view', { invoice_id: created.data.invoice.id })).data;
    expect(view.client_name).toBe(s.client.name);
    expect(view.line_details[0]).toMatchObject({ date: a.recordedOn, task_name: s.task.name, person_name: `${s.member.firstName} ${s.member.lastName}` });
  });

  it('are for Owners and Admins', async () => {
    const s = makeProjectSetup(env.alpha.handle.db);
    const member = await signedIn(env.alpha, s.member.email);
    expect((await member.query('invoices.compose', { client_id: s.client.id })).status).toBe(403);
    expect((await member.query('invoices.preview', { client_id: s.client.id, invoice_services: [{ quantity: 1, unit_amount: 5 }] })).status).toBe(403);
  });
});

describe("a project's users", () => {
  it('a manager changes a role, rate and approval type, and removes someone; a regular user may not', async () => {
    const db = env.alpha.handle.db;
    const s = makeProjectSetup(db);
    const manager = makeMember(db);
    makeProjectUser(db, s.project.id, manager.id, { role: 'project_manager' });
    const pm = await signedIn(env.alpha, manager.email);
    const target = { project_id: s.project.id, project_user_id: s.projectUser.id };
    const updated = await pm.mutate('projects.updateUser', { ...target, project_user: { hourly_rate: 88.5, approval_type: 'auto_approval' } });
    expect(updated.data.project_user).toMatchObject({ id: s.projectUser.id, user_id: s.member.id, hourly_rate: 88.5, role: 'regular_user' });
    const read = await pm.query('projects.get', { project_id: s.project.id });
    expect(read.data.project.project_users.find((u: { id: string }) => u.id === s.projectUser.id)).toMatchObject({ approval_type: 'auto_approval' });
    const member = await signedIn(env.alpha, s.member.email);
    expect((await member.mutate('projects.updateUser', { ...target, project_user: { role: 'project_manager' } })).status).toBe(403);
    expect((await pm.mutate('projects.removeUser', target)).data).toEqual({ notice_code: 'project_user_removed', project_user_id: s.projectUser.id, user_id: s.member.id });
    expect((await pm.mutate('projects.removeUser', target)).error?.code).toBe('project_user_not_found');
  });

  it("projects.list (the app's Projects page) gives a manager the projects they manage, a Member none, an Owner all", async () => {
    const ws = env.workspace('pm-list');
    const db = ws.handle.db;
    const s = makeProjectSetup(db);
    const worksOn = makeProject(db, s.client.id);
    const elsewhere = makeProject(db, s.client.id);
    const manager = makeMember(db);
    makeProjectUser(db, s.project.id, manager.id, { role: 'project_manager' });
    makeProjectUser(db, worksOn.id, manager.id);
    const ids = (answer: { data: { items: { id: string }[] } }) => answer.data.items.map((p) => p.id).sort();
    const pm = await signedIn(ws, manager.email);
    expect(ids(await pm.query('projects.list', { limit: 200 }))).toEqual([s.project.id]);
    const member = await signedIn(ws, s.member.email);
    expect(ids(await member.query('projects.list', { limit: 200 }))).toEqual([]);
    const owner = await signedIn(ws, ws.ownerEmail);
    expect(ids(await owner.query('projects.list', { limit: 200 }))).toEqual([s.project.id, worksOn.id, elsewhere.id].sort());
  });
});

describe('team and settings', () => {
  it('accounts.team shows each account state; workspace.details and apiKeys are for Owners and Admins', async () => {
    const ws = env.workspace('teamview');
    const owner = await signedIn(ws, ws.ownerEmail);
    await owner.mutate('accounts.invite', { email: 'inv@t.test', first_name: 'In', last_name: 'Vited' });
    makeMember(ws.handle.db, { email: 'api-only@t.test' });
    const team = (await owner.query('accounts.team', {})).data;
    const state = Object.fromEntries(team.members.map((m: { email: string; account: string }) => [m.email, m.account]));
    expect(state).toEqual({ [ws.ownerEmail]: 'active', 'inv@t.test': 'invited', 'api-only@t.test': 'none' });
    expect(team.roles).toEqual(['Owner', 'Admin', 'Member']);
    const invited = team.members.find((m: { email: string }) => m.email === 'inv@t.test');
    const token = ws.handle.db.select().from(accountTokens).where(eq(accountTokens.memberId, invited.id)).get();
    expect(invited.invite_expires_at).toBe(token?.expiresAt);

    expect((await owner.query('workspace.details', {})).data).toMatchObject({ subdomain: 'teamview', time_zone: 'UTC' });
    const m = makeMember(ws.handle.db);
    const member = await signedIn(ws, m.email);
    expect((await member.query('workspace.details', {})).status).toBe(403);
    expect((await member.query('accounts.team', {})).status).toBe(403);
  });

  it('a workspace key is created (shown once), listed with its prefix, and revoked', async () => {
    const owner = await signedIn(env.alpha, env.alpha.ownerEmail);
    const created = (await owner.mutate('apiKeys.create', { label: 'CI', expires_on: '2027-01-01', current_password: 'a password for tests' })).data;
    expect(created.api_key).toMatch(/^hb_/);
    expect(created.key).toMatchObject({ label: 'CI', member: null, expires_at: '2027-01-01T00:00:00.000Z', prefix: created.api_key.slice(0, 10) });
    const listed = (await owner.query('apiKeys.list', {})).data.items;
    expect(JSON.stringify(listed)).not.toContain(created.api_key);
    expect((await owner.mutate('apiKeys.create', { label: 'old', expires_on: '2020-01-01', current_password: 'a password for tests' })).error?.details?.[0]?.path).toBe('expires_on');
    expect((await owner.mutate('apiKeys.revoke', { key_id: created.key.id })).data.key.revoked_at).not.toBeNull();
    expect((await owner.mutate('apiKeys.revoke', { key_id: created.key.id })).status).toBe(422);
  });
});

describe('the app is served on every workspace host', () => {
  it('index.html for app routes only, never instead of the API, docs, health or public invoice pages', async () => {
    const get = (path: string, host = env.alpha.host) => send(env.url, 'GET', path, { host });
    const isApp = (text: string) => text.includes('<div id="root">');
    for (const path of ['/', '/timesheet', '/invoicing/123', '/set-password']) {
      const page = await get(path);
      expect(page.status, path).toBe(200);
      expect(isApp(page.text), path).toBe(true);
      expect(page.headers['cache-control']).toBe('no-cache');
      expect(page.headers['content-security-policy']).toMatch(/default-src 'self'/);
    }
    for (const path of ['/healthz', '/api/external/v2/team-members', '/docs', '/invoices/not-a-token', '/trpc/auth.me', '/nothing-here', '/assets/missing.js']) {
      expect(isApp((await get(path)).text), path).toBe(false);
    }
    expect((await get('/nothing-here')).status).toBe(404);
    expect((await get('/assets/missing.js')).status).toBe(404);
    const nowhere = await get('/timesheet', 'nowhere.localhost');
    expect(nowhere.status).toBe(404);
    expect(nowhere.text).toContain('No workspace here');
  });
});

describe('reports with a session', () => {
  it('a Member asks as themselves: naming the Owner is refused, and only their own time is counted', async () => {
    const db = env.alpha.handle.db;
    const s = makeProjectSetup(db);
    const colleague = makeMember(db);
    makeProjectUser(db, s.project.id, colleague.id);
    const refs = { clientId: s.client.id, projectId: s.project.id, taskId: s.task.id };
    makeTimeEntry(db, { ...refs, userId: s.member.id }, { recordedOn: '2026-11-16', seconds: 3600, enteredSeconds: 3600 });
    makeTimeEntry(db, { ...refs, userId: colleague.id }, { recordedOn: '2026-11-16', seconds: 7200, enteredSeconds: 7200 });
    const member = await signedIn(env.alpha, s.member.email);
    const range = { from: '2026-11-16', to: '2026-11-16', by: ['person'], project_ids: [s.project.id] };
    const asOwner = await member.query('reports.time', { ...range, email: env.alpha.ownerEmail });
    expect([asOwner.status, asOwner.error?.code]).toEqual([403, 'acting_user_mismatch']);
    const own = await member.query('reports.time', range);
    expect(own.data.rows.map((r: { keys: { id: string }[]; seconds: number }) => [r.keys[0]!.id, r.seconds])).toEqual([[s.member.id, 3600]]);
    const owner = await signedIn(env.alpha, env.alpha.ownerEmail);
    expect((await owner.query('reports.time', range)).data.totals.seconds).toBe(10800);
  });

  it("the workspace's card payment settings and stored identity are read by Owners and Admins only", async () => {
    const member = await signedIn(env.alpha, makeMember(env.alpha.handle.db).email);
    expect((await member.query('workspace.paymentProcessor', {})).status).toBe(403);
    expect((await member.query('workspace.identity', {})).status).toBe(403);
    const owner = await signedIn(env.alpha, env.alpha.ownerEmail);
    expect((await owner.query('workspace.paymentProcessor', {})).status).toBe(200);
    expect((await owner.query('workspace.identity', {})).status).toBe(200);
  });
});
