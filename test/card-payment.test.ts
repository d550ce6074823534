import { eq } from 'drizzle-orm';
import Stripe from 'stripe';
import { beforeAll, describe, expect, it } from 'vitest';
import { events, invoices, payments, processorEvents } from '../src/db/schema/index.ts';
import { fromProcessorAmount, toProcessorAmount } from '../src/domain/invoices/card-payment.ts';
import { CARD_SECRET_KEY, CARD_WEBHOOK_SECRET, sentCardInvoice, useCardEnv, type CardEnv } from './helpers/card.ts';
import { testClock, type TestEnv, type TestWorkspace } from './helpers/env.ts';
import { send } from './helpers/http.ts';
import { makeMember } from './helpers/factories.ts';

const SECRET_KEY = CARD_SECRET_KEY;
const WEBHOOK_SECRET = CARD_WEBHOOK_SECRET;

const clock = testClock('2026-11-18T10:00:00.000Z');
const stripe = new Stripe(SECRET_KEY);
const card = useCardEnv(clock);
let env: TestEnv;
let ws: TestWorkspace;
let api: CardEnv['api'];
beforeAll(() => ({ env, ws, api } = card));

let seq = 0;
/** A sent invoice of `amount` in `currency` (service line), with its public token. */
const sentInvoice = (opts: { amount?: number; currency?: string; provider?: string; send?: boolean } = {}) => sentCardInvoice(ws, { ...opts, number: `CARD-${++seq}` });

const page = (token: string) => send(env.url, 'GET', `/invoices/${token}`, { host: ws.host });
const pay = (token: string) => send(env.url, 'POST', `/invoices/${token}/pay`, { host: ws.host });

/** A signed `checkout.session.completed` delivery, as the processor would post it. */
function completed(opts: { eventId: string; sessionId: string; invoiceId: string; amount: number; currency: string; type?: string; created?: string }) {
  const payload = JSON.stringify({
    id: opts.eventId,
    object: 'event',
    type: opts.type ?? 'checkout.session.completed',
    ...(opts.created && { created: Date.parse(opts.created) / 1000 }),
    data: {
      object: {
        id: opts.sessionId,
        object: 'checkout.session',
        amount_total: opts.amount,
        currency: opts.currency,
        payment_status: 'paid',
        payment_intent: `pi_${opts.sessionId}`,
        client_reference_id: opts.invoiceId,
        metadata: { invoice_id: opts.invoiceId },
      },
    },
  });
  return { payload, signature: stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }) };
}

const deliver = (d: { payload: string; signature: string }, host = ws.host) =>
  send(env.url, 'POST', '/webhooks/stripe', { host, body: d.payload, headers: { 'content-type': 'application/json', 'stripe-signature': d.signature } });

const paymentsOf = (invoiceId: string) => ws.handle.db.select().from(payments).where(eq(payments.invoiceId, invoiceId)).all();

describe('card processor settings', () => {
  it('only Owner/Admin set them; reads show the last 4 characters, never the secrets', async () => {
    const read = await ws.caller.workspace.paymentProcessor();
    expect(read.payment_processor).toMatchObject({ configured: true, mode: 'test', secret_key_last4: 'efgh', webhook_secret_last4: 't123', webhook_url: 'http://alpha.localhost:3000/webhooks/stripe' });
    expect(JSON.stringify(read)).not.toContain(SECRET_KEY);
    expect(JSON.stringify(read)).not.toContain(WEBHOOK_SECRET);
    const member = makeMember(ws.handle.db);
    await expect(ws.caller.workspace.updatePaymentProcessor({ email: member.email, secret_key: SECRET_KEY, webhook_secret: WEBHOOK_SECRET })).rejects.toMatchObject({ cause: { code: 'forbidden' } });
    await expect(ws.caller.workspace.updatePaymentProcessor({ email: ws.ownerEmail, secret_key: 'pk_test_abc', webhook_secret: WEBHOOK_SECRET })).rejects.toMatchObject({
      cause: { code: 'validation_failed', details: [{ path: 'secret_key' }] },
    });
    expect((await env.beta.caller.workspace.paymentProcessor()).payment_processor.configured).toBe(false);
  });

  it('accepts payment_provider "stripe" as the same value as "card_processor"', async () => {
    const { invoice } = await sentInvoice({ provider: 'stripe' });
    expect(invoice.payment_provider).toBe('card_processor');
  });

  it('converts amounts to the processor’s units exactly, or refuses', () => {
    expect(toProcessorAmount(12345, 'EUR')).toBe(12345);
    expect(toProcessorAmount(1500, 'JPY')).toBe(1500);
    expect(toProcessorAmount(1500, 'ISK')).toBe(150000);
    expect(toProcessorAmount(12345, 'BHD')).toBe(12345);
    expect(fromProcessorAmount(150000, 'ISK')).toBe(1500);
    expect(fromProcessorAmount(150050, 'ISK')).toBeNull();
  });
});

describe('Pay now', () => {
  it('shows on an unpaid invoice and starts a checkout for the balance in the invoice currency', async () => {
    const inv = await sentInvoice({ amount: 250 });
    await ws.caller.invoices.recordPayment({ email: ws.ownerEmail, invoice_id: inv.id, amount: 100.5, method: 'bank_transfer' });
    expect((await page(inv.token)).text).toContain('>Pay now</button>');
    const res = await pay(inv.token);
    expect(res.status).toBe(303);
    const session = api.sessions[api.sessions.length - 1]!;
    expect(res.headers.location).toBe(session.url);
    const request = api.requests[api.requests.length - 1]!;
    expect(request.authorization).toBe(`Bearer ${SECRET_KEY}`);
    expect(request.form).toMatchObject({
      mode: 'payment',
      'line_items[0][price_data][currency]': 'eur',
      'line_items[0][price_data][unit_amount]': '14950',
      'line_items[0][quantity]': '1',
      'line_items[0][price_data][product_data][name]': `Invoice ${inv.invoice.number} from alpha`,
      client_reference_id: inv.id,
      'metadata[invoice_id]': inv.id,
      success_url: `http://alpha.localhost:3000/invoices/${inv.token}?payment=success`,
      cancel_url: `http://alpha.localhost:3000/invoices/${inv.token}?payment=cancelled`,
    });
    // Pressing twice opens the same session: there is never a second one to pay.
    const again = await pay(inv.token);
    expect(again.headers.location).toBe(session.url);
    expect(api.sessions.filter((s) => s.metadata.invoice_id === inv.id)).toHaveLength(1);
    expect((await send(env.url, 'GET', `/invoices/${inv.token}?payment=success`, { host: ws.host })).text).toContain('Thank you! Your card payment was received');
  });

  it('is not offered for a draft, a paid or void invoice, an opted-out one, or without settings', async () => {
    const draft = await sentInvoice({ send: false });
    const optedOut = await sentInvoice({ provider: 'undefined' });
    const paid = await sentInvoice();
    await ws.caller.invoices.markPaid({ email: ws.ownerEmail, invoice_id: paid.id });
    for (const inv of [draft, optedOut, paid]) {
      expect((await page(inv.token)).text).not.toContain('Pay now');
      const res = await pay(inv.token);
      expect(res.status).toBe(303);
      expect(res.headers.location).toBe(`/invoices/${inv.token}?payment=unavailable`);
    }
  });

  it('answers 502 with a page when the processor is down; nothing is recorded', async () => {
    const inv = await sentInvoice();
    api.failNext(500, 5);
    const before = api.sessions.length;
    const res = await pay(inv.token);
    expect(res.status).toBe(502);
    expect(res.text).toContain('The card payment could not be started');
    expect(api.sessions.length).toBe(before);
    expect(paymentsOf(inv.id)).toHaveLength(0);
  });
});

describe('POST /webhooks/stripe', () => {
  it('dates the payment the day the processor says it was paid, not the day its notice came', async () => {
    // Paid at 23:30 on November 17 (the workspace is in UTC), the notice handled on the 18th (a retry, say).
    const late = await sentInvoice({ amount: 100 });
    expect((await deliver(completed({ eventId: 'evt_late', sessionId: 'cs_late', invoiceId: late.id, amount: 10000, currency: 'eur', created: '2026-11-17T23:30:00Z' }))).body).toMatchObject({ outcome: 'recorded' });
    expect(paymentsOf(late.id).map((p) => p.paidOn)).toEqual(['2026-11-17']);
    // A time ahead of ours (another clock) is not taken: today.
    const ahead = await sentInvoice({ amount: 100 });
    await deliver(completed({ eventId: 'evt_ahead', sessionId: 'cs_ahead', invoiceId: ahead.id, amount: 10000, currency: 'eur', created: '2026-11-19T01:00:00Z' }));
    expect(paymentsOf(ahead.id).map((p) => p.paidOn)).toEqual(['2026-11-18']);
  });

  it('records the payment once: a replayed event and a second event for the same session change nothing', async () => {
    const inv = await sentInvoice({ amount: 250 });
    const d = completed({ eventId: 'evt_once', sessionId: 'cs_once', invoiceId: inv.id, amount: 25000, currency: 'eur' });
    const first = await deliver(d);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ received: true, outcome: 'recorded' });
    const replay = await deliver(d);
    expect(replay.body).toMatchObject({ outcome: 'duplicate' });
    const other = await deliver(completed({ eventId: 'evt_once_async', sessionId: 'cs_once', invoiceId: inv.id, amount: 25000, currency: 'eur', type: 'checkout.session.async_payment_succeeded' }));
    expect(other.body).toMatchObject({ outcome: 'ignored' });
    const rows = paymentsOf(inv.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ amountMinor: 25000, method: 'card', providerPaymentId: 'cs_once', reference: 'pi_cs_once', recordedBy: null, paidOn: '2026-11-18' });
    expect(ws.handle.db.select().from(invoices).where(eq(invoices.id, inv.id)).get()!.status).toBe('paid');
    const types = ws.handle.db.select({ type: events.type }).from(events).all().map((e) => e.type);
    expect(types).toContain('payment.recorded');
    expect(types).toContain('invoice.paid');
    // A card payment is the processor's: it is not deleted here.
    await expect(ws.caller.invoices.deletePayment({ email: ws.ownerEmail, payment_id: rows[0]!.id })).rejects.toMatchObject({ cause: { code: 'payment_from_processor' } });
  });

  it('400 for a bad signature or another secret; nothing recorded', async () => {
    const inv = await sentInvoice();
    const d = completed({ eventId: 'evt_bad', sessionId: 'cs_bad', invoiceId: inv.id, amount: 25000, currency: 'eur' });
    for (const signature of ['t=1,v1=deadbeef', '', stripe.webhooks.generateTestHeaderString({ payload: d.payload, secret: 'whsec_someoneElse123' })]) {
      const res = await deliver({ payload: d.payload, signature });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_signature');
    }
    const tampered = await deliver({ payload: d.payload.replace('25000', '1'), signature: d.signature });
    expect(tampered.status).toBe(400);
    expect(paymentsOf(inv.id)).toHaveLength(0);
    expect(ws.handle.db.select().from(processorEvents).where(eq(processorEvents.id, 'evt_bad')).get()).toBeUndefined();
    // Another workspace (no processor set up) refuses the delivery.
    expect((await deliver(d, env.beta.host)).status).toBe(404);
  });

  it('an amount in another currency is not recorded: it is kept as unapplied for a person', async () => {
    const inv = await sentInvoice({ currency: 'EUR' });
    const res = await deliver(completed({ eventId: 'evt_usd', sessionId: 'cs_usd', invoiceId: inv.id, amount: 25000, currency: 'usd' }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ outcome: 'unapplied', reason: 'paid in USD, but the invoice is in EUR' });
    expect(paymentsOf(inv.id)).toHaveLength(0);
    const listed = await ws.caller.invoices.payments({ invoice_id: inv.id });
    expect(listed.items).toEqual([]);
    expect(listed.unapplied_card_payments).toMatchObject([{ event_id: 'evt_usd', provider_payment_id: 'cs_usd', currency: 'USD', reason: 'paid in USD, but the invoice is in EUR' }]);
  });

  it('a checkout of nothing, or less, records no payment: it is kept as unapplied', async () => {
    const inv = await sentInvoice({ currency: 'EUR' });
    for (const [id, amount, shown] of [['zero', 0, '€0.00'], ['minus', -500, '-€5.00']] as const) {
      const res = await deliver(completed({ eventId: `evt_${id}`, sessionId: `cs_${id}`, invoiceId: inv.id, amount, currency: 'eur' }));
      expect(res.body).toMatchObject({ outcome: 'unapplied', reason: `the amount paid is ${shown}, not money received` });
    }
    expect(paymentsOf(inv.id)).toHaveLength(0);
    expect((await ws.caller.invoices.get({ invoice_id: inv.id })).invoice.status).toBe('sent');
  });

  it('paid twice at once (two sessions, concurrent webhooks): one payment, the other kept as unapplied', async () => {
    const inv = await sentInvoice({ amount: 250 });
    const a = completed({ eventId: 'evt_race_a', sessionId: 'cs_race_a', invoiceId: inv.id, amount: 25000, currency: 'eur' });
    const b = completed({ eventId: 'evt_race_b', sessionId: 'cs_race_b', invoiceId: inv.id, amount: 25000, currency: 'eur' });
    const results = await Promise.all([deliver(a), deliver(b), deliver(a), deliver(b)]);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(paymentsOf(inv.id)).toHaveLength(1);
    const outcomes = results.map((r) => r.body.outcome as string).sort();
    expect(outcomes).toEqual(['duplicate', 'duplicate', 'recorded', 'unapplied']);
    const unapplied = ws.handle.db.select().from(processorEvents).where(eq(processorEvents.outcome, 'unapplied')).all().filter((e) => e.invoiceId === inv.id);
    expect(unapplied).toHaveLength(1);
    expect(unapplied[0]!.reason).toMatch(/already paid/);
  });
});
