import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events, invoices, outbox, payments, projects, timeEntries } from '../src/db/schema/index.ts';
import { provisionWorkspace } from '../src/domain/workspace/provision.ts';
import { outboxJob } from '../src/jobs/outbox.ts';
import { remindersJob } from '../src/jobs/reminders.ts';
import { runJobOnce } from '../src/jobs/runner.ts';
import { callerFor, startTestEnv, testClock, type TestEnv, type TestWorkspace } from './helpers/env.ts';
import { makeClient, makeMember, makeProjectSetup, makeRecipient, makeTimeEntry, makeTask } from './helpers/factories.ts';

let env: TestEnv;
let ws: TestWorkspace;
const clock = testClock('2026-11-18T10:00:00.000Z');
let email: string;

beforeAll(async () => {
  env = await startTestEnv({ clock });
  ws = env.alpha;
  email = ws.ownerEmail;
});
afterAll(() => env.close());

let seq = 0;
const number = () => `LC-${String(++seq).padStart(4, '0')}`;
const entryRow = (id: string) => ws.handle.db.select().from(timeEntries).where(eq(timeEntries.id, id)).get()!;
const invoiceRow = (id: string) => ws.handle.db.select().from(invoices).where(eq(invoices.id, id)).get();
const eventTypes = () => ws.handle.db.select({ type: events.type, data: events.data }).from(events).all();
const code = (p: Promise<unknown>) => p.then(() => 'ok', (e: { cause?: { code?: string } }) => e.cause?.code);

/** A client with an hourly project (100.00/h) and `n` one-hour entries; lines to bill them. */
function timeSetup(n: number) {
  const s = makeProjectSetup(ws.handle.db);
  const entries = Array.from({ length: n }, () => makeTimeEntry(ws.handle.db, { clientId: s.client.id, projectId: s.project.id, taskId: s.task.id, userId: s.member.id }));
  const line = (e: { id: string }) => ({ time_entry_id: e.id, project_id: s.project.id, task_id: s.task.id, user_id: s.member.id });
  return { ...s, entries, line };
}

async function create(clientId: string, body: Record<string, unknown>) {
  const res = await ws.api.post(`/api/external/v2/clients/${clientId}/invoices`, { email, number: number(), ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.invoice as { id: string; number: string; total: number; status: string };
}

/** A sent (marked sent) invoice of `amount` USD. */
async function sentInvoice(amount = 100, extra: Record<string, unknown> = {}) {
  const client = makeClient(ws.handle.db);
  const inv = await create(client.id, { total: amount, invoice_services: [{ notes: 'Work', unit_amount: amount }], ...extra });
  await ws.caller.invoices.markSent({ email, invoice_id: inv.id });
  return inv;
}

describe('editing a draft (invoices.update)', () => {
  it('re-prices with the same rules: entries taken off are unbilled, new ones billed, kept ones stay', async () => {
    const s = timeSetup(3);
    const [a, b, c] = s.entries as [(typeof s.entries)[0], (typeof s.entries)[0], (typeof s.entries)[0]];
    const inv = await create(s.client.id, { total: 200, invoice_time_entries: [s.line(a), s.line(b)] });
    const { invoice } = await ws.caller.invoices.update({
      email,
      invoice_id: inv.id,
      total: 252.88,
      invoice_time_entries: [s.line(b), { ...s.line(c), hours: 0.75, hourly_rate: 150 }],
      tax_details: [{ name: 'VAT', percentage: 19, selected: true }],
      notes: 'Edited',
    });
    // 1 h × 100.00 + 0.75 h × 150.00 = 212.50; 19 % of it = 40.375 → 40.38 (half-up); total 252.88.
    expect(invoice).toMatchObject({ status: 'draft', subtotal: 212.5, tax_total: 40.38, total: 252.88, notes: 'Edited' });
    expect(invoice.lines.map((l) => [l.time_entry_id, l.amount])).toEqual([
      [b.id, 100],
      [c.id, 112.5],
    ]);
    expect(entryRow(a.id)).toMatchObject({ status: 'unbilled', invoiceId: null });
    expect(entryRow(b.id)).toMatchObject({ status: 'billed', invoiceId: inv.id });
    expect(entryRow(c.id)).toMatchObject({ status: 'billed', invoiceId: inv.id });
    // Announced like its creation, with the new total: a receiver that keeps drafts stays right.
    const updated = eventTypes().filter((e) => e.type === 'invoice.updated' && JSON.parse(e.data).invoice.id === inv.id);
    expect(updated.map((e) => JSON.parse(e.data).invoice)).toEqual([expect.objectContaining({ id: inv.id, number: inv.number, total: 252.88, status: 'draft' })]);
  });

  it('a wrong total is 422 total_mismatch and nothing changes', async () => {
    const s = timeSetup(2);
    const inv = await create(s.client.id, { total: 100, invoice_time_entries: [s.line(s.entries[0]!)] });
    const err = await ws.caller.invoices.update({ email, invoice_id: inv.id, total: 999, invoice_time_entries: [s.line(s.entries[1]!)] }).catch((e: { cause: { code: string; extra: unknown } }) => e.cause);
    expect(err).toMatchObject({ code: 'total_mismatch', extra: { computed_total: 100 } });
    expect(entryRow(s.entries[0]!.id).status).toBe('billed');
    expect(entryRow(s.entries[1]!.id).status).toBe('unbilled');
    expect((await ws.caller.invoices.get({ invoice_id: inv.id })).invoice.lines.map((l) => l.time_entry_id)).toEqual([s.entries[0]!.id]);
  });

  it('taxes alone, dates (the terms follow a new issue date), number, flags; another entry already billed is refused', async () => {
    const client = makeClient(ws.handle.db);
    const inv = await create(client.id, { total: 50, issue_date: '11/01/2026', due_date: '11/15/2026', invoice_services: [{ notes: 'A', quantity: 2, unit_amount: 25 }] });
    const taxed = await ws.caller.invoices.update({ email, invoice_id: inv.id, tax_details: [{ name: 'GST', percentage: 10, selected: true }] });
    expect(taxed.invoice).toMatchObject({ total: 55, tax_total: 5, lines: [{ quantity: 2, unit_amount: 25, amount: 50 }] });
    const moved = await ws.caller.invoices.update({ email, invoice_id: inv.id, issue_date: '2026-11-10', number: 'LC-RENAMED', include_payment_link: true });
    expect(moved.invoice).toMatchObject({ issue_date: '2026-11-10', due_date: '2026-11-24', number: 'LC-RENAMED', include_payment_link: true, total: 55 });
    const period = await ws.caller.invoices.update({ email, invoice_id: inv.id, due_date_period: 30 });
    expect(period.invoice).toMatchObject({ due_date: '2026-12-10', due_date_period: 30 });
    // A due date given outright wins over terms sent with it, and the terms are not kept.
    const both = await ws.caller.invoices.update({ email, invoice_id: inv.id, due_date: '2026-12-31', due_date_period: 5 });
    expect(both.invoice).toMatchObject({ due_date: '2026-12-31', due_date_period: null });
    expect(await code(ws.caller.invoices.update({ email, invoice_id: inv.id, due_date: '2026-11-01' }))).toBe('validation_failed');
    // terms that would run past 9999-12-31 name the input that asked for them
    const past = await ws.caller.invoices.update({ email, invoice_id: inv.id, issue_date: '9999-12-31' }).catch((e: { cause: { details: unknown } }) => e.cause.details);
    expect(past).toMatchObject([{ path: 'issue_date', message: expect.stringContaining('due after 9999-12-31') }]);
    const other = await create(client.id, { total: 1, invoice_services: [{ unit_amount: 1 }] });
    expect(await code(ws.caller.invoices.update({ email, invoice_id: other.id, number: 'LC-RENAMED' }))).toBe('invoice_number_taken');
    const s = timeSetup(1);
    await create(s.client.id, { total: 100, invoice_time_entries: [s.line(s.entries[0]!)] });
    const draft = await create(s.client.id, { total: 0, invoice_services: [{ notes: 'Free' }] });
    expect(await code(ws.caller.invoices.update({ email, invoice_id: draft.id, invoice_time_entries: [s.line(s.entries[0]!)] }))).toBe('time_entry_not_unbilled');
  });

  it('only a draft: a sent invoice or a credit note is 422; a Member is 403; an unknown id 404', async () => {
    const sent = await sentInvoice();
    expect(await code(ws.caller.invoices.update({ email, invoice_id: sent.id, notes: 'x' }))).toBe('invoice_not_draft');
    const { credit_note } = await ws.caller.invoices.void({ email, invoice_id: sent.id });
    expect(await code(ws.caller.invoices.update({ email, invoice_id: credit_note!.id, notes: 'x' }))).toBe('invoice_is_credit_note');
    const member = makeMember(ws.handle.db);
    const draft = await create(makeClient(ws.handle.db).id, { total: 1, invoice_services: [{ unit_amount: 1 }] });
    expect(await code(ws.caller.invoices.update({ email: member.email, invoice_id: draft.id, notes: 'x' }))).toBe('forbidden');
    expect(await code(ws.caller.invoices.update({ email, invoice_id: randomUUID(), notes: 'x' }))).toBe('invoice_not_found');
  });
});

describe('deleting a draft (invoices.delete)', () => {
  it('removes it, its entries become unbilled, its number is free, the project forgets it', async () => {
    const s = timeSetup(1);
    const earlier = await create(s.client.id, { total: 0, invoice_services: [{ notes: 'Earlier', project_id: s.project.id }] });
    clock.advance(1000);
    const inv = await create(s.client.id, { total: 100, invoice_time_entries: [s.line(s.entries[0]!)] });
    expect(ws.handle.db.select().from(projects).where(eq(projects.id, s.project.id)).get()!.lastInvoiceId).toBe(inv.id);
    expect(await ws.caller.invoices.delete({ email, invoice_id: inv.id })).toEqual({ deleted: true, invoice_id: inv.id });
    expect(invoiceRow(inv.id)).toBeUndefined();
    expect(entryRow(s.entries[0]!.id)).toMatchObject({ status: 'unbilled', invoiceId: null });
    expect(ws.handle.db.select().from(projects).where(eq(projects.id, s.project.id)).get()!.lastInvoiceId).toBe(earlier.id);
    // Announced, so a receiver told of the draft forgets it before its number comes back.
    const deleted = eventTypes().filter((e) => e.type === 'invoice.deleted' && JSON.parse(e.data).invoice.id === inv.id);
    expect(deleted.map((e) => JSON.parse(e.data).invoice)).toEqual([expect.objectContaining({ id: inv.id, number: inv.number, total: 100, status: 'draft' })]);
    await create(s.client.id, { number: inv.number, total: 100, invoice_time_entries: [s.line(s.entries[0]!)] });
    const sent = await sentInvoice();
    expect(await code(ws.caller.invoices.delete({ email, invoice_id: sent.id }))).toBe('invoice_not_draft');
  });
});

describe('entries released by a deleted draft or a void invoice', () => {
  it('are non_billable, not unbilled, when their task stopped being billable meanwhile', async () => {
    const s = timeSetup(2);
    const draft = await create(s.client.id, { total: 100, invoice_time_entries: [s.line(s.entries[0]!)] });
    const sent = await create(s.client.id, { total: 100, invoice_time_entries: [s.line(s.entries[1]!)] });
    await ws.caller.invoices.markSent({ email, invoice_id: sent.id });
    // The task turns non-billable (billed entries keep their status), through endpoint 4.
    const res = await ws.api.patch(`/api/external/v1/projects/${s.project.id}`, { email, project: { tasks_attributes: [{ id: s.task.id, billable: false }] } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(entryRow(s.entries[0]!.id).status).toBe('billed');

    await ws.caller.invoices.delete({ email, invoice_id: draft.id });
    await ws.caller.invoices.void({ email, invoice_id: sent.id });
    // Before, both came back `unbilled`: a status that says they can be billed, under a task that cannot.
    for (const e of s.entries) expect(entryRow(e.id)).toMatchObject({ status: 'non_billable', invoiceId: null });
  });
});

describe('sending later (invoices.send), resending, marking sent', () => {
  it('send: a draft with endpoint 1 rules becomes sending and queues its mail; not twice', async () => {
    const client = makeClient(ws.handle.db);
    const ann = makeRecipient(ws.handle.db, client.id);
    const otherClients = makeRecipient(ws.handle.db, makeClient(ws.handle.db).id);
    const inv = await create(client.id, { total: 10, invoice_services: [{ unit_amount: 10 }] });
    const bad = await ws.caller.invoices.send({ email, invoice_id: inv.id, invoice_details: { recipient_ids: [ann.id, otherClients.id] } }).catch((e: { cause: unknown }) => e.cause);
    expect(bad).toMatchObject({ code: 'validation_failed', details: [{ path: 'invoice_details.recipient_ids.1' }] });
    expect(await code(ws.caller.invoices.send({ email, invoice_id: inv.id, invoice_details: { recipient_ids: [] } }))).toBe('validation_failed');
    const sent = await ws.caller.invoices.send({ email, invoice_id: inv.id, invoice_details: { recipient_ids: [ann.id], subject: 'Hi', send_me_a_copy: 'true', attach_pdf_invoice: 'true' } });
    expect(sent).toMatchObject({ queued: 2, invoice: { status: 'sending' } });
    const mail = ws.handle.db.select().from(outbox).where(eq(outbox.invoiceId, inv.id)).all();
    expect(mail.map((m) => [m.kind, m.toAddress, m.subject, m.attachInvoicePdf]).sort()).toEqual([
      ['invoice', ann.email, 'Hi', true],
      ['invoice_copy', email, 'Copy: Hi', true],
    ].sort());
    expect(await code(ws.caller.invoices.send({ email, invoice_id: inv.id, invoice_details: { recipient_ids: [ann.id] } }))).toBe('invoice_not_draft');
  });

  it('resend: to chosen live recipients of the client; status unchanged; not for drafts or void invoices', async () => {
    const inv = await sentInvoice();
    const clientId = invoiceRow(inv.id)!.clientId;
    const bob = makeRecipient(ws.handle.db, clientId, { name: 'Bob' });
    const res = await ws.caller.invoices.resend({ email, invoice_id: inv.id, invoice_details: { recipient_ids: [bob.id], message: 'Again, as asked.' } });
    expect(res).toMatchObject({ queued: 1, invoice: { status: 'sent' } });
    const row = ws.handle.db.select().from(outbox).where(eq(outbox.invoiceId, inv.id)).get()!;
    expect(row).toMatchObject({ kind: 'invoice_resend', toAddress: bob.email, recipientId: bob.id });
    expect(row.text).toContain('Hello Bob,\n\nAgain, as asked.');
    const draft = await create(clientId, { total: 1, invoice_services: [{ unit_amount: 1 }] });
    expect(await code(ws.caller.invoices.resend({ email, invoice_id: draft.id, invoice_details: { recipient_ids: [bob.id] } }))).toBe('invoice_draft');
    await ws.caller.invoices.void({ email, invoice_id: draft.id });
    expect(await code(ws.caller.invoices.resend({ email, invoice_id: draft.id, invoice_details: { recipient_ids: [bob.id] } }))).toBe('invoice_void');
  });

  it('markSent: a draft delivered by other means becomes sent and records invoice.sent', async () => {
    const inv = await create(makeClient(ws.handle.db).id, { total: 1, invoice_services: [{ unit_amount: 1 }] });
    const res = await ws.caller.invoices.markSent({ email, invoice_id: inv.id });
    expect(res.invoice).toMatchObject({ status: 'sent', sent_at: clock().toISOString(), balance_due: 1 });
    expect(eventTypes().some((e) => e.type === 'invoice.sent' && JSON.parse(e.data).invoice.id === inv.id)).toBe(true);
  });
});

describe('payments', () => {
  it('partial payments, then paid; the balance follows; events in the same transaction', async () => {
    const inv = await sentInvoice(1000);
    const first = await ws.caller.invoices.recordPayment({ email, invoice_id: inv.id, amount: 250.5, method: 'bank_transfer', paid_on: '11/15/2026', reference: 'TRX 1' });
    expect(first.payment).toMatchObject({ amount: 250.5, currency: 'USD', paid_on: '2026-11-15', method: 'bank_transfer', reference: 'TRX 1', source: 'manual', provider_payment_id: null, refund_of: null });
    expect(first.invoice).toMatchObject({ status: 'partially_paid', amount_paid: 250.5, balance_due: 749.5, paid_at: null });
    await ws.caller.invoices.recordPayment({ email, invoice_id: inv.id, amount: 500, method: 'check' });
    const over = await ws.caller.invoices.recordPayment({ email, invoice_id: inv.id, amount: 249.51, method: 'cash' }).catch((e: { cause: unknown }) => e.cause);
    expect(over).toMatchObject({ code: 'payment_exceeds_balance', details: [{ path: 'amount' }], extra: { balance_due: 249.5 } });
    const last = await ws.caller.invoices.recordPayment({ email, invoice_id: inv.id, amount: 249.5, method: 'card' });
    expect(last.invoice).toMatchObject({ status: 'paid', amount_paid: 1000, balance_due: 0, paid_at: clock().toISOString() });
    expect((await ws.caller.invoices.payments({ invoice_id: inv.id })).items.map((p) => p.amount)).toEqual([250.5, 500, 249.5]);
    const mine = eventTypes().filter((e) => JSON.stringify(e.data).includes(inv.id)).map((e) => e.type);
    expect(mine.filter((t) => t === 'payment.recorded')).toHaveLength(3);
    expect(mine.filter((t) => t === 'invoice.partially_paid')).toHaveLength(1);
    expect(mine.filter((t) => t === 'invoice.paid')).toHaveLength(1);
    expect(await code(ws.caller.invoices.recordPayment({ email, invoice_id: inv.id, amount: 1, method: 'cash' }))).toBe('invoice_already_paid');
  });

  it('an invoice of 0 is issued owing nothing: it stays sent, takes no payment, and says why', async () => {
    const inv = await sentInvoice(0);
    const refused = await ws.caller.invoices.markPaid({ email, invoice_id: inv.id }).catch((e: { cause: { code: string; message: string } }) => e.cause);
    expect(refused).toMatchObject({ code: 'invoice_already_paid', message: expect.stringContaining('totals 0: there is nothing to pay') });
    expect((await ws.caller.invoices.get({ invoice_id: inv.id })).invoice).toMatchObject({ status: 'sent', balance_due: 0, overdue: false });
  });

  it('deleting a mistaken payment moves the status back: paid → partially paid → sent', async () => {
    const inv = await sentInvoice(100);
    const a = await ws.caller.invoices.recordPayment({ email, invoice_id: inv.id, amount: 40, method: 'cash' });
    const b = await ws.caller.invoices.recordPayment({ email, invoice_id: inv.id, amount: 60, method: 'cash' });
    expect(b.invoice.status).toBe('paid');
    expect((await ws.caller.invoices.deletePayment({ email, payment_id: b.payment.id })).invoice).toMatchObject({ status: 'partially_paid', balance_due: 60, paid_at: null });
    expect((await ws.caller.invoices.deletePayment({ email, payment_id: a.payment.id })).invoice).toMatchObject({ status: 'sent', balance_due: 100 });
    expect(await code(ws.caller.invoices.deletePayment({ email, payment_id: a.payment.id }))).toBe('payment_not_found');
    // An integration told of each payment is told of each deletion, with the invoice as it is now.
    const deleted = eventTypes()
      .filter((e) => e.type === 'payment.deleted' && JSON.stringify(e.data).includes(inv.id))
      .map((e) => JSON.parse(e.data) as { payment: { id: string }; invoice: { status: string; balance_due: number } });
    expect(deleted.map((d) => [d.payment.id, d.invoice.status, d.invoice.balance_due])).toEqual([
      [b.payment.id, 'partially_paid', 60],
      [a.payment.id, 'sent', 100],
    ]);
  });

  it('deleting the payment of an invoice whose e-mail was cancelled while it was paid settles it: a draft again, not stuck in sending', async () => {
    const client = makeClient(ws.handle.db);
    const ann = makeRecipient(ws.handle.db, client.id);
    const inv = await create(client.id, { total: 100, invoice_services: [{ unit_amount: 100 }], send_email: true, invoice_details: { recipient_ids: [ann.id] } });
    expect(inv.status).toBe('sending');
    const paid = await ws.caller.invoices.recordPayment({ email, invoice_id: inv.id, amount: 30, method: 'cash' });
    expect(paid.invoice.status).toBe('partially_paid');
    // The only recipient is deleted before the mail goes out: the worker cancels it.
    await ws.caller.recipients.delete({ client_id: client.id, recipient_id: ann.id });
    await runJobOnce(outboxJob, env.services);
    expect(ws.handle.db.select({ status: outbox.status }).from(outbox).where(eq(outbox.invoiceId, inv.id)).all()).toEqual([{ status: 'failed' }]);

    const undone = await ws.caller.invoices.deletePayment({ email, payment_id: paid.payment.id });
    expect(undone.invoice.status).toBe('draft');
    expect(invoiceRow(inv.id)).toMatchObject({ status: 'draft', sentAt: null });
    // A draft again, it can be sent.
    expect(await ws.caller.invoices.send({ email, invoice_id: inv.id, invoice_details: { recipient_ids: [makeRecipient(ws.handle.db, client.id).id] } })).toMatchObject({ invoice: { status: 'sending' } });
  });

  it('422 naming the field: future date, too many decimals, zero, a draft, a void invoice, a credit note', async () => {
    const inv = await sentInvoice(100);
    const detail = (input: Record<string, unknown>) =>
      ws.caller.invoices.recordPayment({ email, invoice_id: inv.id, method: 'cash', amount: 1, ...input } as never).catch((e: { cause: { details?: { path: string }[] } }) => e.cause.details?.[0]?.path);
    expect(await detail({ paid_on: '2026-11-19' })).toBe('paid_on');
    expect(await detail({ amount: 1.005 })).toBe('amount');
    expect(await detail({ amount: 0 })).toBe('amount');
    expect(await detail({ method: 'bitcoin' })).toBe('method');
    // A whole amount too large for any balance is said so, not "at most 3 decimals" (BHD: 2e12 is 2e15 fils).
    const bhd = await create(makeClient(ws.handle.db, { currency: 'BHD' }).id, { total: 5, invoice_services: [{ unit_amount: 5 }] });
    await ws.caller.invoices.markSent({ email, invoice_id: bhd.id });
    const huge = await ws.caller.invoices.recordPayment({ email, invoice_id: bhd.id, amount: 2e12, method: 'cash' }).catch((e: { cause: { details: { message: string }[] } }) => e.cause.details[0]);
    expect(huge).toMatchObject({ path: 'amount', message: expect.stringMatching(/^is too large/) });
    const draft = await create(makeClient(ws.handle.db).id, { total: 5, invoice_services: [{ unit_amount: 5 }] });
    expect(await code(ws.caller.invoices.recordPayment({ email, invoice_id: draft.id, amount: 1, method: 'cash' }))).toBe('invoice_draft');
    const { credit_note } = await ws.caller.invoices.void({ email, invoice_id: inv.id });
    expect(await code(ws.caller.invoices.recordPayment({ email, invoice_id: inv.id, amount: 1, method: 'cash' }))).toBe('invoice_void');
    expect(await code(ws.caller.invoices.recordPayment({ email, invoice_id: credit_note!.id, amount: 1, method: 'cash' }))).toBe('invoice_is_credit_note');
    expect(ws.handle.db.select().from(payments).where(eq(payments.invoiceId, inv.id)).all()).toEqual([]);
  });
});

describe('overdue', () => {
  it('is derived everywhere (list filter, get) from the due date and the balance, in the workspace time zone', async () => {
    const zone = provisionWorkspace(env.services.registry, { subdomain: 'pacific', timeZone: 'America/Los_Angeles', owner: { email: 'o@pacific.test', firstName: 'O', lastName: 'P' } }, clock());
    const caller = callerFor(env.services, 'pacific', zone.apiKey);
    const handle = env.services.registry.get('pacific')!;
    const client = makeClient(handle.db);
    const mk = async (n: string) => {
      const { invoice } = await caller.invoices.create({ email: 'o@pacific.test', client_id: client.id, number: n, total: 10, due_date: '2026-11-20', issue_date: '2026-11-01', invoice_services: [{ unit_amount: 10 }] });
      await caller.invoices.markSent({ email: 'o@pacific.test', invoice_id: invoice.id });
      return invoice.id;
    };
    const late = await mk('P-1');
    const paid = await mk('P-2');
    const part = await mk('P-3');
    await caller.invoices.markPaid({ email: 'o@pacific.test', invoice_id: paid });
    await caller.invoices.recordPayment({ email: 'o@pacific.test', invoice_id: part, amount: 4, method: 'cash' });
    // 02:00 UTC on Nov 21 is still Nov 20 in Los Angeles: nothing is overdue yet.
    clock.set('2026-11-21T02:00:00.000Z');
    expect((await caller.invoices.list({ overdue: true })).items).toEqual([]);
    clock.set('2026-11-21T09:00:00.000Z');
    expect((await caller.invoices.list({ overdue: true })).items.map((i) => i.number).sort()).toEqual(['P-1', 'P-3']);
    expect((await caller.invoices.list({ overdue: false })).items.map((i) => i.number)).toEqual(['P-2']);
    expect((await caller.invoices.get({ invoice_id: late })).invoice).toMatchObject({ overdue: true, balance_due: 10 });
    expect((await caller.invoices.get({ invoice_id: part })).invoice).toMatchObject({ overdue: true, balance_due: 6, status: 'partially_paid' });
    clock.set('2026-11-18T10:00:00.000Z');
  });

  it('invoice.overdue is recorded once per invoice by the reminders job', async () => {
    const inv = await sentInvoice(10, { due_date: '11/19/2026' });
    const overdueEvents = () => eventTypes().filter((e) => e.type === 'invoice.overdue' && JSON.parse(e.data).invoice.id === inv.id);
    await runJobOnce(remindersJob, env.services);
    expect(overdueEvents()).toHaveLength(0);
    clock.set('2026-11-20T10:00:00.000Z');
    await runJobOnce(remindersJob, env.services);
    await runJobOnce(remindersJob, env.services);
    clock.set('2026-11-28T10:00:00.000Z');
    await runJobOnce(remindersJob, env.services);
    clock.set('2026-11-18T10:00:00.000Z');
    expect(overdueEvents()).toHaveLength(1);
    expect(JSON.parse(overdueEvents()[0]!.data).invoice).toMatchObject({ overdue: true, balance_due: 10 });
    expect(invoiceRow(inv.id)!.overdueAt).toBe('2026-11-20T10:00:00.000Z');
  });
});

describe('credit notes (invoices.void)', () => {
  it('voiding a sent invoice issues a numbered credit note that references it; the original stays', async () => {
    const s = timeSetup(1);
    const inv = await create(s.client.id, { total: 120, tax_details: [{ name: 'VAT', percentage: 20, selected: true }], invoice_time_entries: [s.line(s.entries[0]!)] });
    // A total alone is checked against the stored one.
    expect(await code(ws.caller.invoices.update({ email, invoice_id: inv.id, total: 100 }))).toBe('total_mismatch');
    await ws.caller.invoices.markSent({ email, invoice_id: inv.id });
    const paid = await ws.caller.invoices.recordPayment({ email, invoice_id: inv.id, amount: 20, method: 'cash' });
    const res = await ws.caller.invoices.void({ email, invoice_id: inv.id, reason: 'Wrong client' });
    expect(res.invoice).toMatchObject({ status: 'void', credit_note_id: res.credit_note!.id, amount_paid: 20, balance_due: 0 });
    // The payment stays as the record of money to give back: a void invoice's payments are final.
    expect(await code(ws.caller.invoices.deletePayment({ email, payment_id: paid.payment.id }))).toBe('invoice_void');
    expect((await ws.caller.invoices.payments({ invoice_id: inv.id })).items).toHaveLength(1);
    expect(res.credit_note).toMatchObject({ kind: 'credit_note', number: expect.stringMatching(/^CN-\d{4}$/), credited_invoice_id: inv.id, total: -120, subtotal: -100, tax_total: -20, notes: 'Wrong client', status: 'draft', balance_due: 0 });
    const { invoice: note } = await ws.caller.invoices.get({ invoice_id: res.credit_note!.id });
    expect(note.lines).toMatchObject([{ ...s.line(s.entries[0]!), amount: -100 }]);
    expect(note.taxes).toMatchObject([{ name: 'VAT', amount: -20 }]);
    expect(entryRow(s.entries[0]!.id)).toMatchObject({ status: 'unbilled', invoiceId: null });
    // The released entry may now move to another task: the void invoice's line still names what it billed.
    const other = makeTask(ws.handle.db, s.project.id);
    ws.handle.db.update(timeEntries).set({ taskId: other.id }).where(eq(timeEntries.id, s.entries[0]!.id)).run();
    const voidedLines = (await ws.caller.invoices.get({ invoice_id: inv.id })).invoice.lines;
    expect(voidedLines).toMatchObject([{ ...s.line(s.entries[0]!), amount: 100 }]);
    expect(voidedLines[0]!.id).not.toBe(note.lines[0]!.id);
    const voided = eventTypes().find((e) => e.type === 'invoice.voided' && JSON.parse(e.data).invoice.id === inv.id)!;
    expect(JSON.parse(voided.data).credit_note.number).toBe(res.credit_note!.number);
    // The credit note can be e-mailed like a draft; invoice numbering is not disturbed.
    const recipient = makeRecipient(ws.handle.db, s.client.id);
    expect((await ws.caller.invoices.send({ email, invoice_id: note.id, invoice_details: { recipient_ids: [recipient.id] } })).invoice.status).toBe('sending');
    expect((await ws.caller.invoices.nextNumber()).number).toMatch(/^LC-\d{4}$/);
    expect((await ws.caller.invoices.list({ kind: 'credit_note' })).items.map((i) => i.number)).toContain(res.credit_note!.number);
  });

  it('numbers follow the CN series or the number given (409 when taken); drafts, paid invoices and credit notes are refused', async () => {
    const a = await sentInvoice();
    expect((await ws.caller.invoices.void({ email, invoice_id: a.id })).credit_note!.number).toMatch(/^CN-\d{4}$/);
    const b = await sentInvoice();
    expect((await ws.caller.invoices.void({ email, invoice_id: b.id, credit_note_number: 'GS-2026-1' })).credit_note!.number).toBe('GS-2026-1');
    const c = await sentInvoice();
    expect(await code(ws.caller.invoices.void({ email, invoice_id: c.id, credit_note_number: 'GS-2026-1' }))).toBe('invoice_number_taken');
    expect(invoiceRow(c.id)!.status).toBe('sent');
    const draft = await create(makeClient(ws.handle.db).id, { total: 1, invoice_services: [{ unit_amount: 1 }] });
    const refused = await ws.caller.invoices.void({ email, invoice_id: draft.id, credit_note_number: 'GS-X' }).catch((e: { cause: unknown }) => e.cause);
    expect(refused).toMatchObject({ code: 'invoice_draft', details: [{ path: 'credit_note_number' }] });
    expect(await ws.caller.invoices.void({ email, invoice_id: draft.id })).toMatchObject({ invoice: { status: 'void' }, credit_note: null });
    await ws.caller.invoices.markPaid({ email, invoice_id: c.id });
    expect(await code(ws.caller.invoices.void({ email, invoice_id: c.id }))).toBe('invoice_paid');
    const note = (await ws.caller.invoices.list({ kind: 'credit_note' })).items[0]!;
    expect(await code(ws.caller.invoices.void({ email, invoice_id: note.id }))).toBe('invoice_is_credit_note');
  });
});
