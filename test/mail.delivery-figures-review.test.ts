import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { outbox } from '../src/db/schema/index.ts';
import { deliverOutbox } from '../src/mail/worker.ts';
import { testClock, type TestWorkspace } from './helpers/env.ts';
import { makeClient, makeRecipient } from './helpers/factories.ts';
import { useSmtpEnv } from './helpers/smtp.ts';

/**
 * Review finding 3: an invoice message waiting for delivery (a resend during a mail outage, say)
 * states the invoice's figures as they are when it goes out, not as they were when it was queued:
 * a payment recorded (or deleted) meanwhile is never asked for again. Through the real outbox
 * worker against a real SMTP server.
 */

const clock = testClock();
const ctx = useSmtpEnv({ clock });

let seq = 0;
/** A sent invoice of $100 due Nov 18, 2026 (marked sent, no e-mail yet), with a recipient Ann. */
async function sentInvoice(ws: TestWorkspace, extra: Record<string, unknown> = {}) {
  const client = makeClient(ws.handle.db, { currency: 'USD', name: `Client ${++seq}` });
  const ann = makeRecipient(ws.handle.db, client.id, { name: 'Ann', email: `ann${seq}@client.test` });
  const res = await ws.api.post(`/api/external/v2/clients/${client.id}/invoices`, {
    email: ws.ownerEmail,
    number: `DF-${seq}`,
    total: 100,
    invoice_services: [{ notes: 'Work', unit_amount: 100 }],
    issue_date: '2026-11-01',
    due_date: '2026-11-18',
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const id = res.body.invoice.id as string;
  await ws.caller.invoices.markSent({ email: ws.ownerEmail, invoice_id: id });
  return { id, number: res.body.invoice.number as string, ann, clientName: client.name };
}

const pay = (ws: TestWorkspace, id: string, amount: number) => ws.caller.invoices.recordPayment({ email: ws.ownerEmail, invoice_id: id, amount, method: 'bank_transfer' });
const resend = (ws: TestWorkspace, id: string, recipientId: string, details: { message?: string; send_me_a_copy?: boolean } = {}) =>
  ws.caller.invoices.resend({ email: ws.ownerEmail, invoice_id: id, invoice_details: { recipient_ids: [recipientId], ...details } });
const rowsOf = (ws: TestWorkspace, id: string) => ws.handle.db.select().from(outbox).where(eq(outbox.invoiceId, id)).orderBy(outbox.kind).all();
const received = (address: string) => ctx.smtp.received.find((r) => r.rcptTo[0] === address)!.mail;

describe('an invoice message queued before a payment', () => {
  it('paid in full before it goes out: asks for nothing (client and copy), and the outbox keeps what was sent', async () => {
    const ws = ctx.env.alpha;
    const inv = await sentInvoice(ws);
    await pay(ws, inv.id, 40);
    await resend(ws, inv.id, inv.ann.id, { send_me_a_copy: true });
    const [queued] = rowsOf(ws, inv.id);
    expect(queued!.text).toContain('$40.00 has been paid, and $60.00 is still due by Nov 18, 2026.');
    await pay(ws, inv.id, 60);

    expect(await deliverOutbox(ws.handle, ctx.env.services)).toMatchObject({ sent: 2 });
    for (const address of [inv.ann.email, ws.ownerEmail]) {
      const mail = received(address);
      expect(mail.text).toContain(`Please find invoice ${inv.number} for $100.00, which has been paid in full.`);
      expect(mail.text).toMatch(/Paid: \$100\.00\nAmount due: \$0\.00\n/);
      expect(mail.text).not.toMatch(/still due|\$60\.00|Due date/);
      expect(String(mail.html)).toContain('which has been paid in full');
      expect(String(mail.html)).not.toMatch(/still due|\$60\.00|Due date/);
    }
    expect(received(ws.ownerEmail).text).toContain(`This is your copy of the e-mail sent to the client ${inv.clientName}.`);
    expect(received(inv.ann.email).text).toMatch(/^Hello Ann,\n\nPlease find/);
    // The outbox holds the message as it went out.
    for (const row of rowsOf(ws, inv.id)) {
      expect(row.status).toBe('sent');
      expect(row.text.trim()).toBe(received(row.toAddress).text!.trim());
      expect(row.html).toContain('which has been paid in full');
    }
  });

  it("keeps the sender's own message and states the balance as it is then", async () => {
    const ws = ctx.env.alpha;
    const inv = await sentInvoice(ws);
    await resend(ws, inv.id, inv.ann.id, { message: 'please find our invoice again, as discussed on the phone.\n\nBest, the studio' });
    expect(rowsOf(ws, inv.id)[0]!.text).toContain('Amount due: $100.00\nDue date: Nov 18, 2026');
    await pay(ws, inv.id, 25);
    await deliverOutbox(ws.handle, ctx.env.services);
    const mail = received(inv.ann.email);
    expect(mail.text).toContain('Hello Ann,\n\nPlease find our invoice again, as discussed on the phone.\n\nBest, the studio\n\nInvoice: ');
    expect(mail.text).toContain('Total: $100.00\nPaid: $25.00\nAmount due: $75.00\nDue date: Nov 18, 2026');
    expect(mail.text).not.toContain('Amount due: $100.00');
  });

  it('a payment deleted before it goes out: the whole total is due again', async () => {
    const ws = ctx.env.alpha;
    const inv = await sentInvoice(ws);
    const { payment } = await pay(ws, inv.id, 40);
    await resend(ws, inv.id, inv.ann.id);
    expect(rowsOf(ws, inv.id)[0]!.text).toContain('$60.00 is still due');
    await ws.caller.invoices.deletePayment({ email: ws.ownerEmail, payment_id: payment.id });
    await deliverOutbox(ws.handle, ctx.env.services);
    const mail = received(inv.ann.email);
    expect(mail.text).toContain(`Please find invoice ${inv.number} for $100.00, due Nov 18, 2026.`);
    expect(mail.text).toContain('Amount due: $100.00\nDue date: Nov 18, 2026');
    expect(mail.text).not.toMatch(/has been paid|\$60\.00|\$40\.00/);
  });

  it('offers to pay online only while something is still due when it goes out', async () => {
    const ws = ctx.env.workspace('figurespay');
    await ws.caller.workspace.updatePaymentProcessor({ email: ws.ownerEmail, secret_key: 'sk_test_abcdefgh12345678', webhook_secret: 'whsec_abcdefgh9876' });
    const inv = await sentInvoice(ws, { include_payment_link: true });
    await resend(ws, inv.id, inv.ann.id);
    expect(rowsOf(ws, inv.id)[0]!.text).toContain('View and pay the invoice online: ');
    await ws.caller.invoices.markPaid({ email: ws.ownerEmail, invoice_id: inv.id });
    await deliverOutbox(ws.handle, ctx.env.services);
    const mail = received(inv.ann.email);
    expect(mail.text).toMatch(/View the invoice online: http:\/\/figurespay\.localhost:3000\/invoices\/[\w-]{43}/);
    expect(mail.text).not.toMatch(/pay the invoice online/i);
  });
});

describe('an invoice message whose invoice did not change while it waited', () => {
  it('goes out exactly as queued, whatever its message and greeting', async () => {
    const ws = ctx.env.alpha;
    const inv = await sentInvoice(ws);
    await pay(ws, inv.id, 30);
    const nameless = makeRecipient(ws.handle.db, (await ws.caller.invoices.get({ invoice_id: inv.id })).invoice.client_id, { name: '', email: `office${seq}@client.test` });
    const messages = [
      undefined,
      'Hello, here is the invoice again.',
      // Written like the figures the template adds below it: the figures are still found after it.
      `Dear accounts team,\n\nInvoice: ${inv.number}\nAmount due: $1.00\n\nRegards`,
      'please pay by Friday.',
      '  Hi! Another copy for you.  ',
    ];
    for (const message of messages) {
      await resend(ws, inv.id, inv.ann.id, { ...(message !== undefined && { message }), send_me_a_copy: true });
      await resend(ws, inv.id, nameless.id, { ...(message !== undefined && { message }) });
    }
    const queued = rowsOf(ws, inv.id);
    expect(queued).toHaveLength(messages.length * 3);
    expect(await deliverOutbox(ws.handle, ctx.env.services)).toMatchObject({ sent: messages.length * 3 });
    const sent = new Map(rowsOf(ws, inv.id).map((r) => [r.id, r]));
    for (const row of queued) {
      expect(sent.get(row.id)).toMatchObject({ status: 'sent', text: row.text, html: row.html });
    }
    const received = ctx.smtp.received.map((r) => r.mail.text!.trim()).sort();
    expect(received).toEqual(queued.map((r) => r.text.trim()).sort());
  });
});
