import { and, eq, like } from 'drizzle-orm';
import { describe, expect, it, vi } from 'vitest';
import { events, invoices } from '../src/db/schema/index.ts';
import { deliverOutbox, LEASE_MS, MAX_ATTEMPTS } from '../src/mail/worker.ts';
import { testClock } from './helpers/env.ts';
import { makeRecipient } from './helpers/factories.ts';
import { emailedInvoice, refusal, toAddress, useSmtpEnv } from './helpers/smtp.ts';

/**
 * Review finding 1: an invoice whose message failed for good (one recipient's address refused, the
 * agency's own copy bouncing, a worker that never reported back) settles on the rest of its mail:
 * delivered to the client → `sent`; never delivered → `sending` until a resend is delivered or it
 * is marked sent. Through the real outbox worker against a real SMTP server.
 */


const clock = testClock();
const ctx = useSmtpEnv({ clock });

let seq = 0;

const ws = () => ctx.env.alpha;
const invoiceRow = (id: string) => ws().handle.db.select().from(invoices).where(eq(invoices.id, id)).get()!;
const sentEvents = (id: string) =>
  ws()
    .handle.db.select()
    .from(events)
    .where(and(eq(events.type, 'invoice.sent'), like(events.data, `%${id}%`)))
    .all();
const deliver = () => deliverOutbox(ws().handle, ctx.env.services);
/** Passes of the worker until every retry is spent (8 attempts are about 2 hours of backoff). */
async function drain() {
  for (let i = 0; i < MAX_ATTEMPTS + 4; i++) {
    await deliver();
    clock.advance(3 * 3_600_000);
  }
}
const deliveries = async (id: string) => (await ws().caller.invoices.deliveries({ invoice_id: id })).items.map((d) => [d.kind, d.to_address, d.status, d.last_error]);
const errorCode = (p: Promise<unknown>) => p.then(() => 'ok', (e: { cause?: { code?: string } }) => e.cause?.code ?? String(e));

describe('an invoice delivered to the client while another of its messages fails for good', () => {
  it("is sent once the refused recipient's message gives up: the client has it (and the failure stays listed)", async () => {
    ctx.smtp.answer = async (mail) => (toAddress(mail) === 'ann@wrong.test' ? refusal(550, '5.1.1 no such user') : null);
    const inv = await emailedInvoice(ws(), [{ name: 'Ann', email: 'ann@wrong.test' }, { name: 'Bob', email: 'bob@client.test' }]);
    expect(await deliver()).toMatchObject({ sent: 1, retried: 1 });
    // Ann's message is still being retried: the invoice waits for it.
    expect(invoiceRow(inv.id)).toMatchObject({ status: 'sending', sentAt: null });

    await drain();
    const row = invoiceRow(inv.id);
    expect(row.status).toBe('sent');
    expect(row.sentAt).not.toBeNull();
    expect(sentEvents(inv.id)).toHaveLength(1);
    expect((await deliveries(inv.id)).sort()).toEqual([
      ['invoice', 'ann@wrong.test', 'failed', expect.stringContaining('550')],
      ['invoice', 'bob@client.test', 'sent', null],
    ]);
    expect((await ws().caller.invoices.get({ invoice_id: inv.id })).invoice.status).toBe('sent');
  });

  it("is sent when only the agency's own copy bounces, without waiting for the copy", async () => {
    ctx.smtp.answer = async (mail) => (toAddress(mail) === ws().ownerEmail ? refusal(552, '5.2.2 mailbox full') : null);
    const inv = await emailedInvoice(ws(), [{ name: 'Bob', email: 'bob2@client.test' }], { copy: true });
    expect(await deliver()).toMatchObject({ sent: 1, retried: 1 });
    expect(invoiceRow(inv.id).status).toBe('sent');
    await drain();
    expect(invoiceRow(inv.id).status).toBe('sent');
    expect(sentEvents(inv.id)).toHaveLength(1);
    expect((await deliveries(inv.id)).sort()).toEqual([
      ['invoice', 'bob2@client.test', 'sent', null],
      ['invoice_copy', ws().ownerEmail, 'failed', expect.stringContaining('552')],
    ]);
  });

  it('is sent when a client message was delivered before another was given up as interrupted (a worker that never reported back)', async () => {
    // Eve's server holds every answer to the end of DATA: each worker hangs there, as one that died would.
    const releases: (() => void)[] = [];
    ctx.smtp.answer = (mail) => (toAddress(mail) === 'eve@client.test' ? new Promise((resolve) => releases.push(() => resolve(refusal(421, 'released')))) : Promise.resolve(null));
    const inv = await emailedInvoice(ws(), [{ name: 'Eve', email: 'eve@client.test' }, { name: 'Bob', email: 'bob3@client.test' }]);
    const passes: Promise<unknown>[] = [];
    try {
      passes.push(deliver());
      await vi.waitFor(() => expect(releases).toHaveLength(1));
      // Eve's message is claimed by the hung pass: another pass delivers Bob's (if the first did not).
      await deliver();
      expect(ctx.smtp.received.map((r) => r.rcptTo[0])).toEqual(['bob3@client.test']);
      expect(invoiceRow(inv.id).status).toBe('sending');
      for (let i = 2; i <= MAX_ATTEMPTS; i++) {
        clock.advance(LEASE_MS + 1);
        passes.push(deliver());
        await vi.waitFor(() => expect(releases).toHaveLength(i));
      }
      clock.advance(LEASE_MS + 1);
      expect(await deliver()).toMatchObject({ sent: 0, retried: 0, cancelled: 0 });
      expect((await deliveries(inv.id)).sort()).toEqual([
        ['invoice', 'bob3@client.test', 'sent', null],
        ['invoice', 'eve@client.test', 'failed', 'delivery interrupted'],
      ]);
      expect(invoiceRow(inv.id)).toMatchObject({ status: 'sent', sentAt: clock().toISOString() });
      expect(sentEvents(inv.id)).toHaveLength(1);
    } finally {
      for (const release of releases) release();
      await Promise.all(passes);
    }
    expect(invoiceRow(inv.id).status).toBe('sent');
  });
});

describe('an invoice whose only client message failed for good', () => {
  async function refusedForGood() {
    ctx.smtp.answer = async (mail) => (toAddress(mail)?.endsWith('@wrong.test') ? refusal(550, '5.1.1 no such user') : null);
    const inv = await emailedInvoice(ws(), [{ name: 'Ann', email: `ann${++seq}@wrong.test` }]);
    expect(await deliver()).toMatchObject({ retried: 1 });
    // While it is still retried, marking it sent waits for the mail.
    expect(await errorCode(ws().caller.invoices.markSent({ email: ws().ownerEmail, invoice_id: inv.id }))).toBe('invoice_not_draft');
    await drain();
    expect(invoiceRow(inv.id)).toMatchObject({ status: 'sending', sentAt: null });
    expect(await deliveries(inv.id)).toEqual([['invoice', inv.recipients[0]!.email, 'failed', expect.stringContaining('550')]]);
    return inv;
  }

  it('stays sending (the client never got it) and is sent once a resend to another address is delivered', async () => {
    const inv = await refusedForGood();
    // Deleting the refused recipient changes nothing by itself.
    await ws().caller.recipients.delete({ client_id: inv.clientId, recipient_id: inv.recipients[0]!.id });
    await drain();
    expect(invoiceRow(inv.id).status).toBe('sending');
    const bob = makeRecipient(ws().handle.db, inv.clientId, { name: 'Bob', email: `bob${++seq}@client.test` });
    await ws().caller.invoices.resend({ email: ws().ownerEmail, invoice_id: inv.id, invoice_details: { recipient_ids: [bob.id] } });
    expect(await deliver()).toMatchObject({ sent: 1 });
    expect(invoiceRow(inv.id)).toMatchObject({ status: 'sent', sentAt: clock().toISOString() });
    expect(sentEvents(inv.id)).toHaveLength(1);
  });

  it('can be marked sent (the agency delivered it another way), once; a later resend changes nothing', async () => {
    const inv = await refusedForGood();
    const { invoice } = await ws().caller.invoices.markSent({ email: ws().ownerEmail, invoice_id: inv.id });
    expect(invoice).toMatchObject({ status: 'sent', sent_at: clock().toISOString() });
    expect(await errorCode(ws().caller.invoices.markSent({ email: ws().ownerEmail, invoice_id: inv.id }))).toBe('invoice_not_draft');
    const bob = makeRecipient(ws().handle.db, inv.clientId, { name: 'Bob', email: `bob${++seq}@client.test` });
    await ws().caller.invoices.resend({ email: ws().ownerEmail, invoice_id: inv.id, invoice_details: { recipient_ids: [bob.id] } });
    clock.advance(60_000);
    expect(await deliver()).toMatchObject({ sent: 1 });
    expect(invoiceRow(inv.id)).toMatchObject({ status: 'sent', sentAt: invoice.sent_at });
    expect(sentEvents(inv.id)).toHaveLength(1);
    // It takes payments like any sent invoice.
    expect((await ws().caller.invoices.markPaid({ email: ws().ownerEmail, invoice_id: inv.id })).invoice.status).toBe('paid');
  });

  it('with the other recipient deleted before delivery stays sending, not a draft: one address was refused', async () => {
    ctx.smtp.answer = async (mail) => (toAddress(mail)?.endsWith('@wrong.test') ? refusal(550, '5.1.1 no such user') : null);
    const inv = await emailedInvoice(ws(), [{ name: 'Ann', email: `ann${++seq}@wrong.test` }, { name: 'Cy', email: `cy${++seq}@client.test` }]);
    await ws().caller.recipients.delete({ client_id: inv.clientId, recipient_id: inv.recipients[1]!.id });
    await drain();
    expect(invoiceRow(inv.id).status).toBe('sending');
    expect((await ws().caller.invoices.markSent({ email: ws().ownerEmail, invoice_id: inv.id })).invoice.status).toBe('sent');
  });
});
