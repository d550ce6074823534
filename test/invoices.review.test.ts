import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/index.ts';
import { invoiceLines, projects, tasks } from '../src/db/schema/index.ts';
import { startTestEnv, testClock, type TestEnv } from './helpers/env.ts';
import { makeClient, makeProject, makeProjectSetup, makeTimeEntry } from './helpers/factories.ts';

let env: TestEnv;
const clock = testClock('2026-11-18T10:00:00.000Z');
const path = (clientId: string) => `/api/external/v2/clients/${clientId}/invoices`;
let seq = 0;
const nextNumber = () => `RV-${String(++seq).padStart(5, '0')}`;

beforeAll(async () => {
  env = await startTestEnv({ clock });
});
afterAll(() => env.close());

/** A client, an hourly project at `rateMinor`, a task, a member and one entry of `seconds`. */
function setup(db: Database, opts: { rateMinor?: number; seconds?: number } = {}) {
  const s = makeProjectSetup(db, { project: { hourlyRateMinor: opts.rateMinor ?? 10000 } });
  const entry = makeTimeEntry(
    db,
    { clientId: s.client.id, projectId: s.project.id, taskId: s.task.id, userId: s.member.id },
    { seconds: opts.seconds ?? 3600, enteredSeconds: opts.seconds ?? 3600 },
  );
  const line = (extra: Record<string, unknown> = {}) => ({
    time_entry_id: entry.id,
    project_id: s.project.id,
    task_id: s.task.id,
    user_id: s.member.id,
    ...extra,
  });
  return { ...s, entry, line };
}

const post = (clientId: string, b: Record<string, unknown>) =>
  env.alpha.api.post(path(clientId), { email: env.alpha.ownerEmail, number: nextNumber(), ...b });

describe('huge numbers are refused with 422, never a 500', () => {
  it.each([
    ['total', { total: 1e21, invoice_services: [{ quantity: 1, unit_amount: 10 }] }],
    ['total negative', { total: -1e21, invoice_services: [{ quantity: 1, unit_amount: 10 }] }],
    ['quantity', { total: 10, invoice_services: [{ quantity: 1e21, unit_amount: 10 }] }],
    ['unit_amount', { total: 10, invoice_services: [{ quantity: 1, unit_amount: 1e21 }] }],
    ['percentage', { total: 10, invoice_services: [{ quantity: 1, unit_amount: 10 }], tax_details: [{ name: 'X', percentage: 1e21, selected: true }] }],
    ['quantity × unit_amount at the bounds', { total: 10, invoice_services: [{ quantity: 1e9, unit_amount: 1e12 }] }],
  ])('%s', async (_name, b) => {
    const client = makeClient(env.alpha.handle.db);
    const res = await post(client.id, b);
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(['validation_failed', 'amount_too_large']).toContain(res.body.code);
  });

  it.each([
    ['hours', { hours: 1e21 }],
    ['hours over 24', { hours: 25 }],
    ['hourly_rate', { hourly_rate: 1e21 }],
  ])('time line %s', async (_name, extra) => {
    const s = setup(env.alpha.handle.db);
    const res = await post(s.client.id, { total: 100, invoice_time_entries: [s.line(extra)] });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.code).toBe('validation_failed');
  });
});

describe("a line's own hours are exact: hours × rate, rounded half-up once", () => {
  it.each([
    [0.1234, 15000, 3600, 18.51],
    [0.0137, 100000, 3600, 13.7],
    [1.0001, 1000000, 7200, 10001],
  ])('%s h at %s minor/h = %s', async (hours, rateMinor, seconds, amount) => {
    const s = setup(env.alpha.handle.db, { rateMinor, seconds });
    const wrong = await post(s.client.id, { total: 1, invoice_time_entries: [s.line({ hours })] });
    expect(wrong.status).toBe(422);
    expect(wrong.body.computed_total).toBe(amount);
    const res = await post(s.client.id, { total: amount, invoice_time_entries: [s.line({ hours })] });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const { invoice } = await env.alpha.caller.invoices.get({ invoice_id: res.body.invoice.id });
    expect(invoice.lines[0]).toMatchObject({ hours, amount });
    // The stored line reproduces its amount from what was given.
    const row = env.alpha.handle.db.select().from(invoiceLines).where(eq(invoiceLines.invoiceId, invoice.id)).get()!;
    expect(row.hours).toBe(String(hours));
  });

  it('the write-down limit is checked exactly: 1.0001 h of a 1-hour entry is too much', async () => {
    const s = setup(env.alpha.handle.db, { seconds: 3600 });
    const res = await post(s.client.id, { total: 100.01, invoice_time_entries: [s.line({ hours: 1.0001 })] });
    expect(res.status).toBe(422);
    expect(res.body.details[0].path).toBe('invoice_time_entries.0.hours');
  });

  it('a line without hours bills the entry seconds, rounded once', async () => {
    // 1 s at 100.00/h = 2.777… cents → 0.03
    const s = setup(env.alpha.handle.db, { seconds: 1 });
    const res = await post(s.client.id, { total: 0.03, invoice_time_entries: [s.line()] });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  });
});

describe('time entries that may not be invoiced', () => {
  it('an unbilled entry whose task became non-billable → 422 time_entry_not_billable', async () => {
    const db = env.alpha.handle.db;
    const s = setup(db);
    db.update(tasks).set({ billable: false }).where(eq(tasks.id, s.task.id)).run();
    const res = await post(s.client.id, { total: 100, invoice_time_entries: [s.line()] });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('time_entry_not_billable');
  });

  it('an unknown entry id → 404 time_entry_not_found', async () => {
    const s = setup(env.alpha.handle.db);
    const res = await post(s.client.id, { total: 100, invoice_time_entries: [s.line({ time_entry_id: randomUUID() })] });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('time_entry_not_found');
  });

  it("another workspace's entry id → 404 time_entry_not_found", async () => {
    const s = setup(env.alpha.handle.db);
    const other = setup(env.beta.handle.db);
    const res = await post(s.client.id, { total: 100, invoice_time_entries: [s.line({ time_entry_id: other.entry.id })] });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('time_entry_not_found');
  });
});

describe('taxes are charged only when selected', () => {
  it('a tax without selected: true is recorded at 0 and not in the total', async () => {
    const client = makeClient(env.alpha.handle.db);
    const res = await post(client.id, {
      total: 100,
      invoice_services: [{ quantity: 1, unit_amount: 100 }],
      tax_details: [{ name: 'VAT', percentage: 19 }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const { invoice } = await env.alpha.caller.invoices.get({ invoice_id: res.body.invoice.id });
    expect(invoice.taxes).toEqual([{ name: 'VAT', percentage: 19, notes: '', selected: false, amount: 0 }]);
  });
});

describe('project_id', () => {
  it('an empty list is the same as none', async () => {
    const s = setup(env.alpha.handle.db);
    const res = await post(s.client.id, { total: 100, project_id: [], invoice_time_entries: [s.line()] });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const { invoice } = await env.alpha.caller.invoices.get({ invoice_id: res.body.invoice.id });
    expect(invoice.project_ids).toEqual([s.project.id]);
  });

  it("a service line's project must be the client's, and one of project_id when given", async () => {
    const db = env.alpha.handle.db;
    const client = makeClient(db);
    const mine = makeProject(db, client.id);
    const second = makeProject(db, client.id);
    const foreign = makeProject(db, makeClient(db).id);
    const service = (projectId: string) => ({ total: 10, invoice_services: [{ quantity: 1, unit_amount: 10, project_id: projectId }] });

    const notClients = await post(client.id, service(foreign.id));
    expect(notClients.status).toBe(422);
    expect(notClients.body.details[0].path).toBe('invoice_services.0.project_id');

    const notListed = await post(client.id, { ...service(second.id), project_id: [mine.id] });
    expect(notListed.status).toBe(422);
    expect(notListed.body.details[0].path).toBe('invoice_services.0.project_id');

    const ok = await post(client.id, { ...service(mine.id), project_id: [mine.id] });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(db.select().from(projects).where(eq(projects.id, mine.id)).get()!.lastInvoiceId).toBe(ok.body.invoice.id);
  });
});
