import { eq } from 'drizzle-orm';
import { describe, expect, it, vi } from 'vitest';
import { invoices, outbox } from '../src/db/schema/index.ts';
import { createMailTransport, SMTP_TIMEOUTS } from '../src/mail/transport.ts';
import { ATTEMPT_MS, deliverOutbox, LEASE_MS, MAX_ATTEMPTS } from '../src/mail/worker.ts';
import { testClock } from './helpers/env.ts';
import { makeRecipient } from './helpers/factories.ts';
import { emailedInvoice, refusal, toAddress, useSmtpEnv } from './helpers/smtp.ts';


const clock = testClock();
const ctx = useSmtpEnv({ clock, mailFrom: 'Agency <billing@agency.test>' });


const invoiceRow = (id: string) => ctx.env.alpha.handle.db.select().from(invoices).where(eq(invoices.id, id)).get()!;
const deliver = () => deliverOutbox(ctx.env.alpha.handle, ctx.env.services);

describe('an invoice resent while its first message is refused', () => {
  /** Ann's address is wrong: the server refuses it for good (550), so her message keeps retrying. */
  async function wrongAddressThenBob() {
    const ws = ctx.env.alpha;
    ctx.smtp.answer = async (mail) => (toAddress(mail) === 'ann@wrong.test' ? refusal(550, '5.1.1 no such user') : null);
    const inv = await emailedInvoice(ws, [{ name: 'Ann', email: 'ann@wrong.test' }]);
    expect(await deliver()).toMatchObject({ sent: 0, retried: 1 });
    const bob = makeRecipient(ws.handle.db, inv.clientId, { name: 'Bob', email: 'bob@client.test' });
    const resent = await ws.caller.invoices.resend({ email: ws.ownerEmail, invoice_id: inv.id, invoice_details: { recipient_ids: [bob.id] } });
    expect(resent.invoice.status).toBe('sending');
    return { ws, inv };
  }

  it('is sent once the resend is delivered and the wrong recipient deleted; it can no longer be deleted', async () => {
    const { ws, inv } = await wrongAddressThenBob();
    await ws.caller.recipients.delete({ client_id: inv.clientId, recipient_id: inv.recipients[0]!.id });
    clock.advance(5 * 60_000);
    expect(await deliver()).toMatchObject({ sent: 1, cancelled: 1 });
    expect(ctx.smtp.received.map((r) => r.rcptTo)).toEqual([['bob@client.test']]);
    expect(invoiceRow(inv.id)).toMatchObject({ status: 'sent', sentAt: clock().toISOString() });
    await expect(ws.caller.invoices.delete({ email: ws.ownerEmail, invoice_id: inv.id })).rejects.toMatchObject({ cause: { code: 'invoice_not_draft' } });
    expect(invoiceRow(inv.id).status).toBe('sent');
  });

  it('a resend still pending holds the invoice in sending (never a draft), and settles it when delivered', async () => {
    const { ws, inv } = await wrongAddressThenBob();
    // Bob's server is busy for now: his resend stays pending while Ann's message is cancelled.
    ctx.smtp.answer = async (mail) => refusal(toAddress(mail) === 'ann@wrong.test' ? 550 : 421, 'not now');
    await ws.caller.recipients.delete({ client_id: inv.clientId, recipient_id: inv.recipients[0]!.id });
    clock.advance(5 * 60_000);
    expect(await deliver()).toMatchObject({ sent: 0, retried: 1, cancelled: 1 });
    expect(invoiceRow(inv.id)).toMatchObject({ status: 'sending', sentAt: null });

    ctx.smtp.answer = null;
    clock.advance(60 * 60_000);
    expect(await deliver()).toMatchObject({ sent: 1 });
    expect(invoiceRow(inv.id)).toMatchObject({ status: 'sent', sentAt: clock().toISOString() });
  });
});

describe('a slow answer to the end of DATA', () => {
  it('is waited for 10 minutes (RFC 5321 §4.5.3.2.6); an attempt is bounded, and the claim lease outlasts it', () => {
    expect(SMTP_TIMEOUTS.replyMs).toBeGreaterThanOrEqual(10 * 60_000);
    // A dead server still fails fast.
    expect(SMTP_TIMEOUTS.connectionMs).toBeLessThanOrEqual(30_000);
    expect(SMTP_TIMEOUTS.greetingMs).toBeLessThanOrEqual(30_000);
    expect(ATTEMPT_MS).toBeGreaterThan(SMTP_TIMEOUTS.connectionMs + SMTP_TIMEOUTS.greetingMs + SMTP_TIMEOUTS.replyMs);
    expect(LEASE_MS).toBeGreaterThan(ATTEMPT_MS);
  });

  it('given up before it comes is a message the server accepted and then gets again: the reply wait is the transport timeout', async () => {
    const ws = ctx.env.alpha;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let arrived = 0;
    ctx.smtp.answer = async () => {
      arrived++;
      await held;
      return null;
    };
    const inv = await emailedInvoice(ws, [{ name: 'Cy', email: 'cy@client.test' }]);
    // A reply wait of 300 ms stands in for the 60 s the worker used to give the server.
    const impatient = createMailTransport(ctx.env.services.config, ws.subdomain, { ...SMTP_TIMEOUTS, replyMs: 300 });
    try {
      expect(await deliverOutbox(ws.handle, ctx.env.services, impatient)).toMatchObject({ sent: 0, retried: 1 });
    } finally {
      impatient.close();
    }
    expect(arrived).toBe(1);
    const [row] = ctx.env.alpha.handle.db.select().from(outbox).where(eq(outbox.invoiceId, inv.id)).all();
    expect(row).toMatchObject({ status: 'pending', lastError: 'Timeout' });
    release();
    await vi.waitFor(() => expect(ctx.smtp.received).toHaveLength(1));
    clock.advance(60_000);
    expect(await deliver()).toMatchObject({ sent: 1 });
    expect(ctx.smtp.received.map((r) => r.mail.messageId)).toEqual([row!.messageId, row!.messageId]);
  });

  it('a send ends when the attempt deadline (its signal) aborts', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    ctx.smtp.answer = async () => {
      await held;
      return refusal(421, 'too late');
    };
    const transport = createMailTransport(ctx.env.services.config, ctx.env.alpha.subdomain);
    try {
      const message = { from: 'billing@agency.test', to: 'dee@client.test', subject: 'S', text: 'T', messageId: '<deadline@agency.test>' };
      await expect(transport.send(message, 'deadline', AbortSignal.timeout(300))).rejects.toMatchObject({ name: 'AbortError' });
    } finally {
      release();
      transport.close();
    }
  });
});

describe('a message whose worker never reports back', () => {
  it(`counts each taken-over claim as an attempt and fails for good after ${MAX_ATTEMPTS}: "delivery interrupted"`, async () => {
    const ws = ctx.env.alpha;
    // The server holds every answer to the end of DATA: each worker hangs there, as one that died would.
    const releases: (() => void)[] = [];
    ctx.smtp.answer = () => new Promise((resolve) => releases.push(() => resolve(refusal(421, 'released'))));
    const inv = await emailedInvoice(ws, [{ name: 'Eve', email: 'eve@client.test' }]);
    const passes: Promise<unknown>[] = [];
    try {
      for (let i = 1; i <= MAX_ATTEMPTS; i++) {
        passes.push(deliver());
        await vi.waitFor(() => expect(releases).toHaveLength(i));
        clock.advance(LEASE_MS + 1);
      }
      expect(await deliver()).toMatchObject({ sent: 0, retried: 0, cancelled: 0 });
      const { items } = await ws.caller.invoices.deliveries({ invoice_id: inv.id });
      expect(items.map((d) => [d.status, d.attempts, d.last_error])).toEqual([['failed', MAX_ATTEMPTS, 'delivery interrupted']]);
      // Another pass, a lease later, leaves it alone.
      clock.advance(LEASE_MS + 1);
      expect(await deliver()).toMatchObject({ sent: 0 });
      expect(releases).toHaveLength(MAX_ATTEMPTS);
    } finally {
      for (const release of releases) release();
      await Promise.all(passes);
    }
    // The hung workers' late failures do not bring it back.
    expect(ctx.env.alpha.handle.db.select().from(outbox).where(eq(outbox.invoiceId, inv.id)).get()).toMatchObject({ status: 'failed', lastError: 'delivery interrupted' });
    expect(invoiceRow(inv.id).status).toBe('sending');
  });
});

describe("the sender's copy", () => {
  it('is cancelled when every client message of its sending was cancelled; the invoice is a draft again', async () => {
    const ws = ctx.env.alpha;
    const inv = await emailedInvoice(ws, [{ name: 'Flo', email: 'flo@client.test' }], { copy: true });
    await ws.caller.recipients.delete({ client_id: inv.clientId, recipient_id: inv.recipients[0]!.id });
    expect(await deliver()).toMatchObject({ sent: 0, cancelled: 2 });
    expect(ctx.smtp.received).toEqual([]);
    const { items } = await ws.caller.invoices.deliveries({ invoice_id: inv.id });
    expect(items.map((d) => [d.kind, d.status, d.last_error]).sort()).toEqual([
      ['invoice', 'failed', 'cancelled: the recipient was deleted before delivery'],
      ['invoice_copy', 'failed', 'cancelled: no client message was delivered'],
    ]);
    expect(invoiceRow(inv.id).status).toBe('draft');
  });

  it('still goes out when a client message of its sending was delivered', async () => {
    const ws = ctx.env.alpha;
    const inv = await emailedInvoice(ws, [{ name: 'Gus', email: 'gus@client.test' }, { name: 'Hal', email: 'hal@client.test' }], { copy: true });
    await ws.caller.recipients.delete({ client_id: inv.clientId, recipient_id: inv.recipients[0]!.id });
    expect(await deliver()).toMatchObject({ sent: 2, cancelled: 1 });
    expect(ctx.smtp.received.map((r) => r.rcptTo[0]).sort()).toEqual(['hal@client.test', ws.ownerEmail].sort());
    expect(invoiceRow(inv.id).status).toBe('sent');
  });
});
