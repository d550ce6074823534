import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoiceReminders, outbox } from '../src/db/schema/index.ts';
import { remindersJob } from '../src/jobs/reminders.ts';
import { deliverOutbox } from '../src/mail/worker.ts';
import { runJobOnce } from '../src/jobs/runner.ts';
import { recordOverdueInvoices } from '../src/domain/invoices/overdue.ts';
import { nextOverdueAt, nextReminderAt, queueDueReminders } from '../src/domain/invoices/reminders.ts';
import { scopeOf, startTestEnv, testClock, type TestEnv } from './helpers/env.ts';
import { makeClient, makeProject, makeRecipient } from './helpers/factories.ts';

let env: TestEnv;
const clock = testClock('2026-11-18T10:00:00.000Z');

beforeAll(async () => {
  env = await startTestEnv({ clock });
});
afterAll(() => env.close());

/** Delivers every message waiting in a workspace (to files: the tests have no SMTP_URL), at the clock's time. */
const deliverMail = (ws: TestEnv['alpha']) => deliverOutbox(ws.handle, env.services);

/**
 * An invoice e-mailed (or kept as a draft) at `at`, by default 2026-11-10 10:00 UTC, due
 * 2026-11-20; its mail delivered at once unless `delivered` is false.
 */
async function invoice(opts: { remind: boolean; number: string; send?: boolean; delivered?: boolean; at?: string; issueDate?: string; dueDate?: string }) {
  clock.set(opts.at ?? '2026-11-10T10:00:00.000Z');
  const db = env.alpha.handle.db;
  const client = makeClient(db, { name: 'Reminded Ltd' });
  const project = makeProject(db, client.id, { replyTo: 'pm@agency.test' });
  const r = makeRecipient(db, client.id);
  const res = await env.alpha.api.post(`/api/external/v2/clients/${client.id}/invoices`, {
    email: env.alpha.ownerEmail,
    number: opts.number,
    total: 50,
    due_date: opts.dueDate ?? '11/20/2026',
    issue_date: opts.issueDate ?? '11/10/2026',
    include_payment_link: true,
    send_automated_reminder_email: opts.remind,
    invoice_services: [{ notes: 'Retainer', unit_amount: 50 }],
    project_id: [project.id],
    send_email: opts.send ?? true,
    invoice_details: { recipient_ids: [r.id] },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  if (opts.delivered ?? true) await deliverMail(env.alpha);
  return { id: res.body.invoice.id as string, recipient: r };
}

const remindersOf = (id: string) =>
  env.alpha.handle.db.select().from(outbox).where(and(eq(outbox.invoiceId, id), eq(outbox.kind, 'invoice_reminder'))).all();

describe('automated reminders', () => {
  it('on the due date and every 7 days after, once each, while unpaid', async () => {
    const inv = await invoice({ remind: true, number: 'R-1' });
    const quiet = await invoice({ remind: false, number: 'R-2' });
    const run = async (at: string) => {
      clock.set(at);
      await runJobOnce(remindersJob, env.services);
    };

    await run('2026-11-19T23:59:00.000Z');
    expect(remindersOf(inv.id)).toHaveLength(0);

    await run('2026-11-20T08:00:00.000Z');
    await run('2026-11-20T20:00:00.000Z');
    let sent = remindersOf(inv.id);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ toAddress: inv.recipient.email, replyTo: 'pm@agency.test', status: 'pending' });
    expect(sent[0]!.subject).toBe('Reminder: invoice R-1 from alpha is due today');
    expect(sent[0]!.text).toMatch(/\/invoices\/[A-Za-z0-9_-]{43}/);

    await run('2026-11-26T12:00:00.000Z');
    expect(remindersOf(inv.id)).toHaveLength(1);
    await run('2026-11-27T12:00:00.000Z');
    sent = remindersOf(inv.id);
    expect(sent).toHaveLength(2);
    expect(sent[1]!.subject).toMatch(/is overdue$/);

    const recorded = env.alpha.handle.db.select().from(invoiceReminders).where(eq(invoiceReminders.invoiceId, inv.id)).all();
    expect(recorded.map((r) => r.remindOn).sort()).toEqual(['2026-11-20', '2026-11-27']);

    await env.alpha.caller.invoices.markPaid({ email: env.alpha.ownerEmail, invoice_id: inv.id });
    // Reminders still waiting for delivery are cancelled by the payment.
    expect(remindersOf(inv.id).map((r) => r.status)).toEqual(['failed', 'failed']);
    await run('2026-12-04T12:00:00.000Z');
    expect(remindersOf(inv.id)).toHaveLength(2);
    expect(remindersOf(quiet.id)).toHaveLength(0);
  });

  it('a part payment cancels the reminder waiting for delivery; the rest is reminded on the next date, not the same day', async () => {
    const inv = await invoice({ remind: true, number: 'R-12' });
    clock.set('2026-11-20T08:00:00.000Z');
    await runJobOnce(remindersJob, env.services);
    expect(remindersOf(inv.id).map((r) => r.status)).toEqual(['pending']);

    clock.set('2026-11-20T09:00:00.000Z');
    await env.alpha.caller.invoices.recordPayment({ email: env.alpha.ownerEmail, invoice_id: inv.id, amount: 20, method: 'bank_transfer' });
    expect(remindersOf(inv.id).map((r) => r.status)).toEqual(['failed']);
    clock.set('2026-11-20T18:00:00.000Z');
    await runJobOnce(remindersJob, env.services);
    expect(remindersOf(inv.id)).toHaveLength(1);

    clock.set('2026-11-27T08:00:00.000Z');
    await runJobOnce(remindersJob, env.services);
    const sent = remindersOf(inv.id);
    expect(sent.map((r) => r.status)).toEqual(['failed', 'pending']);
    expect(sent[1]!.text).toContain('30.00');
    expect(sent[1]!.text).not.toContain('50.00 USD is');
  });

  it('a draft (never e-mailed) gets no reminders; a sent one does', async () => {
    const draft = await invoice({ remind: true, number: 'R-5', send: false });
    const sent = await invoice({ remind: true, number: 'R-6' });
    clock.set('2026-11-20T10:00:00.000Z');
    await runJobOnce(remindersJob, env.services);
    expect(remindersOf(draft.id)).toHaveLength(0);
    expect(remindersOf(sent.id)).toHaveLength(1);
  });

  it('a void invoice gets no reminders; after a long outage only the latest date is sent', async () => {
    const voided = await invoice({ remind: true, number: 'R-3', at: '2026-11-18T10:00:00.000Z' });
    await env.alpha.caller.invoices.void({ email: env.alpha.ownerEmail, invoice_id: voided.id });
    const late = await invoice({ remind: true, number: 'R-4', at: '2026-11-18T10:00:00.000Z' });
    clock.set('2026-12-20T10:00:00.000Z');
    await runJobOnce(remindersJob, env.services);
    expect(remindersOf(voided.id)).toHaveLength(0);
    const recorded = env.alpha.handle.db.select().from(invoiceReminders).where(eq(invoiceReminders.invoiceId, late.id)).all();
    expect(recorded.map((r) => r.remindOn)).toEqual(['2026-12-18']);
    expect(remindersOf(late.id)).toHaveLength(1);
  });

  it('an invoice sent on its due date gets no reminder that day nor in the week after; the next date of the schedule is its first', async () => {
    const inv = await invoice({ remind: true, number: 'R-7', at: '2026-11-20T09:00:00.000Z', dueDate: '11/20/2026' });
    const ws = env.alpha;
    // One second after the invoice mail: not "is due today".
    clock.set('2026-11-20T09:00:01.000Z');
    await runJobOnce(remindersJob, env.services);
    expect(remindersOf(inv.id)).toHaveLength(0);
    for (const at of ['2026-11-20T23:00:00.000Z', '2026-11-24T12:00:00.000Z', '2026-11-26T23:59:00.000Z']) {
      clock.set(at);
      await runJobOnce(remindersJob, env.services);
    }
    expect(remindersOf(inv.id)).toHaveLength(0);
    clock.set('2026-11-27T08:00:00.000Z');
    await runJobOnce(remindersJob, env.services);
    const sent = remindersOf(inv.id);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.subject).toBe('Reminder: invoice R-7 from alpha is overdue');
    const recorded = ws.handle.db.select().from(invoiceReminders).where(eq(invoiceReminders.invoiceId, inv.id)).all();
    expect(recorded.map((r) => r.remindOn)).toEqual(['2026-11-27']);

    // Resent on 2026-11-30: the reminder of 2026-12-04 would follow it within the week, so the next is 2026-12-11.
    clock.set('2026-11-30T10:00:00.000Z');
    await ws.caller.invoices.resend({ email: ws.ownerEmail, invoice_id: inv.id, invoice_details: { recipient_ids: [inv.recipient.id] } });
    await deliverMail(ws);
    clock.set('2026-12-04T10:00:00.000Z');
    await runJobOnce(remindersJob, env.services);
    expect(remindersOf(inv.id)).toHaveLength(1);
    clock.set('2026-12-11T10:00:00.000Z');
    await runJobOnce(remindersJob, env.services);
    expect(remindersOf(inv.id)).toHaveLength(2);
  });

  it('no reminder while the invoice\'s own mail is still on its way; its delivery starts the quiet week', async () => {
    // Queued 2026-11-10, due 2026-11-20 (dates 11-20, 11-27, 12-04 …), but the mail server is down.
    const inv = await invoice({ remind: true, number: 'R-9', delivered: false });
    for (const at of ['2026-11-20T10:00:00.000Z', '2026-11-21T10:00:00.000Z']) {
      clock.set(at);
      await runJobOnce(remindersJob, env.services);
    }
    expect(remindersOf(inv.id)).toHaveLength(0);
    // Delivered on 2026-11-22: the client has it from then, so 11-27 is in the quiet week.
    clock.set('2026-11-22T10:00:00.000Z');
    expect((await deliverMail(env.alpha)).sent).toBeGreaterThan(0);
    clock.set('2026-11-27T10:00:00.000Z');
    await runJobOnce(remindersJob, env.services);
    expect(remindersOf(inv.id)).toHaveLength(0);
    clock.set('2026-12-04T10:00:00.000Z');
    await runJobOnce(remindersJob, env.services);
    expect(remindersOf(inv.id).map((m) => m.subject)).toEqual(['Reminder: invoice R-9 from alpha is overdue']);
  });

  it('an invoice sent with a due date already past is not reminded "overdue" at once: first on the schedule date a week or more later', async () => {
    // Due 2026-11-01: its reminder dates are 11-01, 11-08, 11-15, 11-22, 11-29 ...; sent 2026-11-18.
    const inv = await invoice({ remind: true, number: 'R-8', at: '2026-11-18T10:00:00.000Z', issueDate: '10/25/2026', dueDate: '11/01/2026' });
    clock.set('2026-11-18T10:00:01.000Z');
    await runJobOnce(remindersJob, env.services);
    expect(remindersOf(inv.id)).toHaveLength(0);
    // 2026-11-22 is a date of the schedule, but only four days after the invoice: skipped.
    clock.set('2026-11-22T10:00:00.000Z');
    await runJobOnce(remindersJob, env.services);
    expect(remindersOf(inv.id)).toHaveLength(0);
    clock.set('2026-11-29T10:00:00.000Z');
    await runJobOnce(remindersJob, env.services);
    const sent = remindersOf(inv.id);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.subject).toBe('Reminder: invoice R-8 from alpha is overdue');
    expect(env.alpha.handle.db.select().from(invoiceReminders).where(eq(invoiceReminders.invoiceId, inv.id)).all().map((r) => r.remindOn)).toEqual(['2026-11-29']);
  });
});

/** An invoice of 50 with reminders, e-mailed (and delivered) to one recipient of a new client: the POST's answer. */
async function sentWithReminders(ws: TestEnv['alpha'], number: string, dueDate: string) {
  const client = makeClient(ws.handle.db);
  const r = makeRecipient(ws.handle.db, client.id);
  const res = await ws.api.post(`/api/external/v2/clients/${client.id}/invoices`, {
    email: ws.ownerEmail,
    number,
    total: 50,
    due_date: dueDate,
    send_automated_reminder_email: true,
    invoice_services: [{ unit_amount: 50 }],
    send_email: true,
    invoice_details: { recipient_ids: [r.id] },
  });
  await deliverMail(ws);
  return res;
}

describe('nextReminderAt', () => {
  it('is the local midnight of the due date (overdue: of the day after), now while due and not yet done, then 7 days on', async () => {
    const ws = env.workspace('next-reminder');
    const at = (iso: string) => scopeOf(env.services, ws.handle, new Date(iso));
    expect(nextReminderAt(at('2026-11-18T10:00:00Z'))).toBe(Number.POSITIVE_INFINITY);
    clock.set('2026-11-10T10:00:00.000Z');
    const res = await sentWithReminders(ws, 'NR-1', '11/20/2026');
    expect(res.status).toBe(201);
    // the workspace keeps UTC: the due date starts at 00:00 UTC, and the invoice is overdue the day after
    expect(new Date(nextReminderAt(at('2026-11-18T10:00:00Z'))).toISOString()).toBe('2026-11-20T00:00:00.000Z');
    expect(new Date(nextOverdueAt(at('2026-11-18T10:00:00Z'))).toISOString()).toBe('2026-11-21T00:00:00.000Z');
    const due = at('2026-11-20T08:00:00Z');
    expect(nextReminderAt(due)).toBe(due.now.getTime());
    queueDueReminders(due);
    expect(new Date(nextReminderAt(at('2026-11-20T08:01:00Z'))).toISOString()).toBe('2026-11-27T00:00:00.000Z');
    const overdue = at('2026-11-21T00:00:00Z');
    expect(nextOverdueAt(overdue)).toBe(overdue.now.getTime());
    expect(recordOverdueInvoices(overdue)).toBe(1);
    expect(nextOverdueAt(at('2026-11-21T00:01:00Z'))).toBe(Number.POSITIVE_INFINITY);
    await ws.caller.invoices.markPaid({ email: ws.ownerEmail, invoice_id: res.body.invoice.id });
    expect(nextReminderAt(at('2026-11-21T00:00:00Z'))).toBe(Number.POSITIVE_INFINITY);
  });

  it('skips the week after the invoice was sent: sent on its due date, the first reminder is the due date + 7', async () => {
    const ws = env.workspace('next-reminder-quiet');
    const at = (iso: string) => scopeOf(env.services, ws.handle, new Date(iso));
    clock.set('2026-11-20T09:00:00.000Z');
    const res = await sentWithReminders(ws, 'NQ-1', '11/20/2026');
    expect(res.status).toBe(201);
    const justSent = at('2026-11-20T09:00:01Z');
    expect(new Date(nextReminderAt(justSent)).toISOString()).toBe('2026-11-27T00:00:00.000Z');
    expect(queueDueReminders(justSent)).toBe(0);
    const due = at('2026-11-27T00:00:00Z');
    expect(nextReminderAt(due)).toBe(due.now.getTime());
    expect(queueDueReminders(due)).toBe(1);
    expect(new Date(nextReminderAt(at('2026-11-27T00:01:00Z'))).toISOString()).toBe('2026-12-04T00:00:00.000Z');
  });
});
