import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClient, makeMember, makeProject, makeProjectUser, makeTask, makeTimeEntry } from './helpers/factories.ts';
import { callerFor, startTestEnv, testClock, type TestEnv, type TestWorkspace } from './helpers/env.ts';
import { makeInvoice, makePayment } from './helpers/report-factories.ts';
import { provisionWorkspace } from '../src/domain/workspace/provision.ts';
import { inIds } from '../src/domain/queries.ts';

let env: TestEnv;
/** Wednesday 18 November 2026, 10:00 UTC. */
const clock = testClock('2026-11-18T10:00:00.000Z');

beforeAll(async () => {
  env = await startTestEnv({ clock });
});
afterAll(() => env.close());

const fails = (code: string) => ({ cause: { code } });
const failsOn = (code: string, path: string) => ({ cause: { code, details: expect.arrayContaining([expect.objectContaining({ path })]) } });

/**
 * An agency: Acme pays in USD (a project-rate project and a person-rate project), Kyoto in JPY (a
 * task-rate project with a non-billable task). Ann and Bob work; Pia manages the person-rate project.
 */
function agency(ws: TestWorkspace) {
  const db = ws.handle.db;
  const acme = makeClient(db, { name: 'Acme', currency: 'USD' });
  const kyoto = makeClient(db, { name: 'Kyoto', currency: 'JPY' });
  const web = makeProject(db, acme.id, { name: 'Website', billingMethod: 'hourly_project_rate', hourlyRateMinor: 12000 });
  const app = makeProject(db, acme.id, { name: 'App', billingMethod: 'hourly_person_rate', hourlyRateMinor: 0 });
  const shop = makeProject(db, kyoto.id, { name: 'Shop', billingMethod: 'hourly_task_rate', currency: 'JPY', hourlyRateMinor: 0 });
  const webDev = makeTask(db, web.id, { name: 'Development' });
  const appDev = makeTask(db, app.id, { name: 'Development' });
  const design = makeTask(db, shop.id, { name: 'Design', hourlyRateMinor: 9000 });
  const meeting = makeTask(db, shop.id, { name: 'Meetings', billable: false, hourlyRateMinor: 5000 });
  const ann = makeMember(db, { firstName: 'Ann', lastName: 'Archer', email: `ann@${ws.subdomain}.test` });
  const bob = makeMember(db, { firstName: 'Bob', lastName: 'Baker', email: `bob@${ws.subdomain}.test` });
  const pia = makeMember(db, { firstName: 'Pia', lastName: 'Pm', email: `pia@${ws.subdomain}.test` });
  for (const user of [ann, bob]) for (const p of [web, app, shop]) makeProjectUser(db, p.id, user.id, { hourlyRateMinor: user === ann ? 15000 : 10000 });
  makeProjectUser(db, app.id, pia.id, { role: 'project_manager' });
  const entry = (p: { id: string; clientId: string }, taskId: string, userId: string, recordedOn: string, seconds: number, status: 'unbilled' | 'billed' | 'non_billable' | 'pending_approval' | 'rejected' = 'unbilled') =>
    makeTimeEntry(db, { clientId: p.clientId, projectId: p.id, taskId, userId }, { recordedOn, seconds, enteredSeconds: seconds, status });
  const entries = [
    entry(web, webDev.id, ann.id, '2026-10-05', 3600), // 120.00
    entry(web, webDev.id, bob.id, '2026-11-02', 1800, 'billed'), // 60.00
    entry(app, appDev.id, ann.id, '2026-11-03', 5400), // 1.5 h × 150 = 225.00
    entry(app, appDev.id, bob.id, '2026-11-04', 1234), // 1234 s × 100.00 / 3600 = 34.277… → 34.28
    entry(shop, design.id, bob.id, '2026-11-05', 7200), // 2 h × ¥9000 = ¥18000 (JPY has no minor unit)
    entry(shop, meeting.id, ann.id, '2026-11-05', 3600, 'non_billable'),
    entry(shop, design.id, ann.id, '2026-11-06', 3600, 'rejected'),
    entry(web, webDev.id, bob.id, '2026-11-10', 900, 'pending_approval'), // 30.00 billable, not yet invoiceable
  ];
  return { acme, kyoto, web, app, shop, webDev, appDev, design, meeting, ann, bob, pia, entries };
}

describe('reports.time', () => {
  let ws: TestWorkspace;
  let a: ReturnType<typeof agency>;
  beforeAll(() => {
    ws = env.workspace('timereport');
    a = agency(ws);
  });
  const report = (input: Record<string, unknown>) => ws.caller.reports.time(input as never);

  it('groups by client and keeps each currency apart; amounts use the rates an invoice would use', async () => {
    const r = await report({ from: '2026-10-01', to: '2026-11-30', by: ['client'] });
    expect(r.rows.map((row) => row.keys[0]!.label)).toEqual(['Acme', 'Kyoto']);
    const acme = r.rows[0]!;
    expect(acme).toMatchObject({ entries: 5, seconds: 3600 + 1800 + 5400 + 1234 + 900, billable_seconds: 3600 + 1800 + 5400 + 1234 + 900, unbilled_seconds: 3600 + 5400 + 1234 });
    expect(acme.amounts).toEqual([{ currency: 'USD', billable_amount: 120 + 60 + 225 + 34.28 + 30, unbilled_amount: 120 + 225 + 34.28 }]);
    const kyoto = r.rows[1]!;
    // The rejected entry is left out unless asked for; the meeting is recorded but not billable.
    expect(kyoto).toMatchObject({ entries: 2, seconds: 10800, billable_seconds: 7200, unbilled_seconds: 7200, amounts: [{ currency: 'JPY', billable_amount: 18000, unbilled_amount: 18000 }] });
    expect(r.totals.amounts).toEqual([
      { currency: 'JPY', billable_amount: 18000, unbilled_amount: 18000 },
      { currency: 'USD', billable_amount: 469.28, unbilled_amount: 379.28 },
    ]);
    expect(r.totals.hours).toBe(Math.round(((3600 + 1800 + 5400 + 1234 + 900 + 10800) / 3600) * 10000) / 10000);
  });

  it('groups by person and month, with period keys that name their first day', async () => {
    const r = await report({ from: '2026-10-01', to: '2026-11-30', by: ['person', 'month'] });
    expect(r.rows.map((row) => [row.keys[0]!.label, row.keys[1]!.id, row.seconds])).toEqual([
      ['Ann Archer', '2026-10', 3600],
      ['Ann Archer', '2026-11', 5400 + 3600],
      ['Bob Baker', '2026-11', 1800 + 1234 + 7200 + 900],
    ]);
    expect(r.rows[0]!.keys[1]).toEqual({ by: 'month', id: '2026-10', label: '2026-10', starts_on: '2026-10-01' });
    // Bob's November spans two currencies: one row, two amounts.
    expect(r.rows[2]!.amounts.map((x) => x.currency)).toEqual(['JPY', 'USD']);
  });

  it('names ISO weeks and days', async () => {
    const weeks = await report({ from: '2026-11-01', to: '2026-11-30', by: ['week'] });
    expect(weeks.rows.map((row) => [row.keys[0]!.id, row.keys[0]!.starts_on])).toEqual([
      ['2026-W45', '2026-11-02'],
      ['2026-W46', '2026-11-09'],
    ]);
    const days = await report({ from: '2026-11-05', to: '2026-11-05', by: ['day', 'task'] });
    expect(days.rows.map((row) => [row.keys[0]!.id, row.keys[1]!.label])).toEqual([
      ['2026-11-05', 'Design'],
      ['2026-11-05', 'Meetings'],
    ]);
  });

  it('keys months as months when the report also groups by week (two periods at once)', async () => {
    const r = await report({ from: '2026-11-01', to: '2026-11-30', by: ['month', 'week'] });
    expect(r.rows.map((row) => [row.keys[0]!.id, row.keys[1]!.id])).toEqual([
      ['2026-11', '2026-W45'],
      ['2026-11', '2026-W46'],
    ]);
  });

  it('filters by client, project, person, billable and status', async () => {
    const base = { from: '2026-10-01', to: '2026-11-30', by: ['project'] };
    expect((await report({ ...base, client_ids: [a.kyoto.id] })).rows.map((r) => r.keys[0]!.label)).toEqual(['Shop']);
    expect((await report({ ...base, project_ids: [a.app.id] })).totals.seconds).toBe(5400 + 1234);
    expect((await report({ ...base, user_ids: [a.ann.id] })).totals.seconds).toBe(3600 + 5400 + 3600);
    expect((await report({ ...base, billable: false })).totals.seconds).toBe(3600);
    expect((await report({ ...base, status: ['rejected'] })).totals).toMatchObject({ seconds: 3600, billable_seconds: 0 });
    expect((await report({ ...base, status: ['billed', 'pending_approval'] })).totals.amounts).toEqual([{ currency: 'USD', billable_amount: 90, unbilled_amount: 0 }]);
  });

  it('a day range is inclusive at both ends', async () => {
    expect((await report({ from: '2026-11-02', to: '2026-11-02', by: ['day'] })).totals.seconds).toBe(1800);
    expect((await report({ from: '2026-10-06', to: '2026-11-01', by: ['day'] })).rows).toEqual([]);
  });

  it('a task made non-billable after recording no longer counts as billable or unbilled', async () => {
    const w = env.workspace('taskchange');
    const b = agency(w);
    const { tasks } = await import('../src/db/schema/index.ts');
    w.handle.db.update(tasks).set({ billable: false }).where(inIds(tasks.id, [b.webDev.id, b.appDev.id, b.design.id])).run();
    const r = await w.caller.reports.time({ from: '2026-10-01', to: '2026-11-30', by: ['client'] });
    // Billed entries stay billable work; open ones of non-billable tasks are not.
    expect(r.totals).toMatchObject({ billable_seconds: 1800, unbilled_seconds: 0 });
    expect(b.entries).toHaveLength(8);
  });

  it('refuses bad input with a 422 naming the field', async () => {
    await expect(report({ from: '2020-01-01', to: '2025-01-01', by: ['month'] })).rejects.toMatchObject(failsOn('validation_failed', 'to'));
    await expect(report({ from: '2026-11-02', to: '2026-11-01', by: ['month'] })).rejects.toMatchObject(failsOn('validation_failed', 'from'));
    await expect(report({ by: ['month', 'fortnight'] })).rejects.toMatchObject(failsOn('validation_failed', 'by.1'));
    await expect(report({ by: ['month', 'month'] })).rejects.toMatchObject(failsOn('validation_failed', 'by'));
    await expect(report({ by: [] })).rejects.toMatchObject(failsOn('validation_failed', 'by'));
    await expect(report({ by: ['month'], clients: [a.acme.id] })).rejects.toMatchObject(failsOn('validation_failed', 'clients'));
    await expect(report({ by: ['month'], from: '2026-02-30' })).rejects.toMatchObject(failsOn('validation_failed', 'from'));
    // Exactly five years is allowed, from 29 February to the 28th five years on too.
    await expect(report({ from: '2021-01-01', to: '2025-12-31', by: ['month'] })).resolves.toBeDefined();
    await expect(report({ from: '2024-02-29', to: '2029-02-28', by: ['month'] })).resolves.toBeDefined();
    await expect(report({ from: '2024-02-29', to: '2029-03-01', by: ['month'] })).rejects.toMatchObject(failsOn('validation_failed', 'to'));
    // The calendar's last years: five years on is past 9999, so any `to` of the calendar is within.
    await expect(report({ from: '9999-06-01', to: '9999-12-31', by: ['month'] })).resolves.toMatchObject({ from: '9999-06-01', to: '9999-12-31' });
    await expect(report({ from: '9996-01-01', to: '9999-12-31', by: ['month'] })).resolves.toBeDefined();
  });

  it('defaults to this month up to today in the workspace time zone', async () => {
    const r = await report({ by: ['month'] });
    expect([r.from, r.to]).toEqual(['2026-11-01', '2026-11-18']);
  });
});

describe('who sees what', () => {
  let ws: TestWorkspace;
  let a: ReturnType<typeof agency>;
  beforeAll(() => {
    ws = env.workspace('visibility');
    a = agency(ws);
  });
  const as = (who: { email: string }) => (input: Record<string, unknown>) => ws.caller.reports.time({ email: who.email, from: '2026-10-01', to: '2026-11-30', ...input } as never);

  it('a Member sees only their own time', async () => {
    const r = await as(a.ann)({ by: ['person'] });
    expect(r.rows.map((row) => row.keys[0]!.label)).toEqual(['Ann Archer']);
    expect(r.totals.seconds).toBe(3600 + 5400 + 3600);
  });

  it("a project manager also sees everyone's time on the projects they manage", async () => {
    const r = await as(a.pia)({ by: ['person', 'project'] });
    expect(r.rows.map((row) => [row.keys[0]!.label, row.keys[1]!.label, row.seconds])).toEqual([
      ['Ann Archer', 'App', 5400],
      ['Bob Baker', 'App', 1234],
    ]);
    const named = await as(a.pia)({ by: ['person'], user_ids: [a.bob.id], project_ids: [a.app.id] });
    expect(named.totals.seconds).toBe(1234);
  });

  it("a Member asking for someone else's time gets 403", async () => {
    await expect(as(a.ann)({ by: ['person'], user_ids: [a.bob.id] })).rejects.toMatchObject(fails('forbidden'));
    await expect(as(a.pia)({ by: ['person'], user_ids: [a.bob.id], project_ids: [a.web.id] })).rejects.toMatchObject(fails('forbidden'));
    await expect(as(a.pia)({ by: ['person'], user_ids: [a.bob.id] })).rejects.toMatchObject(fails('forbidden'));
    // Their own time, named, is fine.
    await expect(as(a.ann)({ by: ['person'], user_ids: [a.ann.id] })).resolves.toMatchObject({ totals: { seconds: 12600 } });
  });

  it('an Owner sees everything; an unknown or inactive person is refused as everywhere else', async () => {
    expect((await as({ email: ws.ownerEmail })({ by: ['person'] })).rows).toHaveLength(2);
    await expect(as({ email: 'nobody@nowhere.test' })({ by: ['person'] })).rejects.toMatchObject(fails('user_not_found'));
  });

  it('money reports are for Owners and Admins', async () => {
    await expect(ws.caller.reports.receivables({ email: a.ann.email })).rejects.toMatchObject(fails('forbidden'));
    await expect(ws.caller.reports.paidPerMonth({ email: a.pia.email })).rejects.toMatchObject(fails('forbidden'));
    await expect(ws.caller.reports.invoiceDraft({ email: a.pia.email, client_id: a.acme.id })).rejects.toMatchObject(fails('forbidden'));
    await expect(ws.caller.reports.exportCsv({ report: 'payments', email: a.ann.email })).rejects.toMatchObject(fails('forbidden'));
    await expect(ws.caller.reports.receivables({ email: ws.ownerEmail })).resolves.toMatchObject({ invoices: [] });
  });

  it('a Member sees unbilled work and utilisation only within what they may see', async () => {
    const unbilled = await ws.caller.reports.unbilled({ email: a.pia.email, to: '2026-11-30' });
    expect(unbilled.rows.map((r) => [r.project.name, r.seconds])).toEqual([['App', 5400 + 1234]]);
    const util = await ws.caller.reports.utilisation({ email: a.ann.email, from: '2026-10-01', to: '2026-11-30' });
    expect(util.people.map((p) => p.person.name)).toEqual(['Ann Archer']);
  });
});

describe('reports.unbilled and reports.invoiceDraft', () => {
  let ws: TestWorkspace;
  let a: ReturnType<typeof agency>;
  beforeAll(() => {
    ws = env.workspace('unbilled');
    a = agency(ws);
  });

  it('lists what can be invoiced now, per client and project, with the oldest day', async () => {
    const r = await ws.caller.reports.unbilled({});
    expect(r.to).toBe('2026-11-18');
    expect(r.rows.map((row) => [row.client.name, row.project.name, row.entries, row.seconds, row.amount, row.oldest_recorded_on, row.newest_recorded_on])).toEqual([
      ['Acme', 'App', 2, 5400 + 1234, 259.28, '2026-11-03', '2026-11-04'],
      ['Acme', 'Website', 1, 3600, 120, '2026-10-05', '2026-10-05'],
      ['Kyoto', 'Shop', 1, 7200, 18000, '2026-11-05', '2026-11-05'],
    ]);
    expect(r.totals).toEqual([
      { currency: 'JPY', entries: 1, seconds: 7200, hours: 2, amount: 18000 },
      { currency: 'USD', entries: 3, seconds: 10234, hours: 2.8428, amount: 379.28 },
    ]);
    expect((await ws.caller.reports.unbilled({ to: '2026-11-03' })).totals.find((t) => t.currency === 'USD')?.amount).toBe(345);
  });

  it('answers the invoices.create input for a client; sent as it is, it invoices exactly that work', async () => {
    const draft = await ws.caller.reports.invoiceDraft({ client_id: a.acme.id });
    expect(draft).toMatchObject({ client: { id: a.acme.id, name: 'Acme' }, currency: 'USD', entries: 3, amount: 379.28, remaining_entries: 0 });
    expect(draft.request).toMatchObject({ client_id: a.acme.id, number: 'INV-0001', issue_date: '2026-11-18', total: 379.28 });
    expect(draft.request.invoice_time_entries.map((l) => l.time_entry_id)).toEqual([a.entries[0]!.id, a.entries[2]!.id, a.entries[3]!.id]);
    const created = await ws.caller.invoices.create({ email: ws.ownerEmail, ...draft.request });
    expect(created.invoice.total).toBe(379.28);
    const after = await ws.caller.reports.unbilled({});
    expect(after.rows.map((r) => r.client.name)).toEqual(['Kyoto']);
    await expect(ws.caller.reports.invoiceDraft({ client_id: a.acme.id })).rejects.toMatchObject(fails('nothing_to_invoice'));
  });

  it('refuses projects of another client and unknown clients', async () => {
    await expect(ws.caller.reports.invoiceDraft({ client_id: a.kyoto.id, project_ids: [a.web.id] })).rejects.toMatchObject(failsOn('validation_failed', 'project_ids.0'));
    await expect(ws.caller.reports.invoiceDraft({ client_id: 'nope' })).rejects.toMatchObject(fails('client_not_found'));
  });

  it("counts entries whose project bills in another currency than its client's as unpriced", async () => {
    const w = env.workspace('unpriced');
    const db = w.handle.db;
    const client = makeClient(db, { currency: 'EUR' });
    const project = makeProject(db, client.id, { currency: 'USD', hourlyRateMinor: 10000 });
    const task = makeTask(db, project.id);
    const member = makeMember(db);
    makeTimeEntry(db, { clientId: client.id, projectId: project.id, taskId: task.id, userId: member.id }, { recordedOn: '2026-11-01' });
    const r = await w.caller.reports.time({ from: '2026-11-01', to: '2026-11-30', by: ['client'] });
    expect(r).toMatchObject({ unpriced_entries: 1, totals: { billable_seconds: 3600, amounts: [{ currency: 'EUR', billable_amount: 0 }] } });
    // "Start an invoice" leaves them out as the report does; with nothing else, there is nothing to invoice.
    await expect(w.caller.reports.invoiceDraft({ client_id: client.id })).rejects.toMatchObject(fails('nothing_to_invoice'));
    const euros = makeProject(db, client.id, { currency: 'EUR', hourlyRateMinor: 8000 });
    const priced = makeTimeEntry(db, { clientId: client.id, projectId: euros.id, taskId: makeTask(db, euros.id).id, userId: member.id }, { recordedOn: '2026-11-02' });
    const draft = await w.caller.reports.invoiceDraft({ client_id: client.id });
    // Before, one such entry made the whole draft fail (currency_mismatch), though the report offered it.
    expect(draft).toMatchObject({ entries: 1, unpriced_entries: 1, remaining_entries: 0, amount: 80 });
    expect(draft.request.invoice_time_entries.map((l) => l.time_entry_id)).toEqual([priced.id]);
    const { invoice } = await w.caller.invoices.create({ ...draft.request, email: (await w.caller.teamMembers.list({})).items.find((m) => m.organization_role === 'Owner')!.email });
    expect(invoice).toMatchObject({ total: 80 });
  });
});

describe('reports.receivables and reports.paidPerMonth', () => {
  /** A workspace in `timeZone` with one client and invoices in several states. */
  function books(subdomain: string, timeZone: string) {
    provisionWorkspace(env.services.registry, { subdomain, timeZone, owner: { email: `owner@${subdomain}.test`, firstName: 'O', lastName: 'W' } }, clock());
    const handle = env.services.registry.get(subdomain)!;
    const db = handle.db;
    const owner = makeMember(db, { organizationRole: 'Owner' });
    const acme = makeClient(db, { name: 'Acme', currency: 'USD' });
    const yen = makeClient(db, { name: 'Yen Co', currency: 'JPY' });
    const inv = (clientId: string, over: Parameters<typeof makeInvoice>[3]) => makeInvoice(db, clientId, owner.id, over);
    const due = {
      today: inv(acme.id, { dueDate: '2026-11-18', totalMinor: 10000 }),
      yesterday: inv(acme.id, { dueDate: '2026-11-17', totalMinor: 20000, status: 'partially_paid' }),
      d30: inv(acme.id, { dueDate: '2026-10-19', totalMinor: 30000 }),
      d31: inv(acme.id, { dueDate: '2026-10-18', totalMinor: 40000, status: 'sending' }),
      d90: inv(yen.id, { dueDate: '2026-08-20', totalMinor: 5000, currency: 'JPY' }),
      d91: inv(yen.id, { dueDate: '2026-08-19', totalMinor: 7000, currency: 'JPY' }),
    };
    makePayment(db, due.yesterday.id, { amountMinor: 5000, paidOn: '2026-11-01' });
    makePayment(db, due.d91.id, { amountMinor: 7000, paidOn: '2026-11-02' }); // paid in full, status not updated: owes nothing
    // Never owing: a draft, a paid and a void invoice, and a credit note.
    inv(acme.id, { status: 'draft', dueDate: '2026-01-01' });
    const paid = inv(acme.id, { status: 'paid', dueDate: '2026-01-01', totalMinor: 999 });
    makePayment(db, paid.id, { amountMinor: 999, paidOn: '2026-01-20' });
    inv(acme.id, { status: 'void', dueDate: '2026-01-01' });
    inv(acme.id, { kind: 'credit_note', status: 'sent', dueDate: '2026-01-01' });
    return { subdomain, acme, yen, due };
  }

  it('ages balances by days past due in the workspace time zone, per client and currency', async () => {
    // 10:00 UTC on 18 November is still the 18th in UTC and Honolulu, already the 19th in Kiritimati.
    const w = books('books-utc', 'UTC');
    const r = await reportWithKey(w.subdomain, (c) => c.reports.receivables({}));
    expect(r.as_of).toBe('2026-11-18');
    expect(r.invoices.map((i) => [i.number, i.balance, i.days_overdue, i.bucket])).toEqual([
      [w.due.d90.number, 5000, 90, 'days_61_90'],
      [w.due.d31.number, 400, 31, 'days_31_60'],
      [w.due.d30.number, 300, 30, 'days_1_30'],
      [w.due.yesterday.number, 150, 1, 'days_1_30'],
      [w.due.today.number, 100, 0, 'not_due'],
    ]);
    expect(r.totals).toEqual([
      { currency: 'JPY', not_due: 0, days_1_30: 0, days_31_60: 0, days_61_90: 5000, over_90: 0, balance: 5000, overdue: 5000, invoices: 1 },
      { currency: 'USD', not_due: 100, days_1_30: 450, days_31_60: 400, days_61_90: 0, over_90: 0, balance: 950, overdue: 850, invoices: 4 },
    ]);
    expect(r.clients.map((c) => [c.client.name, c.currency, c.balance])).toEqual([
      ['Acme', 'USD', 950],
      ['Yen Co', 'JPY', 5000],
    ]);
    const east = books('books-east', 'Pacific/Kiritimati');
    const er = await reportWithKey(east.subdomain, (c) => c.reports.receivables({}));
    expect(er.as_of).toBe('2026-11-19');
    expect(er.invoices.find((i) => i.number === east.due.today.number)).toMatchObject({ days_overdue: 1, bucket: 'days_1_30' });
    expect(er.invoices.find((i) => i.number === east.due.d90.number)).toMatchObject({ days_overdue: 91, bucket: 'over_90' });
  });

  it('sums payments per month (by the day the money arrived) and currency', async () => {
    const w = books('books-paid', 'UTC');
    const r = await reportWithKey(w.subdomain, (c) => c.reports.paidPerMonth({}));
    expect([r.from, r.to]).toEqual(['2025-12-01', '2026-11-18']);
    expect(r.rows).toEqual([
      { month: '2026-01', currency: 'USD', payments: 1, amount: 9.99 },
      { month: '2026-11', currency: 'JPY', payments: 1, amount: 7000 },
      { month: '2026-11', currency: 'USD', payments: 1, amount: 50 },
    ]);
    expect(r.totals).toEqual([
      { currency: 'JPY', payments: 1, amount: 7000 },
      { currency: 'USD', payments: 2, amount: 59.99 },
    ]);
    const acmeOnly = await reportWithKey(w.subdomain, (c) => c.reports.paidPerMonth({ client_ids: [w.acme.id], from: '2026-11-01' }));
    expect(acmeOnly.rows).toEqual([{ month: '2026-11', currency: 'USD', payments: 1, amount: 50 }]);
  });
});

/** A call with the workspace's own key (a fresh one per workspace created in the test). */
async function reportWithKey<T>(subdomain: string, call: (c: ReturnType<typeof callerFor>) => Promise<T>): Promise<T> {
  const handle = env.services.registry.get(subdomain)!;
  const { createApiKey } = await import('../src/workspaces/keys.ts');
  const key = createApiKey(handle.db, { label: 'test', now: clock() });
  return call(callerFor(env.services, subdomain, key.apiKey));
}

describe('reports.utilisation', () => {
  it('gives recorded hours and the billable share per person and ISO week', async () => {
    const ws = env.workspace('utilisation');
    const a = agency(ws);
    const r = await ws.caller.reports.utilisation({ from: '2026-10-01', to: '2026-11-30' });
    expect(r.rows.map((row) => [row.person.name, row.week, row.week_starts_on, row.seconds, row.billable_share])).toEqual([
      ['Ann Archer', '2026-W41', '2026-10-05', 3600, 1],
      ['Ann Archer', '2026-W45', '2026-11-02', 5400 + 3600, 0.6],
      ['Bob Baker', '2026-W45', '2026-11-02', 1800 + 1234 + 7200, 1],
      ['Bob Baker', '2026-W46', '2026-11-09', 900, 1],
    ]);
    expect(r.people.map((p) => [p.person.email, p.hours, p.billable_hours])).toEqual([
      [a.ann.email, 3.5, 2.5],
      [a.bob.email, 3.0928, 3.0928],
    ]);
    const defaults = await ws.caller.reports.utilisation({});
    expect([defaults.from, defaults.to]).toEqual(['2026-08-31', '2026-11-18']);
  });

  it("lets a project manager look at a colleague's weeks on the projects they manage, and only there", async () => {
    const ws = env.workspace('utilisationpm');
    const a = agency(ws);
    const range = { email: a.pia.email, from: '2026-10-01', to: '2026-11-30' };
    await expect(ws.caller.reports.utilisation({ ...range, user_ids: [a.bob.id] })).rejects.toMatchObject(fails('forbidden'));
    await expect(ws.caller.reports.utilisation({ ...range, user_ids: [a.bob.id], project_ids: [a.web.id] })).rejects.toMatchObject(fails('forbidden'));
    const r = await ws.caller.reports.utilisation({ ...range, user_ids: [a.bob.id], project_ids: [a.app.id] });
    expect(r.rows.map((row) => [row.person.name, row.week, row.seconds])).toEqual([['Bob Baker', '2026-W45', 1234]]);
    const csv = await ws.caller.reports.exportCsv({ report: 'utilisation', ...range, user_ids: [a.bob.id], project_ids: [a.app.id] });
    let text = '';
    for await (const piece of csv.pieces) text += piece;
    const rows = parse(text, { columns: true }) as Record<string, string>[];
    expect(rows.map((row) => [row.person, row.week, row.seconds])).toEqual([['Bob Baker', '2026-W45', '1234']]);
  });
});
