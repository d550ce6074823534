import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issuePasswordLink } from '../src/domain/accounts/links.ts';
import { scopeOf, startTestEnv, testClock, type TestEnv, type TestWorkspace } from './helpers/env.ts';
import { makeClient, makeMember, makeProjectSetup, makeRecipient, makeTimeEntry } from './helpers/factories.ts';
import { BrowserSession, tokenOf } from './helpers/session.ts';

/**
 * The read procedures the billing screens are built on, through createCaller (the workspace key)
 * and, for who may call them, a Member's session: `invoices.view` (payments, recipients, the
 * related document), `invoices.preview` of a draft being edited, `workspace.settings`,
 * `webhooks.overview` and the workspace's locale in `auth.me`.
 */

let env: TestEnv;
let ws: TestWorkspace;
const clock = testClock('2026-11-18T10:00:00.000Z');
let seq = 0;
const email = () => ws.ownerEmail;
const code = (p: Promise<unknown>) => p.then(() => 'ok', (e: { cause?: { code?: string } }) => e.cause?.code);

beforeAll(async () => {
  env = await startTestEnv({ clock });
  ws = env.workspace('billing');
});
afterAll(() => env.close());

async function signedIn(address: string) {
  const b = new BrowserSession(env.url, ws.host);
  const token = tokenOf(issuePasswordLink(scopeOf(env.services, ws.handle), { email: address }).link);
  expect((await b.mutate('auth.setPassword', { token, password: 'a password for tests' })).status).toBe(200);
  return b;
}

/** A sent invoice of one service line for a new client with a recipient. */
async function sentInvoice(amount: number) {
  const client = makeClient(ws.handle.db, { currency: 'EUR' });
  makeRecipient(ws.handle.db, client.id, { name: 'Zed Last', email: `zed${++seq}@client.test` });
  makeRecipient(ws.handle.db, client.id, { name: 'Ann First', email: `ann${seq}@client.test` });
  const { invoice } = await ws.caller.invoices.create({ email: email(), client_id: client.id, number: `BP-${++seq}`, total: amount, invoice_services: [{ notes: 'Work', unit_amount: amount }] });
  await ws.caller.invoices.markSent({ email: email(), invoice_id: invoice.id });
  return invoice;
}

describe('invoices.view', () => {
  it('gives the page in one call: payments, the client’s live recipients, and the credit note both ways', async () => {
    const inv = await sentInvoice(300);
    await ws.caller.invoices.recordPayment({ email: email(), invoice_id: inv.id, amount: 100, method: 'cash', reference: 'till' });
    const view = await ws.caller.invoices.view({ invoice_id: inv.id });
    expect(view.invoice).toMatchObject({ status: 'partially_paid', balance_due: 200 });
    expect(view.payments.items.map((p) => [p.amount, p.method, p.reference])).toEqual([[100, 'cash', 'till']]);
    expect(view.payments.unapplied_card_payments).toEqual([]);
    // By name, as the send dialog lists them.
    expect(view.client_recipients.map((r) => r.name)).toEqual(['Ann First', 'Zed Last']);
    expect(view.related).toBeNull();

    const { credit_note } = await ws.caller.invoices.void({ email: email(), invoice_id: inv.id, reason: 'Wrong client' });
    const voided = await ws.caller.invoices.view({ invoice_id: inv.id });
    expect(voided.related).toMatchObject({ id: credit_note!.id, kind: 'credit_note', number: credit_note!.number, total: -300 });
    const note = await ws.caller.invoices.view({ invoice_id: credit_note!.id });
    expect(note.related).toMatchObject({ id: inv.id, kind: 'invoice', status: 'void' });
    expect(note.payments.items).toEqual([]);
  });

  it('a draft voided has no related document', async () => {
    const client = makeClient(ws.handle.db);
    const { invoice } = await ws.caller.invoices.create({ email: email(), client_id: client.id, number: `BP-${++seq}`, total: 5, invoice_services: [{ unit_amount: 5 }] });
    await ws.caller.invoices.void({ email: email(), invoice_id: invoice.id });
    expect((await ws.caller.invoices.view({ invoice_id: invoice.id })).related).toBeNull();
  });
});

describe('invoices.preview of a draft being edited', () => {
  it("counts the draft's own entries as unbilled, in the draft's currency; refuses what cannot be edited", async () => {
    const s = makeProjectSetup(ws.handle.db);
    const [a, b] = [1, 2].map(() => makeTimeEntry(ws.handle.db, { clientId: s.client.id, projectId: s.project.id, taskId: s.task.id, userId: s.member.id }));
    const line = (e: { id: string }) => ({ time_entry_id: e.id, project_id: s.project.id, task_id: s.task.id, user_id: s.member.id });
    const { invoice } = await ws.caller.invoices.create({ email: email(), client_id: s.client.id, number: `BP-${++seq}`, total: 100, invoice_time_entries: [line(a!)] });
    const edit = { client_id: s.client.id, invoice_time_entries: [line(a!), line(b!)] };
    // Without the draft named, its own entry is billed already.
    expect(await code(ws.caller.invoices.preview(edit))).toBe('time_entry_not_unbilled');
    const priced = await ws.caller.invoices.preview({ ...edit, invoice_id: invoice.id });
    expect(priced).toMatchObject({ total: 200, currency: 'USD' });
    expect(priced.lines.map((l) => l.time_entry_id)).toEqual([a!.id, b!.id]);

    const other = makeClient(ws.handle.db);
    await expect(ws.caller.invoices.preview({ client_id: other.id, invoice_id: invoice.id, invoice_services: [{ unit_amount: 1 }] })).rejects.toMatchObject({
      cause: { code: 'validation_failed', details: [{ path: 'invoice_id' }] },
    });
    const sent = await sentInvoice(10);
    expect(await code(ws.caller.invoices.preview({ client_id: sent.client_id, invoice_id: sent.id, invoice_services: [{ unit_amount: 1 }] }))).toBe('invoice_not_draft');
  });
});

describe('workspace.settings', () => {
  it('gives details, identity and card payment in one call, the secrets only as their last 4 characters', async () => {
    await ws.caller.workspace.updateIdentity({ email: email(), legal_name: 'Billing Ltd', locale: 'de-de' });
    await ws.caller.workspace.updatePaymentProcessor({ email: email(), secret_key: 'sk_test_abcdefgh12345678', webhook_secret: 'whsec_abcdefgh9876' });
    const settings = await ws.caller.workspace.settings();
    expect(settings.details).toMatchObject({ subdomain: 'billing', time_zone: 'UTC' });
    expect(settings.identity).toMatchObject({ legal_name: 'Billing Ltd', display_name: 'Billing Ltd', locale: 'de-DE', logo: null });
    expect(settings.payment_processor).toMatchObject({ configured: true, mode: 'test', secret_key_last4: '5678', webhook_secret_last4: '9876' });
    expect(JSON.stringify(settings)).not.toContain('abcdefgh');
    await ws.caller.workspace.removePaymentProcessor({ email: email() });
    expect((await ws.caller.workspace.settings()).payment_processor.configured).toBe(false);
  });

  it("auth.me carries the workspace's locale, so the app formats as invoices do", async () => {
    const owner = await signedIn(email());
    expect((await owner.query('auth.me')).data.workspace.locale).toBe('de-DE');
    await ws.caller.workspace.updateIdentity({ email: email(), locale: 'fr-FR' });
    expect((await owner.query('auth.me')).data.workspace.locale).toBe('fr-FR');
  });
});

describe('webhooks.overview', () => {
  it('lists every endpoint with its delivery counts and latest deliveries (newest first, each with its latest attempt) and the event types', async () => {
    const { endpoint: first } = await ws.caller.webhooks.create({ email: email(), url: 'https://hooks.example.test/a', events: ['client.created'] });
    clock.advance(1000);
    const { endpoint: second } = await ws.caller.webhooks.create({ email: email(), url: 'https://hooks.example.test/b' });
    await sentInvoice(20);
    const events = (await ws.caller.webhooks.events({ limit: 200 })).items;
    expect(events.length).toBeGreaterThan(2);
    const [e1, e2, e3] = events.slice(-3);
    // Redeliveries by hand: pending deliveries, no job needed.
    for (const e of [e1!, e2!, e3!]) {
      clock.advance(1000);
      await ws.caller.webhooks.redeliver({ email: email(), endpoint_id: first.id, event_id: e.id });
    }
    const overview = await ws.caller.webhooks.overview({ recent: 2 });
    expect(overview.event_types).toContain('invoice.paid');
    expect(overview.event_types).not.toContain('*');
    expect(overview.items.map((i) => i.endpoint.id)).toEqual([first.id, second.id]);
    const [a, b] = overview.items;
    expect(a!.delivery_counts).toEqual({ pending: 3, delivered: 0, failed: 0 });
    expect(a!.recent_deliveries.map((d) => d.event_id)).toEqual([e3!.id, e2!.id]);
    expect(a!.recent_deliveries[0]).toMatchObject({ status: 'pending', manual: true, attempts: 0, last_attempt: null, event_type: e3!.type });
    expect(b!).toMatchObject({ delivery_counts: { pending: 0, delivered: 0, failed: 0 }, recent_deliveries: [] });
    expect((await ws.caller.webhooks.overview()).items[0]!.recent_deliveries).toHaveLength(3);
    await expect(ws.caller.webhooks.overview({ recent: 51 })).rejects.toMatchObject({ cause: { code: 'validation_failed', details: [{ path: 'recent' }] } });
  });
});

describe('who may read them', () => {
  it('a Member gets 403 from every billing read; an Owner’s session reads them', async () => {
    const inv = await sentInvoice(50);
    const m = makeMember(ws.handle.db);
    const member = await signedIn(m.email);
    const owner = await signedIn(email());
    for (const [path, input] of [
      ['invoices.view', { invoice_id: inv.id }],
      ['invoices.payments', { invoice_id: inv.id }],
      ['workspace.settings', {}],
      ['workspace.identity', {}],
      ['workspace.paymentProcessor', {}],
      ['webhooks.overview', {}],
    ] as const) {
      expect((await member.query(path, input)).status, path).toBe(403);
      expect((await owner.query(path, input)).status, path).toBe(200);
    }
  });
});
