import { and, eq } from 'drizzle-orm';
import Stripe from 'stripe';
import { beforeAll, describe, expect, it } from 'vitest';
import { events, payments, processorEvents } from '../src/db/schema/index.ts';
import { CARD_SECRET_KEY, CARD_WEBHOOK_SECRET, sentCardInvoice, useCardEnv } from './helpers/card.ts';
import { testClock, type TestEnv, type TestWorkspace } from './helpers/env.ts';
import { makeClient, makeRecipient } from './helpers/factories.ts';
import { send } from './helpers/http.ts';
import { outboxJob } from '../src/jobs/outbox.ts';
import { runJobOnce } from '../src/jobs/runner.ts';

/**
 * A card payment refunded with the processor (Stripe's `charge.refunded`, signed like every
 * webhook): recorded as money given back, so the invoice's amount paid and status follow.
 */

const SECRET_KEY = CARD_SECRET_KEY;
const WEBHOOK_SECRET = CARD_WEBHOOK_SECRET;

const clock = testClock('2026-11-18T10:00:00.000Z');
const stripe = new Stripe(SECRET_KEY);
const card = useCardEnv(clock);
let env: TestEnv;
let ws: TestWorkspace;
beforeAll(() => ({ env, ws } = card));

let seq = 0;
/** A sent invoice of `amount` (service line), due on `due`, with its public token. */
const sentInvoice = (opts: { amount?: number; currency?: string; due?: string } = {}) =>
  sentCardInvoice(ws, { issueDate: '2026-11-01', due: '2026-12-01', ...opts, number: `REF-${++seq}` });

const signed = (event: object) => {
  const payload = JSON.stringify(event);
  return { payload, signature: stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }) };
};

/** A signed `checkout.session.completed` of a paid session (payment intent `pi_<session>`). */
const completed = (o: { eventId: string; sessionId: string; invoiceId: string; amount: number; currency?: string }) =>
  signed({
    id: o.eventId,
    object: 'event',
    type: 'checkout.session.completed',
    data: {
      object: {
        id: o.sessionId,
        object: 'checkout.session',
        amount_total: o.amount,
        currency: o.currency ?? 'eur',
        payment_status: 'paid',
        payment_intent: `pi_${o.sessionId}`,
        client_reference_id: o.invoiceId,
        metadata: { invoice_id: o.invoiceId },
      },
    },
  });

/** A signed `charge.refunded`, as Stripe posts it: the charge, with the total refunded so far. */
const refunded = (o: { eventId: string; intent: string; amount: number; refunded: number; currency?: string; metadata?: Record<string, string> }) =>
  signed({
    id: o.eventId,
    object: 'event',
    type: 'charge.refunded',
    data: {
      object: {
        id: `ch_${o.intent}`,
        object: 'charge',
        amount: o.amount,
        amount_captured: o.amount,
        amount_refunded: o.refunded,
        refunded: o.refunded >= o.amount,
        currency: o.currency ?? 'eur',
        payment_intent: o.intent,
        status: 'succeeded',
        metadata: o.metadata ?? {},
      },
    },
  });

const deliver = (d: { payload: string; signature: string }) =>
  send(env.url, 'POST', '/webhooks/stripe', { host: ws.host, body: d.payload, headers: { 'content-type': 'application/json', 'stripe-signature': d.signature } });

const invoiceOf = async (id: string) => (await ws.caller.invoices.get({ invoice_id: id })).invoice;
const paymentsOf = (invoiceId: string) => ws.handle.db.select().from(payments).where(eq(payments.invoiceId, invoiceId)).all();
const eventsOf = (type: string, invoiceId: string) =>
  ws.handle.db
    .select()
    .from(events)
    .where(eq(events.type, type))
    .all()
    .map((e) => JSON.parse(e.data) as { payment: { id: string; amount: number }; refund: { amount: number; reference: string; source: string }; invoice: { id: string; status: string; amount_paid: number } })
    .filter((d) => d.invoice.id === invoiceId);

/** A sent invoice paid in full by card through a signed checkout event. */
async function paidByCard(name: string, amount = 250) {
  const inv = await sentInvoice({ amount });
  const res = await deliver(completed({ eventId: `evt_pay_${name}`, sessionId: `cs_${name}`, invoiceId: inv.id, amount: amount * 100 }));
  expect(res.body).toMatchObject({ outcome: 'recorded' });
  expect((await invoiceOf(inv.id)).status).toBe('paid');
  return inv;
}

describe('charge.refunded', () => {
  it('a full refund reopens the invoice: amount paid 0, status sent, the refund listed as money given back', async () => {
    const inv = await paidByCard('full');
    const d = refunded({ eventId: 'evt_refund_full', intent: 'pi_cs_full', amount: 25000, refunded: 25000 });
    const res = await deliver(d);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ received: true, outcome: 'recorded' });

    const invoice = await invoiceOf(inv.id);
    expect(invoice).toMatchObject({ status: 'sent', amount_paid: 0, balance_due: 250, paid_at: null, overdue: false });

    const original = paymentsOf(inv.id).find((p) => p.amountMinor > 0)!;
    const listed = await ws.caller.invoices.payments({ invoice_id: inv.id });
    expect(listed.items).toHaveLength(2);
    expect(listed.items[1]).toMatchObject({ amount: -250, currency: 'EUR', paid_on: '2026-11-18', method: 'card', reference: 'Refund of pi_cs_full', source: 'card_processor', provider_payment_id: 'evt_refund_full', refund_of: listed.items[0]!.id });
    expect(listed.items[0]!.refund_of).toBeNull();
    expect(paymentsOf(inv.id).find((p) => p.amountMinor < 0)).toMatchObject({ amountMinor: -25000, refundOf: original.id });
    expect(listed.unapplied_card_payments).toEqual([]);

    // One event, the refund with the payment it gives money back from and the invoice as it is now.
    const told = eventsOf('payment.refunded', inv.id);
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ payment: { id: original.id, amount: 250 }, refund: { amount: -250, reference: 'Refund of pi_cs_full', source: 'card_processor' }, invoice: { status: 'sent', amount_paid: 0 } });

    // The same notice again changes nothing.
    expect((await deliver(d)).body).toMatchObject({ outcome: 'duplicate' });
    expect(paymentsOf(inv.id)).toHaveLength(2);
    expect(eventsOf('payment.refunded', inv.id)).toHaveLength(1);

    // The refund is the processor's: it is not deleted here, and neither is the payment.
    for (const p of paymentsOf(inv.id)) {
      await expect(ws.caller.invoices.deletePayment({ email: ws.ownerEmail, payment_id: p.id })).rejects.toMatchObject({ cause: { code: 'payment_from_processor' } });
    }
    // The invoice owes its total again: it can be paid again, or voided with a credit note.
    const again = await ws.caller.invoices.recordPayment({ email: ws.ownerEmail, invoice_id: inv.id, amount: 250, method: 'bank_transfer' });
    expect(again.invoice).toMatchObject({ status: 'paid', amount_paid: 250, balance_due: 0 });
  });

  it('a partial refund moves paid → partially_paid; the rest refunded later → sent; Stripe’s running total is never counted twice', async () => {
    const inv = await paidByCard('part');
    const first = await deliver(refunded({ eventId: 'evt_refund_part_1', intent: 'pi_cs_part', amount: 25000, refunded: 10000 }));
    expect(first.body).toMatchObject({ outcome: 'recorded' });
    expect(await invoiceOf(inv.id)).toMatchObject({ status: 'partially_paid', amount_paid: 150, balance_due: 100, paid_at: null });

    // Another notice of the same running total (another event id) records nothing more.
    const same = await deliver(refunded({ eventId: 'evt_refund_part_1b', intent: 'pi_cs_part', amount: 25000, refunded: 10000 }));
    expect(same.body).toMatchObject({ outcome: 'ignored' });
    expect(await invoiceOf(inv.id)).toMatchObject({ amount_paid: 150 });

    // The second refund: amount_refunded is the charge's total refunded, 250.00; 150.00 more is given back.
    const second = await deliver(refunded({ eventId: 'evt_refund_part_2', intent: 'pi_cs_part', amount: 25000, refunded: 25000 }));
    expect(second.body).toMatchObject({ outcome: 'recorded' });
    expect(await invoiceOf(inv.id)).toMatchObject({ status: 'sent', amount_paid: 0, balance_due: 250 });
    expect(paymentsOf(inv.id).map((p) => p.amountMinor)).toEqual([25000, -10000, -15000]);
    expect(eventsOf('payment.refunded', inv.id).map((e) => [e.refund.amount, e.invoice.status])).toEqual([
      [-100, 'partially_paid'],
      [-150, 'sent'],
    ]);
    // Money is exact everywhere the paid amount is summed: the invoice list, the paid-per-month report.
    const list = await ws.caller.invoices.list({ client_id: inv.clientId });
    expect(list.items.find((i) => i.id === inv.id)).toMatchObject({ amount_paid: 0, balance_due: 250 });
    const report = await ws.caller.reports.paidPerMonth({ client_ids: [inv.clientId] });
    // One payment received, and two refunds taken off it (not payments themselves).
    expect(report.totals).toMatchObject([{ currency: 'EUR', payments: 1, amount: 0 }]);
    // Refunded in full, the invoice can be cancelled like any unpaid one: voided, with a credit note.
    const voided = await ws.caller.invoices.void({ email: ws.ownerEmail, invoice_id: inv.id });
    expect(voided.invoice.status).toBe('void');
    expect(voided.credit_note).toMatchObject({ total: -250 });
  });

  it('an invoice past its due date is overdue again once refunded', async () => {
    const inv = await sentInvoice({ amount: 80, due: '2026-11-10' });
    expect((await deliver(completed({ eventId: 'evt_pay_late', sessionId: 'cs_late', invoiceId: inv.id, amount: 8000 }))).body).toMatchObject({ outcome: 'recorded' });
    expect(await invoiceOf(inv.id)).toMatchObject({ status: 'paid', overdue: false });
    expect((await deliver(refunded({ eventId: 'evt_refund_late', intent: 'pi_cs_late', amount: 8000, refunded: 3000 }))).body).toMatchObject({ outcome: 'recorded' });
    expect(await invoiceOf(inv.id)).toMatchObject({ status: 'partially_paid', amount_paid: 50, balance_due: 30, overdue: true });
  });

  it('a refund of a payment not recorded here is kept as unapplied with its reason, on the invoice when the charge names it', async () => {
    const inv = await sentInvoice({ amount: 40 });
    const res = await deliver(refunded({ eventId: 'evt_refund_unknown', intent: 'pi_unknown', amount: 4000, refunded: 4000, metadata: { invoice_id: inv.id } }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ outcome: 'unapplied', reason: 'refund of €40.00 for pi_unknown, which is not a card payment recorded here' });
    expect(paymentsOf(inv.id)).toHaveLength(0);
    const listed = await ws.caller.invoices.payments({ invoice_id: inv.id });
    expect(listed.unapplied_card_payments).toMatchObject([{ event_id: 'evt_refund_unknown', provider_payment_id: 'pi_unknown', amount_minor: -4000, currency: 'EUR' }]);
    expect((await invoiceOf(inv.id)).status).toBe('sent');

    // Without an invoice to name, it is still kept (for a person), attached to none.
    const lost = await deliver(refunded({ eventId: 'evt_refund_lost', intent: 'pi_lost', amount: 900, refunded: 900 }));
    expect(lost.body).toMatchObject({ outcome: 'unapplied' });
    expect(ws.handle.db.select().from(processorEvents).where(eq(processorEvents.id, 'evt_refund_lost')).get()).toMatchObject({ invoiceId: null, outcome: 'unapplied', type: 'charge.refunded' });
  });

  it('refunds the processor reports before their payment are recorded once the payment is: the largest running total, once', async () => {
    const inv = await sentInvoice({ amount: 250 });
    // Stripe does not promise order: two partial refunds (running totals 100.00, then 250.00) arrive first.
    for (const [eventId, total] of [['evt_early_1', 10000], ['evt_early_2', 25000]] as const) {
      const early = await deliver(refunded({ eventId, intent: 'pi_cs_early', amount: 25000, refunded: total, metadata: { invoice_id: inv.id } }));
      expect(early.body).toMatchObject({ outcome: 'unapplied' });
    }
    expect((await ws.caller.invoices.payments({ invoice_id: inv.id })).unapplied_card_payments).toHaveLength(2);

    const paid = await deliver(completed({ eventId: 'evt_pay_early', sessionId: 'cs_early', invoiceId: inv.id, amount: 25000 }));
    expect(paid.body).toMatchObject({ outcome: 'recorded' });
    // The payment, and all that was refunded of it: the invoice is back to sent, nothing left unapplied.
    expect(paymentsOf(inv.id).map((p) => [p.amountMinor, p.providerPaymentId])).toEqual([
      [25000, 'cs_early'],
      [-25000, 'evt_early_2'],
    ]);
    expect(await invoiceOf(inv.id)).toMatchObject({ status: 'sent', amount_paid: 0, balance_due: 250 });
    expect((await ws.caller.invoices.payments({ invoice_id: inv.id })).unapplied_card_payments).toEqual([]);
    const kept = (id: string) => ws.handle.db.select().from(processorEvents).where(eq(processorEvents.id, id)).get();
    expect(kept('evt_early_2')).toMatchObject({ outcome: 'recorded', amountMinor: -25000 });
    expect(kept('evt_early_1')).toMatchObject({ outcome: 'ignored', reason: 'counted in the refunded total of evt_early_2' });
    expect(eventsOf('payment.refunded', inv.id).map((e) => [e.refund.amount, e.invoice.status])).toEqual([[-250, 'sent']]);

    // A later notice of the same total records nothing more.
    const again = await deliver(refunded({ eventId: 'evt_early_3', intent: 'pi_cs_early', amount: 25000, refunded: 25000 }));
    expect(again.body).toMatchObject({ outcome: 'ignored' });
    expect(paymentsOf(inv.id)).toHaveLength(2);
  });

  it('an invoice paid by card while its e-mail was out, the e-mail then cancelled, is sent once refunded, never a draft holding money', async () => {
    const client = makeClient(ws.handle.db, { currency: 'EUR' });
    const ann = makeRecipient(ws.handle.db, client.id);
    const created = await ws.api.post(`/api/external/v2/clients/${client.id}/invoices`, {
      email: ws.ownerEmail,
      number: 'REF-MAILED',
      total: 100,
      invoice_services: [{ notes: 'Design sprint', unit_amount: 100 }],
      send_email: true,
      invoice_details: { recipient_ids: [ann.id] },
    });
    expect(created.body.invoice.status).toBe('sending');
    const id = created.body.invoice.id as string;
    expect((await deliver(completed({ eventId: 'evt_pay_mailed', sessionId: 'cs_mailed', invoiceId: id, amount: 10000 }))).body).toMatchObject({ outcome: 'recorded' });
    // The only recipient is deleted before the mail goes out: the worker cancels it; the invoice stays paid.
    await ws.caller.recipients.delete({ client_id: client.id, recipient_id: ann.id });
    await runJobOnce(outboxJob, env.services);
    expect(await invoiceOf(id)).toMatchObject({ status: 'paid' });

    expect((await deliver(refunded({ eventId: 'evt_refund_mailed', intent: 'pi_cs_mailed', amount: 10000, refunded: 10000 }))).body).toMatchObject({ outcome: 'recorded' });
    // Before, a draft again, with the payment and its refund on it: deleting it failed on their foreign key (500).
    expect(await invoiceOf(id)).toMatchObject({ status: 'sent', amount_paid: 0, balance_due: 100 });
    const refused = await ws.caller.invoices.delete({ email: ws.ownerEmail, invoice_id: id }).catch((e: { cause: { code: string } }) => e.cause.code);
    expect(refused).toBe('invoice_not_draft');
    expect(paymentsOf(id).map((p) => p.amountMinor)).toEqual([10000, -10000]);
    // What one does with such an invoice: void it.
    expect((await ws.caller.invoices.void({ email: ws.ownerEmail, invoice_id: id })).invoice.status).toBe('void');
  });

  it('a refund that does not fit the payment (more than it, another currency) is kept as unapplied, nothing recorded', async () => {
    const inv = await paidByCard('misfit', 100);
    const more = await deliver(refunded({ eventId: 'evt_refund_more', intent: 'pi_cs_misfit', amount: 10000, refunded: 12000 }));
    expect(more.body).toMatchObject({ outcome: 'unapplied', reason: 'refunded €120.00 in all, more than the card payment of €100.00' });
    const usd = await deliver(refunded({ eventId: 'evt_refund_usd', intent: 'pi_cs_misfit', amount: 10000, refunded: 5000, currency: 'usd' }));
    expect(usd.body).toMatchObject({ outcome: 'unapplied', reason: 'refunded in USD, but the payment is in EUR' });
    expect(paymentsOf(inv.id)).toHaveLength(1);
    expect(await invoiceOf(inv.id)).toMatchObject({ status: 'paid', amount_paid: 100 });
    const unapplied = ws.handle.db
      .select()
      .from(processorEvents)
      .where(and(eq(processorEvents.invoiceId, inv.id), eq(processorEvents.outcome, 'unapplied')))
      .all();
    expect(unapplied.map((e) => e.id).sort()).toEqual(['evt_refund_more', 'evt_refund_usd']);
  });

  it('a refund notice with a bad signature is refused (400) and changes nothing', async () => {
    const inv = await paidByCard('forged');
    const d = refunded({ eventId: 'evt_refund_forged', intent: 'pi_cs_forged', amount: 25000, refunded: 25000 });
    for (const signature of ['t=1,v1=deadbeef', '', stripe.webhooks.generateTestHeaderString({ payload: d.payload, secret: 'whsec_someoneElse123' })]) {
      const res = await deliver({ payload: d.payload, signature });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_signature');
    }
    expect(paymentsOf(inv.id)).toHaveLength(1);
    expect(await invoiceOf(inv.id)).toMatchObject({ status: 'paid', amount_paid: 250 });
    expect(ws.handle.db.select().from(processorEvents).where(eq(processorEvents.id, 'evt_refund_forged')).get()).toBeUndefined();
  });

  it('a refund of a payment on a void invoice is recorded; the invoice stays void', async () => {
    const inv = await sentInvoice({ amount: 100 });
    await ws.caller.invoices.recordPayment({ email: ws.ownerEmail, invoice_id: inv.id, amount: 40, method: 'cash' });
    expect((await deliver(completed({ eventId: 'evt_pay_void', sessionId: 'cs_void', invoiceId: inv.id, amount: 6000 }))).body).toMatchObject({ outcome: 'recorded' });
    // The cash payment was a mistake: deleting it leaves the card payment on a partly paid invoice, which is voided.
    const cash = paymentsOf(inv.id).find((p) => p.method === 'cash')!;
    await ws.caller.invoices.deletePayment({ email: ws.ownerEmail, payment_id: cash.id });
    await ws.caller.invoices.void({ email: ws.ownerEmail, invoice_id: inv.id });
    // Voiding said the card payment is money to give back; the processor's refund gives it back.
    expect((await deliver(refunded({ eventId: 'evt_refund_void', intent: 'pi_cs_void', amount: 6000, refunded: 6000 }))).body).toMatchObject({ outcome: 'recorded' });
    expect(await invoiceOf(inv.id)).toMatchObject({ status: 'void', amount_paid: 0 });
  });
});
