import { createHash } from 'node:crypto';
import { and, eq, inArray, isNotNull, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { invoices, payments, processorEvents, type processorEventOutcomes } from '../../db/schema/index.ts';
import { currencyDecimals, formatMoney } from '../money.ts';
import type { Scope } from '../scope.ts';
import { localDate } from '../time/calendar.ts';
import { readIdentity } from '../workspace/identity.ts';
import { processorSecrets } from '../workspace/payment-processor.ts';
import { balanceDueMinor, paidByInvoice, todayIn } from './balance.ts';
import { applyPayment, applyRefund, paymentRefusal } from './payments.ts';
import { findInvoice } from './queries.ts';
import { publicInvoiceUrl, type InvoiceRow } from './records.ts';

type PaymentRow = typeof payments.$inferSelect;

/**
 * Card payment through the workspace's processor (Stripe): whether an invoice can be paid by card,
 * what the hosted checkout asks for, and what a completed checkout records. The network calls and
 * the signature check are the door's (src/public/card-payment.ts); the rules are here.
 */

/** Currencies Stripe counts in whole units, and those it counts in thousandths (its docs, "zero-decimal" and "three-decimal"). */
const STRIPE_ZERO_DECIMAL = new Set(['BIF', 'CLP', 'DJF', 'GNF', 'JPY', 'KMF', 'KRW', 'MGA', 'PYG', 'RWF', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF']);
const STRIPE_THREE_DECIMAL = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND']);
const stripeDecimals = (currency: string) => (STRIPE_ZERO_DECIMAL.has(currency) ? 0 : STRIPE_THREE_DECIMAL.has(currency) ? 3 : 2);

/**
 * An amount in our minor units (ISO 4217 decimals) as Stripe's `unit_amount`, or null when Stripe
 * cannot take it exactly (its three-decimal currencies need a last digit of 0; a currency where
 * Stripe counts fewer decimals than ISO would lose money). Never rounded.
 */
export function toProcessorAmount(minor: number, currency: string): number | null {
  const shift = stripeDecimals(currency) - currencyDecimals(currency);
  if (shift >= 0) return minor * 10 ** shift;
  return null;
}

/** Stripe's amount back in our minor units, or null when it is not a whole number of them. */
export function fromProcessorAmount(amount: number, currency: string): number | null {
  const shift = stripeDecimals(currency) - currencyDecimals(currency);
  if (shift < 0) return null;
  const minor = amount / 10 ** shift;
  return Number.isSafeInteger(minor) ? minor : null;
}

export interface CheckoutPlan {
  secretKey: string;
  invoiceId: string;
  /** Lower-case ISO code, as Stripe wants it. */
  currency: string;
  /** In Stripe's units of the currency. */
  amount: number;
  balanceMinor: number;
  description: string;
  successUrl: string;
  cancelUrl: string;
  /**
   * A digest of everything the request sends (and the invoice's version): the same request gets
   * the same checkout session (no second session to pay twice); a request that differs in anything
   * (the workspace's name in the description, PUBLIC_URL in the return URLs) gets a key of its own,
   * as the processor refuses a key used again with other parameters.
   */
  idempotencyKey: string;
}

/** The idempotency key of a checkout: SHA-256 of every field the request is built from. */
export function checkoutIdempotencyKey(plan: Omit<CheckoutPlan, 'secretKey' | 'idempotencyKey'>, version: string): string {
  const sent = [plan.invoiceId, version, plan.currency, plan.amount, plan.balanceMinor, plan.description, plan.successUrl, plan.cancelUrl];
  return `hourbook-checkout-${createHash('sha256').update(JSON.stringify(sent)).digest('hex')}`;
}

/**
 * Whether the invoice can be paid by card now, and the checkout that asks for its balance; or why
 * not. It can when the workspace has set up its processor, the invoice did not opt out
 * (`payment_provider: 'undefined'`) and has a balance due that the processor can take exactly.
 */
export function cardCheckout(scope: Scope, invoice: InvoiceRow): { plan: CheckoutPlan } | { unavailable: string } {
  const secrets = processorSecrets(scope.db);
  if (!secrets) return { unavailable: 'Card payment is not set up for this workspace.' };
  if (invoice.paymentProvider === 'undefined') return { unavailable: 'This invoice is not paid by card.' };
  const balance = balanceDueMinor(invoice, paidByInvoice(scope.db, [invoice.id]).get(invoice.id) ?? 0);
  const refusal = paymentRefusal(invoice, balance);
  if (refusal) return { unavailable: refusal.message };
  const amount = toProcessorAmount(balance, invoice.currency);
  if (amount === null || (stripeDecimals(invoice.currency) === 3 && amount % 10 !== 0)) {
    return { unavailable: `The card processor cannot charge ${formatMoney(balance, invoice.currency)} exactly.` };
  }
  const page = publicInvoiceUrl(scope.links.publicBase, invoice.publicToken);
  const request = {
    invoiceId: invoice.id,
    currency: invoice.currency.toLowerCase(),
    amount,
    balanceMinor: balance,
    description: `Invoice ${invoice.number} from ${readIdentity(scope).name}`,
    successUrl: `${page}?payment=success`,
    cancelUrl: `${page}?payment=cancelled`,
  };
  return { plan: { secretKey: secrets.secretKey, ...request, idempotencyKey: checkoutIdempotencyKey(request, invoice.updatedAt) } };
}

/** The parts of a processor event this module reads (a Stripe event with a checkout session, or the charge of a refund). */
export interface ProcessorEvent {
  id: string;
  type: string;
  /** When the processor says it happened (Stripe's `created`, seconds since 1970), if it says so. */
  created?: number | null;
  session: {
    id: string;
    amount_total: number | null;
    currency: string | null;
    payment_status: string;
    payment_intent: string | null;
    invoice_id: string | null;
  } | null;
  /** The charge of a `charge.refunded` event (absent or null for other events). */
  charge?: {
    id: string;
    /** What the charge has had refunded in all so far, in the processor's units (not this refund alone). */
    amount_refunded: number;
    currency: string | null;
    payment_intent: string | null;
    /** `metadata.invoice_id` of the charge, when it carries one. */
    invoice_id: string | null;
  } | null;
}

type Outcome = (typeof processorEventOutcomes)[number] | 'duplicate';

const PAYMENT_EVENTS = new Set(['checkout.session.completed', 'checkout.session.async_payment_succeeded']);
const REFUND_EVENTS = new Set(['charge.refunded']);

interface Facts {
  invoiceId?: string | null;
  amountMinor?: number | null;
}

function record(scope: Scope, tx: Db, event: ProcessorEvent, outcome: Exclude<Outcome, 'duplicate'>, reason: string, facts: Facts = {}) {
  const charge = REFUND_EVENTS.has(event.type) ? (event.charge ?? null) : null;
  tx.insert(processorEvents)
    .values({
      id: event.id,
      type: event.type,
      invoiceId: facts.invoiceId ?? null,
      // The checkout session; for a refund, the payment intent refunded (else the charge).
      providerPaymentId: event.session?.id ?? (charge ? (charge.payment_intent ?? charge.id) : null),
      // Recorded or unapplied: minor units of the currency paid (invoices.payments lists them), negative for money
      // given back, null when not a whole number of them; an ignored event keeps the processor's own number.
      amountMinor: facts.amountMinor !== undefined ? facts.amountMinor : (event.session?.amount_total ?? charge?.amount_refunded ?? null),
      currency: (event.session?.currency ?? charge?.currency)?.toUpperCase() ?? null,
      outcome,
      reason,
      createdAt: scope.now.toISOString(),
    })
    .run();
  return { outcome, reason };
}

/** Why a completed checkout cannot be recorded on this invoice as it stands, or null. */
function unappliable(invoice: InvoiceRow, session: NonNullable<ProcessorEvent['session']>, amountMinor: number | null, balance: number): string | null {
  const currency = session.currency?.toUpperCase() ?? '';
  if (currency !== invoice.currency) return `paid in ${currency || 'an unknown currency'}, but the invoice is in ${invoice.currency}`;
  if (amountMinor === null) return `the amount ${session.amount_total ?? 'null'} is not a whole amount of ${invoice.currency}`;
  // A payment is money received: a checkout of nothing (or less) is kept for a person to look at.
  if (amountMinor <= 0) return `the amount paid is ${formatMoney(amountMinor, invoice.currency)}, not money received`;
  const refusal = paymentRefusal(invoice, balance);
  if (refusal) return refusal.message;
  if (amountMinor > balance) return `paid ${formatMoney(amountMinor, invoice.currency)}, more than the balance due of ${formatMoney(balance, invoice.currency)}`;
  return null;
}

/** A card payment recorded here for a processor's payment intent (not a refund of one). */
const cardPaymentOf = (tx: Db, paymentIntent: string) =>
  tx
    .select()
    .from(payments)
    .where(and(eq(payments.reference, paymentIntent), eq(payments.method, 'card'), isNotNull(payments.providerPaymentId), isNull(payments.refundOf)))
    .get();

/** What became of a refund: the outcome and reason its event is kept with, and the minor units recorded (negative). */
interface RefundResult {
  outcome: Exclude<Outcome, 'duplicate'>;
  reason: string;
  amountMinor: number | null;
}

/**
 * A refund of `payment` whose charge has had `refundedMinor` refunded in all (`null`: not a whole
 * amount of `currency`). What is new is that total less the refunds already recorded for the
 * payment: a second notice of the same total records nothing, and each refund is recorded once
 * whatever the order of notices. A refund that cannot be recorded as it came (another currency,
 * more than the payment, less than already recorded) is `unapplied` with its reason.
 */
function refundOfPayment(scope: Scope, tx: Db, payment: PaymentRow, refund: { currency: string | null; refundedMinor: number | null; rawAmount: number; providerPaymentId: string }): RefundResult {
  const invoice = findInvoice(tx, payment.invoiceId);
  const unapplied = (reason: string, amountMinor: number | null): RefundResult => ({ outcome: 'unapplied', reason, amountMinor });
  const { currency, refundedMinor } = refund;
  if (currency !== invoice.currency) return unapplied(`refunded in ${currency ?? 'an unknown currency'}, but the payment is in ${invoice.currency}`, null);
  if (refundedMinor === null) return unapplied(`the amount refunded ${refund.rawAmount} is not a whole amount of ${invoice.currency}`, null);
  const before = -(tx
    .select({ sum: sql<number>`coalesce(sum(${payments.amountMinor}), 0)` })
    .from(payments)
    .where(eq(payments.refundOf, payment.id))
    .get()?.sum ?? 0);
  const money = (minor: number) => formatMoney(minor, invoice.currency);
  if (refundedMinor > payment.amountMinor) return unapplied(`refunded ${money(refundedMinor)} in all, more than the card payment of ${money(payment.amountMinor)}`, -refundedMinor);
  if (refundedMinor < before) return unapplied(`refunded ${money(refundedMinor)} in all, less than the ${money(before)} already recorded as refunded`, null);
  if (refundedMinor === before) return { outcome: 'ignored', reason: 'this refund was recorded already', amountMinor: null };
  const amountMinor = refundedMinor - before;
  applyRefund(scope, tx, invoice, payment, { amountMinor, refundedOn: todayIn(scope), reference: `Refund of ${payment.reference}`, providerPaymentId: refund.providerPaymentId });
  return { outcome: 'recorded', reason: '', amountMinor: -amountMinor };
}

/**
 * A refund of a card payment (`charge.refunded`): recorded against the card payment of the
 * charge's payment intent (its reference), see `refundOfPayment`. A refund of a payment not
 * recorded here (yet: the processor does not promise to notify in order) is kept as `unapplied`;
 * the payment's own notice records it when it comes (`refundsBeforeTheirPayment`).
 */
function applyRefundEvent(scope: Scope, tx: Db, event: ProcessorEvent, charge: NonNullable<ProcessorEvent['charge']>) {
  const currency = /^[A-Za-z]{3}$/.test(charge.currency ?? '') ? charge.currency!.toUpperCase() : null;
  const refundedMinor = currency === null ? null : fromProcessorAmount(charge.amount_refunded, currency);
  const payment = charge.payment_intent ? cardPaymentOf(tx, charge.payment_intent) : undefined;
  if (!payment) {
    if (refundedMinor !== null && refundedMinor <= 0) return record(scope, tx, event, 'ignored', 'nothing was refunded');
    const named = charge.invoice_id ? tx.select({ id: invoices.id }).from(invoices).where(eq(invoices.id, charge.invoice_id)).get() : undefined;
    const amount = refundedMinor === null || currency === null ? `${charge.amount_refunded} ${charge.currency ?? ''}`.trim() : formatMoney(refundedMinor, currency);
    const what = charge.payment_intent ?? charge.id;
    return record(scope, tx, event, 'unapplied', `refund of ${amount} for ${what}, which is not a card payment recorded here`, {
      invoiceId: named?.id,
      amountMinor: refundedMinor === null ? null : -refundedMinor,
    });
  }
  const result = refundOfPayment(scope, tx, payment, { currency, refundedMinor, rawAmount: charge.amount_refunded, providerPaymentId: event.id });
  return record(scope, tx, event, result.outcome, result.reason, { invoiceId: payment.invoiceId, amountMinor: result.amountMinor });
}

/**
 * Refunds of a payment intent that the processor reported before the payment itself, kept then
 * as `unapplied` (no card payment to give money back from): recorded once the payment is. Each
 * notice carries the charge's running total, so the largest is all of them; that notice is
 * recorded (or kept unapplied with the reason it does not fit), and the earlier ones are counted
 * in it. A notice whose amount was unreadable stays unapplied, for a person.
 */
function refundsBeforeTheirPayment(scope: Scope, tx: Db, paymentIntent: string): void {
  const earlier = tx
    .select()
    .from(processorEvents)
    .where(and(eq(processorEvents.providerPaymentId, paymentIntent), eq(processorEvents.outcome, 'unapplied'), inArray(processorEvents.type, [...REFUND_EVENTS])))
    .all()
    .filter((e) => e.amountMinor !== null);
  const payment = cardPaymentOf(tx, paymentIntent);
  if (earlier.length === 0 || !payment) return;
  const latest = earlier.reduce((a, b) => (b.amountMinor! < a.amountMinor! ? b : a));
  const result = refundOfPayment(scope, tx, payment, { currency: latest.currency, refundedMinor: -latest.amountMinor!, rawAmount: -latest.amountMinor!, providerPaymentId: latest.id });
  const settle = (id: string, outcome: RefundResult['outcome'], reason: string, amountMinor: number | null) =>
    tx.update(processorEvents).set({ outcome, reason, amountMinor, invoiceId: payment.invoiceId }).where(eq(processorEvents.id, id)).run();
  settle(latest.id, result.outcome, result.reason || 'recorded once its card payment was', result.outcome === 'recorded' ? result.amountMinor : latest.amountMinor);
  if (result.outcome !== 'recorded') return;
  for (const e of earlier) if (e.id !== latest.id) settle(e.id, 'ignored', `counted in the refunded total of ${latest.id}`, e.amountMinor);
}

/**
 * The day an event happened in the workspace's zone: the day of the processor's own time, so a
 * notice that arrives (or is retried) after midnight still dates the payment on the day the client
 * paid, and the paid-per-month report counts it in its month; today when the event has no time, or
 * one in the future (another clock than ours).
 */
function dayOf(scope: Scope, event: ProcessorEvent): string {
  const at = typeof event.created === 'number' && Number.isFinite(event.created) ? new Date(event.created * 1000) : null;
  return at && at.getTime() <= scope.now.getTime() ? localDate(at, scope.workspace.timeZone) : todayIn(scope);
}

/**
 * Applies one verified processor event, once: an event id seen before changes nothing
 * (`duplicate`). A completed, paid checkout of an invoice of this workspace records a card payment
 * (provider_payment_id = the session id, unique, so a second delivery or a concurrent race records
 * one payment). Money that cannot be recorded as it came (another currency, more than the balance,
 * a void or already paid invoice) is never recorded silently: the event is kept as `unapplied` with
 * its reason, listed by `invoices.payments`, for a person to refund or record by hand. A refund of a
 * card payment (`charge.refunded`) is recorded as money given back (`applyRefundEvent`).
 */
export function applyProcessorEvent(scope: Scope, event: ProcessorEvent): { outcome: Outcome; reason: string } {
  return scope.write((tx) => {
    if (tx.select({ id: processorEvents.id }).from(processorEvents).where(eq(processorEvents.id, event.id)).get()) {
      return { outcome: 'duplicate', reason: 'this event was applied before' };
    }
    if (REFUND_EVENTS.has(event.type) && event.charge) return applyRefundEvent(scope, tx, event, event.charge);
    const session = event.session;
    if (!PAYMENT_EVENTS.has(event.type) || !session) return record(scope, tx, event, 'ignored', `event type ${event.type} is not used`);
    if (session.payment_status !== 'paid') return record(scope, tx, event, 'ignored', `payment status is ${session.payment_status}`);
    const invoice = session.invoice_id ? tx.select().from(invoices).where(eq(invoices.id, session.invoice_id)).get() : undefined;
    if (!invoice) return record(scope, tx, event, 'ignored', 'no invoice of this workspace');
    if (tx.select({ id: payments.id }).from(payments).where(eq(payments.providerPaymentId, session.id)).get()) {
      return record(scope, tx, event, 'ignored', 'this checkout session was recorded already', { invoiceId: invoice.id });
    }
    // Counted in the currency paid (the invoice's, unless the checkout was in another one).
    const paidCurrency = /^[A-Z]{3}$/.test(session.currency?.toUpperCase() ?? '') ? session.currency!.toUpperCase() : invoice.currency;
    const amountMinor = session.amount_total === null ? null : fromProcessorAmount(session.amount_total, paidCurrency);
    const paid = paidByInvoice(tx, [invoice.id]).get(invoice.id) ?? 0;
    const reason = unappliable(invoice, session, amountMinor, balanceDueMinor(invoice, paid));
    if (reason !== null || amountMinor === null) return record(scope, tx, event, 'unapplied', reason ?? 'no amount', { invoiceId: invoice.id, amountMinor });
    applyPayment(scope, tx, invoice, paid, {
      amountMinor,
      paidOn: dayOf(scope, event),
      method: 'card',
      reference: session.payment_intent ?? session.id,
      providerPaymentId: session.id,
    });
    if (session.payment_intent) refundsBeforeTheirPayment(scope, tx, session.payment_intent);
    return record(scope, tx, event, 'recorded', '', { invoiceId: invoice.id, amountMinor });
  });
}
