import { afterAll, beforeAll, expect } from 'vitest';
import { startTestEnv, type TestEnv, type TestWorkspace } from './env.ts';
import { makeClient } from './factories.ts';
import { startFakeStripe } from './stripe-api.ts';
import type { Clock } from '../../src/clock.ts';

/** The processor's keys the card tests set up and sign webhooks with. */
export const CARD_SECRET_KEY = 'sk_test_51HourbookTestKeyAbcdefgh';
export const CARD_WEBHOOK_SECRET = 'whsec_hourbookTestSigningSecret123';

export interface CardEnv {
  env: TestEnv;
  /** Workspace alpha, its card processor set up. */
  ws: TestWorkspace;
  /** The local stand-in for Stripe's API the `stripe` package is pointed at. */
  api: Awaited<ReturnType<typeof startFakeStripe>>;
}

/**
 * Registers the hooks of a test environment whose workspace takes card payments through a local
 * stand-in for Stripe; the fields are set once `beforeAll` has run.
 */
export function useCardEnv(clock: Clock): CardEnv {
  const card = {} as CardEnv;
  beforeAll(async () => {
    card.api = await startFakeStripe();
    card.env = await startTestEnv({ clock, env: { STRIPE_API_BASE: card.api.base } });
    card.ws = card.env.alpha;
    await card.ws.caller.workspace.updatePaymentProcessor({ email: card.ws.ownerEmail, secret_key: CARD_SECRET_KEY, webhook_secret: CARD_WEBHOOK_SECRET });
  });
  afterAll(async () => {
    await card.env?.close();
    await card.api?.close();
  });
  return card;
}

/**
 * A sent invoice of `amount` in `currency` (one service line) of a new client, through endpoint 1,
 * with its public token; `send: false` leaves it a draft.
 */
export async function sentCardInvoice(
  ws: TestWorkspace,
  opts: { number: string; amount?: number; currency?: string; provider?: string; send?: boolean; issueDate?: string; due?: string },
) {
  const client = makeClient(ws.handle.db, { currency: opts.currency ?? 'EUR' });
  const amount = opts.amount ?? 250;
  const res = await ws.api.post(`/api/external/v2/clients/${client.id}/invoices`, {
    email: ws.ownerEmail,
    number: opts.number,
    total: amount,
    ...(opts.issueDate && { issue_date: opts.issueDate }),
    ...(opts.due && { due_date: opts.due }),
    invoice_services: [{ notes: 'Design sprint', unit_amount: amount }],
    ...(opts.provider && { payment_provider: opts.provider }),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const id = res.body.invoice.id as string;
  if (opts.send !== false) await ws.caller.invoices.markSent({ email: ws.ownerEmail, invoice_id: id });
  const { invoice } = await ws.caller.invoices.get({ invoice_id: id });
  return { id, clientId: client.id, number: invoice.number, token: invoice.public_url.split('/invoices/')[1]!, invoice };
}
