import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq } from 'drizzle-orm';
import type * as z from 'zod';
import type { Db } from '../../db/index.ts';
import { invoices, outbox, payments, processorEvents, type paymentMethods } from '../../db/schema/index.ts';
import { AppError, invalidField, notFound, unprocessable } from '../../errors.ts';
import { requireAdmin } from '../access.ts';
import { recordEvent } from '../events.ts';
import { fromMinor, minorAmountProblem, toMinor } from '../money.ts';
import type { Scope } from '../scope.ts';
import { balanceDueMinor, paidByInvoice, statusAfterPayments, todayIn } from './balance.ts';
import { CANCELLED_PREFIX, settleInvoiceDelivery } from './settle.ts';
import { findInvoice } from './queries.ts';
import type { InvoiceRow } from './records.ts';
import type { deletePaymentInput, invoiceIdInput, InvoiceSummary, markPaidInput, paymentOutput, paymentsOutput, PaymentRecord, recordPaymentInput, statusChangeOutput } from './schemas.ts';
import { summaryOf } from './summaries.ts';

/** A payment as stored; `refundOf` is set only on a refund (written by `applyRefund`). */
type PaymentRow = typeof payments.$inferSelect;

export const toPaymentRecord = (row: PaymentRow, currency: string): PaymentRecord => ({
  id: row.id,
  invoice_id: row.invoiceId,
  amount: fromMinor(row.amountMinor, currency),
  currency,
  paid_on: row.paidOn,
  method: row.method,
  reference: row.reference,
  source: row.providerPaymentId ? 'card_processor' : 'manual',
  provider_payment_id: row.providerPaymentId,
  refund_of: row.refundOf,
  recorded_by: row.recordedBy,
  created_at: row.createdAt,
});

/** Why an invoice cannot take a payment now, or null when it can. */
export function paymentRefusal(invoice: InvoiceRow, balanceMinor: number): AppError | null {
  if (invoice.kind === 'credit_note') return unprocessable('invoice_is_credit_note', `${invoice.number} is a credit note; it takes no payments`);
  if (invoice.status === 'void') return unprocessable('invoice_void', `Invoice ${invoice.number} is void and cannot be paid`);
  if (invoice.status === 'draft') {
    return unprocessable('invoice_draft', `Invoice ${invoice.number} is a draft: send it (invoices.send) or mark it sent (invoices.markSent) before recording a payment`);
  }
  if (balanceMinor <= 0) {
    // An invoice of 0 is issued owing nothing: it stays `sent`, never overdue, and takes no payment.
    const why = invoice.totalMinor === 0 ? 'totals 0: there is nothing to pay' : 'is already paid';
    return unprocessable('invoice_already_paid', `Invoice ${invoice.number} ${why}`);
  }
  return null;
}

export interface NewPayment {
  amountMinor: number;
  paidOn: string;
  method: (typeof paymentMethods)[number];
  reference: string;
  providerPaymentId: string | null;
}

/**
 * Records a payment in the caller's transaction and moves the invoice on: `partially_paid`, or
 * `paid` once the balance is 0 (with `paid_at`). Reminders waiting for delivery are cancelled:
 * they state an amount that is no longer owed. Events: `payment.recorded`, and
 * `invoice.partially_paid` / `invoice.paid` when the status moves. The caller has checked the
 * amount against the balance.
 */
export function applyPayment(scope: Scope, tx: Db, invoice: InvoiceRow, paidBefore: number, payment: NewPayment): z.output<typeof paymentOutput> {
  const at = scope.now.toISOString();
  const row: PaymentRow = { id: randomUUID(), invoiceId: invoice.id, ...payment, refundOf: null, recordedBy: scope.actor?.id ?? null, createdAt: at };
  tx.insert(payments).values(row).run();
  const status = statusAfterPayments(invoice, paidBefore + payment.amountMinor);
  const [updated] = tx
    .update(invoices)
    .set({ status, paidAt: status === 'paid' ? at : null, updatedAt: at })
    .where(eq(invoices.id, invoice.id))
    .returning()
    .all();
  tx.update(outbox)
    .set({ status: 'failed', lastError: `${CANCELLED_PREFIX} a payment was recorded before delivery`, claimedAt: null })
    .where(and(eq(outbox.invoiceId, invoice.id), eq(outbox.kind, 'invoice_reminder'), eq(outbox.status, 'pending')))
    .run();
  const summary = summaryOf(scope, tx, updated!);
  const record = toPaymentRecord(row, invoice.currency);
  recordEvent(scope, 'payment.recorded', { payment: record, invoice: summary });
  if (status !== invoice.status && (status === 'paid' || status === 'partially_paid')) {
    recordEvent(scope, status === 'paid' ? 'invoice.paid' : 'invoice.partially_paid', { invoice: summary });
  }
  return { payment: record, invoice: summary };
}

function paidOnOf(scope: Scope, paidOn: string | undefined): string {
  const today = todayIn(scope);
  if (paidOn !== undefined && paidOn > today) throw invalidField('paid_on', `must not be in the future (today is ${today})`);
  return paidOn ?? today;
}

/** The invoice and what it owes, read in the caller's transaction; refused when it takes no payment. */
function payable(tx: Db, invoiceId: string): { invoice: InvoiceRow; paid: number; balance: number } {
  const invoice = findInvoice(tx, invoiceId);
  const paid = paidByInvoice(tx, [invoice.id]).get(invoice.id) ?? 0;
  const balance = balanceDueMinor(invoice, paid);
  const refusal = paymentRefusal(invoice, balance);
  if (refusal) throw refusal;
  return { invoice, paid, balance };
}

/**
 * `invoices.recordPayment`: money received for an invoice, in its currency, at most its balance
 * (422 `payment_exceeds_balance` otherwise, nothing written). Several partial payments are fine.
 */
export function recordPayment(scope: Scope, input: z.output<typeof recordPaymentInput>): z.output<typeof paymentOutput> {
  requireAdmin(scope, 'record payments');
  return scope.write((tx) => {
    const { invoice, paid, balance } = payable(tx, input.invoice_id);
    const amount = toMinor(input.amount, invoice.currency);
    if (amount === null) throw invalidField('amount', minorAmountProblem(input.amount, invoice.currency));
    if (amount > balance) {
      const due = fromMinor(balance, invoice.currency);
      throw new AppError('unprocessable', 'payment_exceeds_balance', `The payment is more than the balance due of ${due} ${invoice.currency}`, {
        details: [{ path: 'amount', message: `must be at most the balance due, ${due}` }],
        extra: { balance_due: due },
      });
    }
    const paidOn = paidOnOf(scope, input.paid_on);
    return applyPayment(scope, tx, invoice, paid, { amountMinor: amount, paidOn, method: input.method, reference: input.reference ?? '', providerPaymentId: null });
  });
}

/** `invoices.markPaid`: records a payment of the whole balance due (method `other` unless given). */
export function markInvoicePaid(scope: Scope, input: z.output<typeof markPaidInput>): z.output<typeof statusChangeOutput> {
  requireAdmin(scope, 'record payments');
  return scope.write((tx) => {
    const { invoice, paid, balance } = payable(tx, input.invoice_id);
    const paidOn = paidOnOf(scope, input.paid_on);
    return { invoice: applyPayment(scope, tx, invoice, paid, { amountMinor: balance, paidOn, method: input.method, reference: input.reference ?? '', providerPaymentId: null }).invoice };
  });
}

/** `invoices.payments`: an invoice's payments by date, and card payments that need a person. */
export function listPayments(scope: Scope, input: z.output<typeof invoiceIdInput>): z.output<typeof paymentsOutput> {
  requireAdmin(scope, 'see payments');
  const invoice = findInvoice(scope.db, input.invoice_id);
  const rows = scope.db.select().from(payments).where(eq(payments.invoiceId, invoice.id)).orderBy(asc(payments.paidOn), asc(payments.createdAt)).all();
  const unapplied = scope.db
    .select()
    .from(processorEvents)
    .where(and(eq(processorEvents.invoiceId, invoice.id), eq(processorEvents.outcome, 'unapplied')))
    .orderBy(desc(processorEvents.createdAt))
    .all();
  return {
    items: rows.map((r) => toPaymentRecord(r, invoice.currency)),
    unapplied_card_payments: unapplied.map((e) => ({
      event_id: e.id,
      provider_payment_id: e.providerPaymentId,
      amount_minor: e.amountMinor,
      currency: e.currency,
      reason: e.reason,
      received_at: e.createdAt,
    })),
  };
}

/**
 * The invoice's status once money was taken off its payments (a payment deleted, a refund
 * recorded): it follows what is left (`paid` → `partially_paid` → `sent`, `paid_at` kept only while
 * paid); a void invoice stays void (its payments were the money to give back). Back to `sending`
 * with its e-mail perhaps settled while it was paid (every client message cancelled, say), it
 * settles now, else nothing ever would (sent, or a draft again). Returns its summary as it is now.
 */
function statusAfterMoneyTakenOff(scope: Scope, tx: Db, invoice: InvoiceRow): InvoiceSummary {
  const paid = paidByInvoice(tx, [invoice.id]).get(invoice.id) ?? 0;
  const status = invoice.status === 'void' ? 'void' : statusAfterPayments(invoice, paid);
  tx.update(invoices)
    .set({ status, paidAt: status === 'paid' ? invoice.paidAt : null, updatedAt: scope.now.toISOString() })
    .where(eq(invoices.id, invoice.id))
    .run();
  if (status === 'sending') settleInvoiceDelivery(scope, tx, invoice.id);
  return summaryOf(scope, tx, findInvoice(tx, invoice.id));
}

/**
 * `invoices.deletePayment`: removes a payment recorded by mistake; the invoice's status follows
 * its remaining payments (`paid` → `partially_paid` → `sent`). A card payment the processor
 * reported cannot be deleted here (refund it with the processor), nor can a payment of a void
 * invoice: voiding it said that money is to be given back, and the payment is the record of it.
 * Event: `payment.deleted` `{payment, invoice}`.
 */
export function deletePayment(scope: Scope, input: z.output<typeof deletePaymentInput>): z.output<typeof statusChangeOutput> {
  requireAdmin(scope, 'delete payments');
  return scope.write((tx) => {
    const payment = tx.select().from(payments).where(eq(payments.id, input.payment_id)).get();
    if (!payment) throw notFound('payment', `No payment with id ${input.payment_id}`);
    if (payment.providerPaymentId) {
      throw unprocessable('payment_from_processor', 'This payment was reported by the card processor; refund it there instead of deleting it here');
    }
    const invoice = findInvoice(tx, payment.invoiceId);
    if (invoice.status === 'void') {
      throw unprocessable('invoice_void', `Invoice ${invoice.number} is void: its payments stay as the record of the money to give back`);
    }
    tx.delete(payments).where(eq(payments.id, payment.id)).run();
    const summary = statusAfterMoneyTakenOff(scope, tx, invoice);
    // An integration that was told of the payment (and of `invoice.paid`) learns it is gone.
    recordEvent(scope, 'payment.deleted', { payment: toPaymentRecord(payment, invoice.currency), invoice: summary });
    return { invoice: summary };
  });
}

export interface NewRefund {
  /** The money given back, in the invoice currency's minor units, > 0 (stored negated). */
  amountMinor: number;
  /** `YYYY-MM-DD`, the day the refund was reported. */
  refundedOn: string;
  reference: string;
  providerPaymentId: string;
}

/**
 * Records money given back from a payment, in the caller's transaction: a payment of the negative
 * amount, linked to the one it refunds (`refund_of`), so every sum of payments (amount paid,
 * balance due, the reports) nets it out on the day it happened, and the payments list shows both.
 * The invoice's status follows its payments like after a deletion (`paid` → `partially_paid` →
 * `sent`, or `sending` while its e-mail is out); a void invoice stays void (its payments were the
 * money to give back). Event: `payment.refunded` `{payment, refund, invoice}` (`payment` the one
 * refunded, `refund` the negative one, `invoice` as it is now). The caller has checked the amount
 * against what is left of the payment.
 */
export function applyRefund(scope: Scope, tx: Db, invoice: InvoiceRow, payment: PaymentRow, refund: NewRefund): z.output<typeof statusChangeOutput> {
  const at = scope.now.toISOString();
  const row: PaymentRow = {
    id: randomUUID(),
    invoiceId: invoice.id,
    amountMinor: -refund.amountMinor,
    paidOn: refund.refundedOn,
    method: payment.method,
    reference: refund.reference,
    providerPaymentId: refund.providerPaymentId,
    refundOf: payment.id,
    recordedBy: scope.actor?.id ?? null,
    createdAt: at,
  };
  tx.insert(payments).values(row).run();
  const summary = statusAfterMoneyTakenOff(scope, tx, invoice);
  recordEvent(scope, 'payment.refunded', { payment: toPaymentRecord(payment, invoice.currency), refund: toPaymentRecord(row, invoice.currency), invoice: summary });
  return { invoice: summary };
}
