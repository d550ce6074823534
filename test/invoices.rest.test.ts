import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/index.ts';
import { clients, invoiceLines, invoices, outbox, projects, timeEntries } from '../src/db/schema/index.ts';
import { provisionWorkspace } from '../src/domain/workspace/provision.ts';
import { apiFor } from './helpers/http.ts';
import { startTestEnv, testClock, type TestEnv } from './helpers/env.ts';
import {
  makeClient,
  makeMember,
  makeProject,
  makeProjectSetup,
  makeProjectUser,
  makeRecipient,
  makeTask,
  makeTimeEntry,
} from './helpers/factories.ts';

let env: TestEnv;
const clock = testClock('2026-11-18T10:00:00.000Z');
const path = (clientId: string) => `/api/external/v2/clients/${clientId}/invoices`;
let numberSeq = 0;
const nextNumber = () => `T-${String(++numberSeq).padStart(5, '0')}`;

beforeAll(async () => {
  env = await startTestEnv({ clock });
});
afterAll(() => env.close());

/** A client with one hourly project (100.00/h), a task, a member and `n` one-hour unbilled entries. */
function setup(db: Database, opts: { entries?: number; project?: Partial<typeof projects.$inferInsert>; currency?: string } = {}) {
  const s = makeProjectSetup(db, { project: { currency: opts.currency ?? 'USD', ...opts.project } });
  if (opts.currency) db.update(clients).set({ currency: opts.currency }).where(eq(clients.id, s.client.id)).run();
  const entries = Array.from({ length: opts.entries ?? 2 }, () =>
    makeTimeEntry(db, { clientId: s.client.id, projectId: s.project.id, taskId: s.task.id, userId: s.member.id }),
  );
  return { ...s, entries };
}

type Setup = ReturnType<typeof setup>;
const lineFor = (s: Setup, e: Setup['entries'][number], extra: Record<string, unknown> = {}) => ({
  time_entry_id: e.id,
  project_id: s.project.id,
  task_id: s.task.id,
  user_id: s.member.id,
  ...extra,
});

const body = (s: Setup, extra: Record<string, unknown> = {}) => ({
  email: env.alpha.ownerEmail,
  number: nextNumber(),
  total: s.entries.length * 100,
  invoice_time_entries: s.entries.map((e) => lineFor(s, e)),
  ...extra,
});

const post = (clientId: string, b: unknown) => env.alpha.api.post(path(clientId), b);
const entryRow = (id: string) => env.alpha.handle.db.select().from(timeEntries).where(eq(timeEntries.id, id)).get()!;
const invoiceCount = () => env.alpha.handle.db.select().from(invoices).all().length;

describe('POST /api/external/v2/clients/{client_id}/invoices', () => {
  it('201 with exactly the spec fields; the entries become billed and the projects and client remember it', async () => {
    const s = setup(env.alpha.handle.db);
    const b = body(s, { interval: 'monthly', notes: 'Thanks!' });
    const res = await post(s.client.id, b);
    expect(res.status).toBe(201);
    expect(res.body.notice_code).toBe('invoice_created');
    expect(Object.keys(res.body.invoice).sort()).toEqual(
      ['client_id', 'created_at', 'due_date', 'id', 'issue_date', 'notes', 'number', 'organization_id', 'status', 'total', 'updated_at'].sort(),
    );
    const inv = res.body.invoice;
    expect(inv).toMatchObject({
      number: b.number,
      total: 200,
      status: 'draft',
      issue_date: '2026-11-18',
      due_date: '2026-12-18',
      notes: 'Thanks!',
      client_id: s.client.id,
      created_at: '2026-11-18T10:00:00.000Z',
    });
    for (const e of s.entries) expect(entryRow(e.id)).toMatchObject({ status: 'billed', invoiceId: inv.id });
    const project = env.alpha.handle.db.select().from(projects).where(eq(projects.id, s.project.id)).get()!;
    expect(project.lastInvoiceId).toBe(inv.id);
    const client = env.alpha.handle.db.select().from(clients).where(eq(clients.id, s.client.id)).get()!;
    expect(client.lastInvoiceInterval).toBe('monthly');
  });

  it('organization_id is the workspace id', async () => {
    const s = setup(env.alpha.handle.db, { entries: 1 });
    const res = await post(s.client.id, body(s));
    const ws = await env.alpha.caller.invoices.get({ invoice_id: res.body.invoice.id });
    expect(res.body.invoice.organization_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(ws.invoice.organization_id).toBe(res.body.invoice.organization_id);
  });

  describe('dates', () => {
    it.each([
      [{ issue_date: '11/01/2026', due_date: '11/15/2026' }, '2026-11-01', '2026-11-15'],
      [{ issue_date: '2026-11-01', due_date: '2026-11-15' }, '2026-11-01', '2026-11-15'],
      [{ issue_date: '11/01/2026', due_date_period: 10 }, '2026-11-01', '2026-11-11'],
      [{ issue_date: '11/01/2026', due_date: '12/31/2026', due_date_period: 5 }, '2026-11-01', '2026-12-31'],
      [{ issue_date: '11/01/2026' }, '2026-11-01', '2026-12-01'],
      [{}, '2026-11-18', '2026-12-18'],
    ])('%j → %s .. %s', async (dates, issue, due) => {
      const s = setup(env.alpha.handle.db, { entries: 1 });
      const res = await post(s.client.id, body(s, dates));
      expect(res.status).toBe(201);
      expect(res.body.invoice.issue_date).toBe(issue);
      expect(res.body.invoice.due_date).toBe(due);
      // Terms are kept only when they set the due date.
      const stored = await env.alpha.caller.invoices.get({ invoice_id: res.body.invoice.id });
      expect(stored.invoice.due_date_period).toBe('due_date' in dates ? null : ((dates as { due_date_period?: number }).due_date_period ?? null));
    });

    it("falls back to the client's default_invoice_due_in_days", async () => {
      const s = setup(env.alpha.handle.db, { entries: 1 });
      env.alpha.handle.db.update(clients).set({ defaultInvoiceDueInDays: 14 }).where(eq(clients.id, s.client.id)).run();
      const res = await post(s.client.id, body(s, { issue_date: '11/01/2026' }));
      expect(res.body.invoice.due_date).toBe('2026-11-15');
    });

    it('takes today in the workspace time zone', async () => {
      const created = provisionWorkspace(
        env.services.registry,
        { subdomain: 'tokyo', timeZone: 'Asia/Tokyo', owner: { email: 'owner@tokyo.test', firstName: 'O', lastName: 'T' } },
        clock(),
      );
      const handle = env.services.registry.get('tokyo')!;
      const api = apiFor(env.url, 'tokyo.localhost', created.apiKey);
      // 16:00Z is already 01:00 on the 19th in Tokyo.
      clock.set('2026-11-18T16:00:00.000Z');
      try {
        const s = setup(handle.db, { entries: 1 });
        const res = await api.post(path(s.client.id), { ...body(s), email: 'owner@tokyo.test' });
        expect(res.status).toBe(201);
        expect(res.body.invoice.issue_date).toBe('2026-11-19');
        expect(res.body.invoice.due_date).toBe('2026-12-19');
      } finally {
        clock.set('2026-11-18T10:00:00.000Z');
      }
    });

    it.each([{ issue_date: '02/30/2026' }, { due_date: '13/01/2026' }, { issue_date: '2026-11-18', due_date: '2026-11-17' }, { due_date_period: -1 }, { due_date_period: 1.5 }])(
      '422 for %j',
      async (dates) => {
        const s = setup(env.alpha.handle.db, { entries: 1 });
        const res = await post(s.client.id, body(s, dates));
        expect(res.status).toBe(422);
        expect(res.body.code).toBe('validation_failed');
        expect(entryRow(s.entries[0]!.id).status).toBe('unbilled');
      },
    );

    it.each([
      [{ issue_date: '12/31/9999' }, 'issue_date'],
      [{ issue_date: '12/01/9999', due_date_period: 31 }, 'due_date_period'],
    ])('422 naming the input when the due date would fall after 9999-12-31: %j', async (dates, field) => {
      const s = setup(env.alpha.handle.db, { entries: 1 });
      const res = await post(s.client.id, body(s, dates));
      expect(res.status).toBe(422);
      expect(res.body.details).toMatchObject([{ path: field, message: expect.stringContaining('due after 9999-12-31') }]);
      expect(entryRow(s.entries[0]!.id).status).toBe('unbilled');
    });
  });

  describe('who and which client', () => {
    it('403 for a Member, 422 user_not_found for an unknown e-mail, 403 user_inactive', async () => {
      const s = setup(env.alpha.handle.db, { entries: 1 });
      const member = makeMember(env.alpha.handle.db, { organizationRole: 'Member' });
      const inactive = makeMember(env.alpha.handle.db, { organizationRole: 'Admin', active: false });
      expect((await post(s.client.id, body(s, { email: member.email }))).body.code).toBe('forbidden');
      expect((await post(s.client.id, body(s, { email: 'nobody@example.test' }))).body.code).toBe('user_not_found');
      expect((await post(s.client.id, body(s, { email: inactive.email }))).status).toBe(403);
      const admin = makeMember(env.alpha.handle.db, { organizationRole: 'Admin' });
      expect((await post(s.client.id, body(s, { email: admin.email }))).status).toBe(201);
    });

    it('404 client_not_found for unknown and malformed ids; 422 client_archived', async () => {
      const s = setup(env.alpha.handle.db, { entries: 1 });
      for (const id of [randomUUID(), 'not-a-uuid']) {
        const res = await post(id, body(s));
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('client_not_found');
      }
      env.alpha.handle.db.update(clients).set({ status: 'archived' }).where(eq(clients.id, s.client.id)).run();
      const res = await post(s.client.id, body(s));
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('client_archived');
    });
  });

  describe('line groups', () => {
    it.each([
      ['both groups', (_s: Setup) => ({ invoice_services: [{ quantity: 1, unit_amount: 1 }] })],
      ['neither group', () => ({ invoice_time_entries: undefined })],
      ['an empty group', () => ({ invoice_time_entries: [] })],
      ['an empty service group', () => ({ invoice_time_entries: undefined, invoice_services: [] })],
    ])('422 for %s', async (_name, extra) => {
      const s = setup(env.alpha.handle.db, { entries: 1 });
      const res = await post(s.client.id, body(s, extra(s)));
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.details[0].path).toMatch(/^invoice_(time_entries|services)$/);
    });

    it.each([
      ['number', { number: '' }],
      ['total', { total: 'lots' }],
      ['payment_provider', { payment_provider: 'paypal' }],
      ['include_payment_link', { include_payment_link: 'yes' }],
      ['tax_details', { tax_details: [{ name: 'VAT', percentage: 101 }] }],
      ['project_id', { project_id: 'abc' }],
    ])('422 validation_failed for a bad %s', async (field, extra) => {
      const s = setup(env.alpha.handle.db, { entries: 1 });
      const res = await post(s.client.id, body(s, extra));
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.details[0].path).toMatch(new RegExp(`^${field}`));
    });

    it('accepts every spec field and stores it', async () => {
      const s = setup(env.alpha.handle.db, { entries: 1 });
      const r = makeRecipient(env.alpha.handle.db, s.client.id);
      const res = await post(
        s.client.id,
        body(s, {
          total: 119,
          interval: 'weekly',
          include_hours_by_person: true,
          include_hours_by_task: true,
          include_time_entries: true,
          send_automated_reminder_email: true,
          include_payment_link: true,
          payment_provider: 'card_processor',
          display_task_name: false,
          display_person_name: false,
          display_date: false,
          display_note: false,
          display_project_name: false,
          project_id: [s.project.id],
          send_email: false,
          invoice_details: { subject: 'S', message: 'M', attach_pdf_invoice: 'true', send_me_a_copy: 'false', recipient_ids: [r.id] },
          tax_details: [{ name: 'VAT', percentage: 19, notes: 'DE', selected: true }],
        }),
      );
      expect(res.status).toBe(201);
      const { invoice } = await env.alpha.caller.invoices.get({ invoice_id: res.body.invoice.id });
      expect(invoice).toMatchObject({
        interval: 'weekly',
        include_hours_by_person: true,
        include_hours_by_task: true,
        include_time_entries: true,
        send_automated_reminder_email: true,
        include_payment_link: true,
        payment_provider: 'card_processor',
        display_task_name: false,
        display_person_name: false,
        display_date: false,
        display_note: false,
        display_project_name: false,
        send_email: false,
        status: 'draft',
        project_ids: [s.project.id],
        recipient_ids: [r.id],
        subtotal: 100,
        tax_total: 19,
        total: 119,
        taxes: [{ name: 'VAT', percentage: 19, notes: 'DE', selected: true, amount: 19 }],
      });
      expect(invoice.lines).toHaveLength(1);
      const t = setup(env.alpha.handle.db, { entries: 1 });
      const other = await post(t.client.id, body(t, { payment_provider: 'undefined' }));
      expect(other.status).toBe(201);
      expect((await env.alpha.caller.invoices.get({ invoice_id: other.body.invoice.id })).invoice.payment_provider).toBe('undefined');
    });
  });

  describe('time-entry lines', () => {
    it.each([
      ['billed', 'time_entry_not_unbilled'],
      ['pending_approval', 'time_entry_not_unbilled'],
      ['rejected', 'time_entry_not_unbilled'],
      ['non_billable', 'time_entry_not_billable'],
    ] as const)('422 for a %s entry (%s), and nothing changes', async (status, code) => {
      const s = setup(env.alpha.handle.db, { entries: 2 });
      env.alpha.handle.db.update(timeEntries).set({ status }).where(eq(timeEntries.id, s.entries[1]!.id)).run();
      const before = invoiceCount();
      const res = await post(s.client.id, body(s));
      expect(res.status).toBe(422);
      expect(res.body.code).toBe(code);
      expect(res.body.time_entry_id).toBe(s.entries[1]!.id);
      expect(invoiceCount()).toBe(before);
      expect(entryRow(s.entries[0]!.id)).toMatchObject({ status: 'unbilled', invoiceId: null });
    });

    it('422 for the same entry twice', async () => {
      const s = setup(env.alpha.handle.db, { entries: 1 });
      const res = await post(s.client.id, body(s, { total: 200, invoice_time_entries: [lineFor(s, s.entries[0]!), lineFor(s, s.entries[0]!)] }));
      expect(res.status).toBe(422);
      expect(res.body.details[0].path).toBe('invoice_time_entries.1.time_entry_id');
    });

    it('422 when project, task or user do not match the entry, or the entry is not this client’s', async () => {
      const s = setup(env.alpha.handle.db, { entries: 1 });
      const other = setup(env.alpha.handle.db, { entries: 1 });
      const e = s.entries[0]!;
      const cases: [Record<string, unknown>, string][] = [
        [lineFor(s, e, { project_id: other.project.id }), 'invoice_time_entries.0.project_id'],
        [lineFor(s, e, { task_id: other.task.id }), 'invoice_time_entries.0.task_id'],
        [lineFor(s, e, { user_id: other.member.id }), 'invoice_time_entries.0.user_id'],
        [lineFor(s, e, { time_entry_id: other.entries[0]!.id }), 'invoice_time_entries.0.time_entry_id'],
      ];
      for (const [line, detail] of cases) {
        const res = await post(s.client.id, body(s, { total: 100, invoice_time_entries: [line] }));
        expect(res.status, detail).toBe(422);
        expect(res.body.details[0].path).toBe(detail);
      }
      expect(entryRow(e.id).status).toBe('unbilled');
    });

    it('hours may be written down, never up', async () => {
      const s = setup(env.alpha.handle.db, { entries: 1 });
      const up = await post(s.client.id, body(s, { total: 150, invoice_time_entries: [lineFor(s, s.entries[0]!, { hours: 1.5 })] }));
      expect(up.status).toBe(422);
      expect(up.body.details[0].path).toBe('invoice_time_entries.0.hours');
      const zero = await post(s.client.id, body(s, { total: 0, invoice_time_entries: [lineFor(s, s.entries[0]!, { hours: 0 })] }));
      expect(zero.status).toBe(422);
      const down = await post(s.client.id, body(s, { total: 75, invoice_time_entries: [lineFor(s, s.entries[0]!, { hours: 0.75 })] }));
      expect(down.status).toBe(201);
      expect(down.body.invoice.total).toBe(75);
    });

    it('rounds each line half-up once: three 20-minute entries at 100.00 are 99.99', async () => {
      const s = setup(env.alpha.handle.db, { entries: 0 });
      const entries = [1, 2, 3].map(() =>
        makeTimeEntry(env.alpha.handle.db, { clientId: s.client.id, projectId: s.project.id, taskId: s.task.id, userId: s.member.id }, { seconds: 1200 }),
      );
      const lines = entries.map((e) => lineFor(s, e));
      const wrong = await post(s.client.id, body(s, { total: 100.01, invoice_time_entries: lines }));
      expect(wrong.status).toBe(422);
      expect(wrong.body).toMatchObject({ code: 'total_mismatch', computed_total: 99.99 });
      const ok = await post(s.client.id, body(s, { total: 100, invoice_time_entries: lines }));
      expect(ok.status).toBe(201);
      expect(ok.body.invoice.total).toBe(99.99);
    });

    it('default rates follow the billing method; a line rate wins', async () => {
      const db = env.alpha.handle.db;
      const cases = [
        { billingMethod: 'hourly_project_rate' as const, expected: 100 },
        { billingMethod: 'hourly_person_rate' as const, expected: 80 },
        { billingMethod: 'hourly_task_rate' as const, expected: 60 },
        { billingMethod: 'fixed_price_project' as const, expected: 0 },
      ];
      for (const c of cases) {
        const client = makeClient(db);
        const project = makeProject(db, client.id, { billingMethod: c.billingMethod, hourlyRateMinor: 10000 });
        const task = makeTask(db, project.id, { hourlyRateMinor: 6000 });
        const member = makeMember(db);
        makeProjectUser(db, project.id, member.id, { hourlyRateMinor: 8000 });
        const e = makeTimeEntry(db, { clientId: client.id, projectId: project.id, taskId: task.id, userId: member.id });
        const line = { time_entry_id: e.id, project_id: project.id, task_id: task.id, user_id: member.id };
        const res = await post(client.id, { email: env.alpha.ownerEmail, number: nextNumber(), total: c.expected, invoice_time_entries: [line] });
        expect(res.status, c.billingMethod).toBe(201);
        expect(res.body.invoice.total).toBe(c.expected);
      }
      const s = setup(db, { entries: 1 });
      const res = await post(s.client.id, body(s, { total: 45.5, invoice_time_entries: [lineFor(s, s.entries[0]!, { hourly_rate: 45.5 })] }));
      expect(res.body.invoice.total).toBe(45.5);
      const bad = await post(s.client.id, body(s, { total: 1, invoice_time_entries: [lineFor(s, s.entries[0]!, { hourly_rate: 1.001 })] }));
      expect(bad.status).toBe(422);
    });

    it("a person rate project bills a person taken off it at no default rate: 422 rate_unknown, never 0; a line rate still bills", async () => {
      const db = env.alpha.handle.db;
      const client = makeClient(db);
      const project = makeProject(db, client.id, { billingMethod: 'hourly_person_rate', hourlyRateMinor: 10000 });
      const task = makeTask(db, project.id);
      const member = makeMember(db);
      const pu = makeProjectUser(db, project.id, member.id, { hourlyRateMinor: 7000 });
      const e = makeTimeEntry(db, { clientId: client.id, projectId: project.id, taskId: task.id, userId: member.id });
      await env.alpha.caller.projects.removeUser({ project_id: project.id, project_user_id: pu.id });
      const line = { time_entry_id: e.id, project_id: project.id, task_id: task.id, user_id: member.id };
      const refused = await post(client.id, { email: env.alpha.ownerEmail, number: nextNumber(), total: 0, invoice_time_entries: [line] });
      expect(refused.status).toBe(422);
      expect(refused.body).toMatchObject({ code: 'rate_unknown', time_entry_id: e.id });
      expect(entryRow(e.id).status).toBe('unbilled');
      const priced = await post(client.id, { email: env.alpha.ownerEmail, number: nextNumber(), total: 70, invoice_time_entries: [{ ...line, hourly_rate: 70 }] });
      expect(priced.status, JSON.stringify(priced.body)).toBe(201);
    });

    it('JPY: no decimals anywhere', async () => {
      const s = setup(env.alpha.handle.db, { entries: 1, currency: 'JPY', project: { hourlyRateMinor: 1333 } });
      env.alpha.handle.db.update(timeEntries).set({ seconds: 5400 }).where(eq(timeEntries.id, s.entries[0]!.id)).run();
      const line = lineFor(s, s.entries[0]!);
      const res = await post(s.client.id, body(s, { total: 2200, invoice_time_entries: [line], tax_details: [{ name: '消費税', percentage: 10, selected: true }] }));
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.invoice.total).toBe(2200); // ¥1,999.5 → ¥2,000, tax ¥200
    });

    it('project_id must list projects of this client, and time lines must be on them', async () => {
      const s = setup(env.alpha.handle.db, { entries: 1 });
      const other = setup(env.alpha.handle.db, { entries: 0 });
      const foreign = await post(s.client.id, body(s, { project_id: [other.project.id] }));
      expect(foreign.status).toBe(422);
      expect(foreign.body.details[0].path).toBe('project_id.0');
      const second = makeProject(env.alpha.handle.db, s.client.id);
      const notOn = await post(s.client.id, body(s, { project_id: [second.id] }));
      expect(notOn.status).toBe(422);
      expect(notOn.body.details[0].path).toBe('invoice_time_entries.0.project_id');
    });
  });

  describe('service lines, taxes and totals', () => {
    it('quantity × unit_amount, taxes on the subtotal, each rounded half-up', async () => {
      const s = setup(env.alpha.handle.db, { entries: 0 });
      const services = [
        { notes: 'Design', quantity: 1.5, unit_amount: 9.99 }, // 14.985 → 14.99
        { notes: 'Hosting', quantity: 3, unit_amount: 33.33 }, // 99.99
        { notes: 'Default quantity', unit_amount: 10 },
      ];
      const taxes = [
        { name: 'VAT', percentage: 7.25, selected: true }, // 7.25% of 124.98 = 9.06105 → 9.06
        { name: 'Not applied', percentage: 50, selected: false },
      ];
      const computed = 124.98 + 9.06;
      const wrong = await post(s.client.id, { ...body(s), invoice_time_entries: undefined, invoice_services: services, tax_details: taxes, total: 130 });
      expect(wrong.status).toBe(422);
      expect(wrong.body.code).toBe('total_mismatch');
      expect(wrong.body.computed_total).toBe(134.04);
      const ok = await post(s.client.id, { ...body(s), invoice_time_entries: undefined, invoice_services: services, tax_details: taxes, total: computed + 0.01 });
      expect(ok.status).toBe(201);
      expect(ok.body.invoice.total).toBe(134.04);
      const { invoice } = await env.alpha.caller.invoices.get({ invoice_id: ok.body.invoice.id });
      expect(invoice.lines.map((l) => l.amount)).toEqual([14.99, 99.99, 10]);
      expect(invoice.taxes.map((t) => t.amount)).toEqual([9.06, 0]);
    });

    it('422 for too many decimals', async () => {
      const s = setup(env.alpha.handle.db, { entries: 0 });
      for (const line of [{ quantity: 1.0001, unit_amount: 1 }, { quantity: 1, unit_amount: 1.001 }, { quantity: 0, unit_amount: 1 }, { quantity: 1, unit_amount: -1 }]) {
        const res = await post(s.client.id, { ...body(s), invoice_time_entries: undefined, invoice_services: [line], total: 1 });
        expect(res.status, JSON.stringify(line)).toBe(422);
        expect(res.body.code).toBe('validation_failed');
      }
    });

    it('BHD: three decimals', async () => {
      const s = setup(env.alpha.handle.db, { entries: 0, currency: 'BHD' });
      const res = await post(s.client.id, { ...body(s), invoice_time_entries: undefined, invoice_services: [{ quantity: 1, unit_amount: 1.234 }], total: 1.234 });
      expect(res.status).toBe(201);
      expect(res.body.invoice.total).toBe(1.234);
    });

    it('BHD near the bound: an amount a JSON number could not state exactly is 422 amount_too_large; the largest exact one is answered exactly', async () => {
      const s = setup(env.alpha.handle.db, { entries: 0, currency: 'BHD' });
      const services = (unit: number) => ({ ...body(s), invoice_services: [{ quantity: 9, unit_amount: unit }], invoice_time_entries: undefined });
      // 9 × 999,999,999,999.999 = 8,999,999,999,999.991: 16 digits, answered as 8999999999999.99 before
      const over = await post(s.client.id, { ...services(999999999999.999), total: 8999999999999.99 });
      expect(over.status).toBe(422);
      expect(over.body.code).toBe('amount_too_large');
      const under = await post(s.client.id, { ...services(111111111111.111), number: 'BHD-EXACT', total: 999999999999.999 });
      expect(under.status).toBe(201);
      expect(under.body.invoice.total).toBe(999999999999.999);
    });
  });

  describe('numbers', () => {
    it('409 invoice_number_taken, and nothing is billed', async () => {
      const s = setup(env.alpha.handle.db, { entries: 1 });
      const t = setup(env.alpha.handle.db, { entries: 1 });
      const first = await post(s.client.id, body(s, { number: 'DUP-1' }));
      expect(first.status).toBe(201);
      const second = await post(t.client.id, body(t, { number: 'DUP-1' }));
      expect(second.status).toBe(409);
      expect(second.body.code).toBe('invoice_number_taken');
      expect(entryRow(t.entries[0]!.id).status).toBe('unbilled');
    });

    it('nextNumber proposes the number after the last one, keeping the padding', async () => {
      const ws = env.workspace('numbers');
      expect(await ws.caller.invoices.nextNumber()).toEqual({ number: 'INV-0001' });
      const c = makeClient(ws.handle.db);
      const create = (number: string) =>
        ws.api.post(path(c.id), { email: ws.ownerEmail, number, total: 1, invoice_services: [{ unit_amount: 1 }] });
      expect((await create('INV-0041')).status).toBe(201);
      clock.advance(1);
      expect(await ws.caller.invoices.nextNumber()).toEqual({ number: 'INV-0042' });
      // Two callers get the same proposal; the unique number decides at creation.
      const [a, b] = await Promise.all([ws.caller.invoices.nextNumber(), ws.caller.invoices.nextNumber()]);
      expect(a).toEqual(b);
      const results = await Promise.all([create(a.number), create(b.number)]);
      expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
      clock.advance(1);
      expect(await ws.caller.invoices.nextNumber()).toEqual({ number: 'INV-0043' });
    });
  });

  describe('sending', () => {
    it('send_email needs invoice_details with live recipients of this client', async () => {
      const s = setup(env.alpha.handle.db, { entries: 1 });
      const other = makeRecipient(env.alpha.handle.db, makeClient(env.alpha.handle.db).id);
      const deleted = makeRecipient(env.alpha.handle.db, s.client.id, { deleted: true });
      const cases: [Record<string, unknown>, string][] = [
        [{ send_email: true }, 'invoice_details'],
        [{ send_email: true, invoice_details: { subject: 'x' } }, 'invoice_details.recipient_ids'],
        [{ send_email: true, invoice_details: { recipient_ids: [] } }, 'invoice_details.recipient_ids'],
        [{ send_email: true, invoice_details: { recipient_ids: [other.id] } }, 'invoice_details.recipient_ids.0'],
        [{ send_email: true, invoice_details: { recipient_ids: [deleted.id] } }, 'invoice_details.recipient_ids.0'],
        [{ send_email: true, invoice_details: { recipient_ids: [randomUUID()], attach_pdf_invoice: 'yes' } }, 'invoice_details.attach_pdf_invoice'],
      ];
      for (const [extra, detail] of cases) {
        const res = await post(s.client.id, body(s, extra));
        expect(res.status, detail).toBe(422);
        expect(res.body.details[0].path).toBe(detail);
      }
      expect(entryRow(s.entries[0]!.id).status).toBe('unbilled');
    });

    it('queues one message per recipient plus the copy, in the same transaction, and the invoice is sending', async () => {
      const s = setup(env.alpha.handle.db, { entries: 1 });
      const [r1, r2] = [makeRecipient(env.alpha.handle.db, s.client.id), makeRecipient(env.alpha.handle.db, s.client.id)];
      const res = await post(
        s.client.id,
        body(s, { send_email: true, invoice_details: { recipient_ids: [r1!.id, r2!.id], send_me_a_copy: 'true', attach_pdf_invoice: 'true' } }),
      );
      expect(res.status).toBe(201);
      expect(res.body.invoice.status).toBe('sending');
      const rows = env.alpha.handle.db.select().from(outbox).where(eq(outbox.invoiceId, res.body.invoice.id)).all();
      expect(rows.map((r) => r.toAddress).sort()).toEqual([r1!.email, r2!.email, env.alpha.ownerEmail].sort());
      expect(rows.every((r) => r.attachInvoicePdf && r.status === 'pending')).toBe(true);
      const deliveries = await env.alpha.caller.invoices.deliveries({ invoice_id: res.body.invoice.id });
      expect(deliveries.items).toHaveLength(3);
    });
  });

  it('two concurrent invoices over the same entry: exactly one succeeds', async () => {
    const s = setup(env.alpha.handle.db, { entries: 3 });
    const results = await Promise.all(Array.from({ length: 6 }, () => post(s.client.id, body(s))));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 422, 422, 422, 422, 422]);
    expect(results.filter((r) => r.status === 422).every((r) => r.body.code === 'time_entry_not_unbilled')).toBe(true);
    const winner = results.find((r) => r.status === 201)!.body.invoice.id;
    for (const e of s.entries) expect(entryRow(e.id).invoiceId).toBe(winner);
    const lines = env.alpha.handle.db.select().from(invoiceLines).where(eq(invoiceLines.timeEntryId, s.entries[0]!.id)).all();
    expect(lines).toHaveLength(1);
  });

  it('a large invoice (2,000 entries) is exact and complete', async () => {
    const s = setup(env.alpha.handle.db, { entries: 0 });
    const insert = env.alpha.handle.sqlite.transaction(() =>
      Array.from({ length: 2000 }, (_, i) =>
        makeTimeEntry(env.alpha.handle.db, { clientId: s.client.id, projectId: s.project.id, taskId: s.task.id, userId: s.member.id }, { seconds: 600 + i }),
      ),
    );
    const entries = insert();
    // Σ (600+i) s × 100/h, each rounded: computed independently here.
    const expected = entries.reduce((sum, e) => sum + Math.floor((e.seconds * 10000 * 2 + 3600) / 7200), 0) / 100;
    const res = await post(s.client.id, body({ ...s, entries }, { total: expected }));
    expect(res.status).toBe(201);
    expect(res.body.invoice.total).toBe(expected);
    const billed = env.alpha.handle.db.select().from(timeEntries).where(eq(timeEntries.invoiceId, res.body.invoice.id)).all();
    expect(billed).toHaveLength(2000);
  });
});

describe('tRPC invoices.*', () => {
  it('markPaid and void: transitions, entries returned on void, wrong transitions 422', async () => {
    const s = setup(env.alpha.handle.db, { entries: 2 });
    const created = (await post(s.client.id, body(s))).body.invoice;
    const email = env.alpha.ownerEmail;
    const voided = await env.alpha.caller.invoices.void({ email, invoice_id: created.id });
    expect(voided.invoice.status).toBe('void');
    for (const e of s.entries) expect(entryRow(e.id)).toMatchObject({ status: 'unbilled', invoiceId: null });
    await expect(env.alpha.caller.invoices.markPaid({ email, invoice_id: created.id })).rejects.toMatchObject({ cause: { code: 'invoice_void' } });
    await expect(env.alpha.caller.invoices.void({ email, invoice_id: created.id })).rejects.toMatchObject({ cause: { code: 'invoice_already_void' } });

    // The entries can be invoiced again. A draft takes no payment until it was sent.
    const again = (await post(s.client.id, body(s))).body.invoice;
    await expect(env.alpha.caller.invoices.markPaid({ email, invoice_id: again.id })).rejects.toMatchObject({ cause: { code: 'invoice_draft' } });
    await env.alpha.caller.invoices.markSent({ email, invoice_id: again.id });
    const paid = await env.alpha.caller.invoices.markPaid({ email, invoice_id: again.id });
    expect(paid.invoice.status).toBe('paid');
    expect(paid.invoice.paid_at).toBe(clock().toISOString());
    await expect(env.alpha.caller.invoices.void({ email, invoice_id: again.id })).rejects.toMatchObject({ cause: { code: 'invoice_paid' } });
    await expect(env.alpha.caller.invoices.markPaid({ email, invoice_id: again.id })).rejects.toMatchObject({ cause: { code: 'invoice_already_paid' } });

    const member = makeMember(env.alpha.handle.db);
    await expect(env.alpha.caller.invoices.markPaid({ email: member.email, invoice_id: again.id })).rejects.toMatchObject({ cause: { code: 'forbidden' } });
    await expect(env.alpha.caller.invoices.void({ email, invoice_id: randomUUID() })).rejects.toMatchObject({ cause: { code: 'invoice_not_found' } });
  });

  it('list filters by client, status and dates, pages with a cursor, and honours updated_since', async () => {
    const ws = env.workspace('listing');
    const db = ws.handle.db;
    const c1 = makeClient(db);
    const c2 = makeClient(db);
    const create = (clientId: string, issue: string) =>
      ws.api.post(path(clientId), { email: ws.ownerEmail, number: nextNumber(), total: 1, issue_date: issue, invoice_services: [{ unit_amount: 1 }] });
    for (let i = 0; i < 5; i++) {
      expect((await create(c1.id, `2026-10-0${i + 1}`)).status).toBe(201);
      clock.advance(1000);
    }
    const lastOfC2 = (await create(c2.id, '2026-11-01')).body.invoice;
    expect((await ws.caller.invoices.list()).items).toHaveLength(6);
    const all = await ws.caller.invoices.list({ limit: 4 });
    expect(all.items).toHaveLength(4);
    const rest = await ws.caller.invoices.list({ limit: 4, cursor: all.next_cursor! });
    expect(rest.items).toHaveLength(2);
    expect(rest.next_cursor).toBeNull();
    expect((await ws.caller.invoices.list({ client_id: c2.id })).items.map((i) => i.id)).toEqual([lastOfC2.id]);
    expect((await ws.caller.invoices.list({ from: '10/02/2026', to: '2026-10-03' })).items).toHaveLength(2);
    expect((await ws.caller.invoices.list({ status: 'paid' })).items).toHaveLength(0);
    clock.advance(1000);
    await ws.caller.invoices.markSent({ email: ws.ownerEmail, invoice_id: lastOfC2.id });
    await ws.caller.invoices.markPaid({ email: ws.ownerEmail, invoice_id: lastOfC2.id });
    const since = new Date(clock().getTime() - 1).toISOString();
    const changed = await ws.caller.invoices.list({ updated_since: since });
    expect(changed.items.map((i) => [i.id, i.status])).toEqual([[lastOfC2.id, 'paid']]);
    expect(changed.items[0]!.public_url).toMatch(/^http:\/\/listing\.localhost:3000\/invoices\/[A-Za-z0-9_-]{43}$/);
  });

  it('get and deliveries answer 404 invoice_not_found for unknown and other-workspace ids', async () => {
    const s = setup(env.alpha.handle.db, { entries: 1 });
    const id = (await post(s.client.id, body(s))).body.invoice.id;
    for (const call of [() => env.beta.caller.invoices.get({ invoice_id: id }), () => env.beta.caller.invoices.deliveries({ invoice_id: id }), () => env.alpha.caller.invoices.pdf({ invoice_id: 'x' })]) {
      await expect(call()).rejects.toMatchObject({ code: 'NOT_FOUND', cause: { code: 'invoice_not_found' } });
    }
  });
});
