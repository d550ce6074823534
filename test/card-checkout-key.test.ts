import Stripe from 'stripe';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkoutIdempotencyKey } from '../src/domain/invoices/card-payment.ts';
import { CARD_SECRET_KEY, sentCardInvoice, useCardEnv, type CardEnv } from './helpers/card.ts';
import { testClock, type TestEnv, type TestWorkspace } from './helpers/env.ts';
import { send } from './helpers/http.ts';

/**
 * The checkout's idempotency key stands for the whole request: Stripe refuses a key used again
 * with other parameters (400 `idempotency_error`, for 24 hours), and so does the stand-in.
 */

const clock = testClock('2026-11-18T10:00:00.000Z');
const card = useCardEnv(clock);
let env: TestEnv;
let ws: TestWorkspace;
let api: CardEnv['api'];
beforeAll(() => ({ env, ws, api } = card));

const sentInvoice = (amount = 250) => sentCardInvoice(ws, { amount, number: `KEY-${crypto.randomUUID().slice(0, 6)}` });

const pay = (token: string) => send(env.url, 'POST', `/invoices/${token}/pay`, { host: ws.host });
const NAME = 'line_items[0][price_data][product_data][name]';

describe('the stand-in for Stripe', () => {
  it('refuses a key used again with other parameters (400 idempotency_error), like Stripe', async () => {
    const stripe = new Stripe(CARD_SECRET_KEY, { host: '127.0.0.1', port: Number(new URL(api.base).port), protocol: 'http', maxNetworkRetries: 0 });
    const params = (name: string): Stripe.Checkout.SessionCreateParams => ({
      mode: 'payment',
      line_items: [{ quantity: 1, price_data: { currency: 'eur', unit_amount: 1000, product_data: { name } } }],
      success_url: 'https://example.test/ok',
    });
    const first = await stripe.checkout.sessions.create(params('Invoice A'), { idempotencyKey: 'key-stand-in' });
    const same = await stripe.checkout.sessions.create(params('Invoice A'), { idempotencyKey: 'key-stand-in' });
    expect(same.id).toBe(first.id);
    await expect(stripe.checkout.sessions.create(params('Invoice B'), { idempotencyKey: 'key-stand-in' })).rejects.toMatchObject({
      type: 'StripeIdempotencyError',
      statusCode: 400,
    });
  });
});

describe('Pay now: the idempotency key', () => {
  it('a changed legal name sends a new key (a new session), not the old key with other parameters', async () => {
    const inv = await sentInvoice();
    const first = await pay(inv.token);
    expect(first.status).toBe(303);
    await ws.caller.workspace.updateIdentity({ email: ws.ownerEmail, legal_name: 'Alpha Studio GmbH' });
    const second = await pay(inv.token);
    // Stripe (and its stand-in) would refuse the old key with the new name: the payer would get the 502 page.
    expect(second.status).toBe(303);
    expect(second.headers.location).not.toBe(first.headers.location);
    const mine = api.requests.filter((r) => r.form['metadata[invoice_id]'] === inv.id);
    expect(mine.map((r) => r.form[NAME])).toEqual([`Invoice ${inv.number} from alpha`, `Invoice ${inv.number} from Alpha Studio GmbH`]);
    expect(new Set(mine.map((r) => r.idempotencyKey)).size).toBe(2);
    // Nothing changed since: pressing again opens the same session.
    const third = await pay(inv.token);
    expect(third.headers.location).toBe(second.headers.location);
    expect(api.requests.filter((r) => r.form['metadata[invoice_id]'] === inv.id).at(-1)!.idempotencyKey).toBe(mine[1]!.idempotencyKey);
  });

  it('is a digest of every field sent: the same request, the same key; any field changed, another', () => {
    const request = {
      invoiceId: 'inv-1',
      currency: 'eur',
      amount: 25000,
      balanceMinor: 25000,
      description: 'Invoice INV-1 from alpha',
      successUrl: 'https://alpha.example/invoices/t?payment=success',
      cancelUrl: 'https://alpha.example/invoices/t?payment=cancelled',
    };
    const key = checkoutIdempotencyKey(request, '2026-11-18T10:00:00.000Z');
    expect(key).toMatch(/^hourbook-checkout-[0-9a-f]{64}$/);
    expect(checkoutIdempotencyKey({ ...request }, '2026-11-18T10:00:00.000Z')).toBe(key);
    const changed = [
      { ...request, description: 'Invoice INV-1 from Alpha Studio GmbH' },
      { ...request, successUrl: 'https://billing.alpha.example/invoices/t?payment=success' },
      { ...request, cancelUrl: 'https://billing.alpha.example/invoices/t?payment=cancelled' },
      { ...request, amount: 24000, balanceMinor: 24000 },
      { ...request, currency: 'usd' },
      { ...request, invoiceId: 'inv-2' },
    ];
    for (const other of changed) expect(checkoutIdempotencyKey(other, '2026-11-18T10:00:00.000Z')).not.toBe(key);
    expect(checkoutIdempotencyKey(request, '2026-11-19T10:00:00.000Z')).not.toBe(key);
  });
});
