import express, { type Request, type Response, type Router } from 'express';
import type Stripe from 'stripe';
import type { Config } from '../config.ts';
import { applyProcessorEvent, type CheckoutPlan, type ProcessorEvent } from '../domain/invoices/card-payment.ts';
import { processorSecrets } from '../domain/workspace/payment-processor.ts';
import { runInScope, type AppServices } from '../services.ts';
import { MAX_BODY_BYTES } from '../rest/body.ts';
import type { WorkspaceHandle } from '../workspaces/handle.ts';

/**
 * The card processor (Stripe) through its official package: a hosted checkout for an invoice's
 * balance, and the webhook that reports a completed one. The rules live in
 * src/domain/invoices/card-payment.ts; this door does the network and the signature check.
 */

/**
 * A client of the processor's API with the workspace's key (at `STRIPE_API_BASE` when set, for
 * tests). The package is loaded on first use, not when the server starts.
 */
export async function stripeClient(config: Config, secretKey: string): Promise<Stripe> {
  const { default: StripeClient } = await import('stripe');
  return new StripeClient(secretKey, { maxNetworkRetries: 1, timeout: 20_000, telemetry: false, ...(config.stripeApi ?? {}) });
}

/** Creates the hosted checkout session for a plan; returns the processor's page to send the payer to. */
export async function startCheckout(config: Config, plan: CheckoutPlan): Promise<string> {
  const session = await (await stripeClient(config, plan.secretKey)).checkout.sessions.create(
    {
      mode: 'payment',
      line_items: [{ quantity: 1, price_data: { currency: plan.currency, unit_amount: plan.amount, product_data: { name: plan.description } } }],
      client_reference_id: plan.invoiceId,
      metadata: { invoice_id: plan.invoiceId, balance_minor: String(plan.balanceMinor) },
      payment_intent_data: { description: plan.description, metadata: { invoice_id: plan.invoiceId } },
      success_url: plan.successUrl,
      cancel_url: plan.cancelUrl,
    },
    { idempotencyKey: plan.idempotencyKey },
  );
  if (!session.url) throw new Error('the processor returned a checkout session without a URL');
  return session.url;
}

/** The event's charge (of `charge.refunded`), as the domain reads it; null for any other object. */
function chargeOf(event: Stripe.Event): ProcessorEvent['charge'] {
  const charge = event.data.object as Partial<Stripe.Charge>;
  if (charge.object !== 'charge' || typeof charge.id !== 'string' || typeof charge.amount_refunded !== 'number') return null;
  const intent = charge.payment_intent;
  return {
    id: charge.id,
    amount_refunded: charge.amount_refunded,
    currency: charge.currency ?? null,
    payment_intent: typeof intent === 'string' ? intent : (intent?.id ?? null),
    invoice_id: charge.metadata?.invoice_id ?? null,
  };
}

/** The event's checkout session (or charge), as the domain reads it. */
function processorEventOf(event: Stripe.Event): ProcessorEvent {
  const object = event.data.object as Partial<Stripe.Checkout.Session>;
  const isSession = object.object === 'checkout.session' && typeof object.id === 'string';
  const intent = object.payment_intent;
  return {
    charge: chargeOf(event),
    id: event.id,
    type: event.type,
    created: event.created,
    session: isSession
      ? {
          id: object.id!,
          amount_total: object.amount_total ?? null,
          currency: object.currency ?? null,
          payment_status: object.payment_status ?? 'unpaid',
          payment_intent: typeof intent === 'string' ? intent : (intent?.id ?? null),
          invoice_id: object.metadata?.invoice_id ?? object.client_reference_id ?? null,
        }
      : null,
  };
}

const reply = (res: Response, status: number, body: Record<string, unknown>) => res.status(status).json(body);

async function handleWebhook(services: AppServices, handle: WorkspaceHandle, req: Request, res: Response): Promise<void> {
  const secrets = processorSecrets(handle.db);
  if (!secrets) {
    reply(res, 404, { error: 'Card payment is not set up for this workspace', code: 'payment_processor_not_configured' });
    return;
  }
  let event: Stripe.Event;
  try {
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    event = (await stripeClient(services.config, secrets.secretKey)).webhooks.constructEvent(body, String(req.headers['stripe-signature'] ?? ''), secrets.webhookSecret);
  } catch {
    reply(res, 400, { error: 'The Stripe-Signature header does not match this body and the webhook secret', code: 'invalid_signature' });
    return;
  }
  const result = runInScope(services, handle, (scope) => applyProcessorEvent(scope, processorEventOf(event)));
  if (result.outcome === 'unapplied') services.logger.warn({ workspace: handle.subdomain, event_id: event.id, reason: result.reason }, 'card payment not recorded');
  reply(res, 200, { received: true, ...result });
}

/**
 * `POST /webhooks/stripe` on a workspace's host: the raw body (parsed by nothing before it, so the
 * signature can be checked), verified with the workspace's webhook secret; 400 for a bad signature,
 * 404 for a host without a workspace or without card payment, else 200 with what was done.
 * Mounted at STRIPE_WEBHOOK_PATH.
 */
export function stripeWebhookRouter(services: AppServices, workspaceOf: (req: Request) => WorkspaceHandle | null): Router {
  const router = express.Router();
  router.post('/', express.raw({ type: () => true, limit: MAX_BODY_BYTES }), async (req, res) => {
    const handle = workspaceOf(req);
    if (!handle) {
      reply(res, 404, { error: 'No workspace is served at this host', code: 'workspace_not_found' });
      return;
    }
    await services.registry.using(handle, () => handleWebhook(services, handle, req, res));
  });
  return router;
}
