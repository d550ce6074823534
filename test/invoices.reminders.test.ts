import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoiceReminders, outbox } from '../src/db/schema/index.ts';
import { remindersJob } from '../src/jobs/reminders.ts';
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

async function invoice(opts: { remind: boolean; number: string; send?: boolean }) {
  const db = env.alpha.handle.db;
  const client = makeClient(db, { name: 'Reminded Ltd' });
  const project = makeProject(db, client.id, { replyTo: 'pm@agency.test' });
  const r = makeRecipient(db, client.id);
  const res = await env.alpha.api.post(`/api/external/v2/clients/${client.id}/invoices`, {
    email: env.alpha.ownerEmail,
    number: opts.number,
    total: 50,
    due_date: '11/20/2026',
    issue_date: '11/10/2026',
    include_payment_link: true,
    send_automated_reminder_email: opts.remind,
    invoice_services: [{ notes: 'Retainer', unit_amount: 50 }],
    project_id: [project.id],
    send_email: opts.send ?? true,
    invoice_details: { recipient_ids: [r.id] },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
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

  it('a draft (never e-mailed) gets no reminders; a sent one does', async () => {
    clock.set('2026-11-18T10:00:00.000Z');
    const draft = await invoice({ remind: true, number: 'R-5', send: false });
    const sent = await invoice({ remind: true, number: 'R-6' });
    clock.set('2026-11-20T10:00:00.000Z');
    await runJobOnce(remindersJob, env.services);
    expect(remindersOf(draft.id)).toHaveLength(0);
    expect(remindersOf(sent.id)).toHaveLength(1);
  });

  it('a void invoice gets no reminders; after a long outage only the latest date is sent', async () => {
    clock.set('2026-11-18T10:00:00.000Z');
    const voided = await invoice({ remind: true, number: 'R-3' });
    await env.alpha.caller.invoices.void({ email: env.alpha.ownerEmail, invoice_id: voided.id });
    const late = await invoice({ remind: true, number: 'R-4' });
    clock.set('2026-12-20T10:00:00.000Z');
    await runJobOnce(remindersJob, env.services);
    expect(remindersOf(voided.id)).toHaveLength(0);
    const recorded = env.alpha.handle.db.select().from(invoiceReminders).where(eq(invoiceReminders.invoiceId, late.id)).all();
    expect(recorded.map((r) => r.remindOn)).toEqual(['2026-12-18']);
    expect(remindersOf(late.id)).toHaveLength(1);
  });
});

describe('nextReminderAt', () => {
  it('is the local midnight of the due date (overdue: of the day after), now while due and not yet done, then 7 days on', async () => {
    const ws = env.workspace('next-reminder');
    const at = (iso: string) => scopeOf(env.services, ws.handle, new Date(iso));
    expect(nextReminderAt(at('2026-11-18T10:00:00Z'))).toBe(Number.POSITIVE_INFINITY);
    clock.set('2026-11-18T10:00:00.000Z');
    const client = makeClient(ws.handle.db);
    const r = makeRecipient(ws.handle.db, client.id);
    const res = await ws.api.post(`/api/external/v2/clients/${client.id}/invoices`, {
      email: ws.ownerEmail,
      number: 'NR-1',
      total: 50,
      due_date: '11/20/2026',
      send_automated_reminder_email: true,
      invoice_services: [{ unit_amount: 50 }],
      send_email: true,
      invoice_details: { recipient_ids: [r.id] },
    });
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
});
