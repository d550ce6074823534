import { and, asc, between, eq, sql } from 'drizzle-orm';
import { invoices, payments } from '../../db/schema/index.ts';
import { inIds } from '../queries.ts';
import type { Scope } from '../scope.ts';
import { amountOf, PerCurrency } from './amounts.ts';
import { monthsBefore, resolveRange } from './range.ts';
import type { PaidPerMonthInput, PaidPerMonthOutput } from './schemas.ts';
import { requireMoneyReader } from './visibility.ts';

/** The twelve months up to the month of `to`. */
const YEAR_BACK = 11;

/**
 * tRPC `reports.paidPerMonth`: money received per month (by the day it arrived, `paid_on`) and
 * per currency (the invoice's), with the number of payments; by default the twelve months up to
 * this one. Owner, Admin or the workspace key only. A card refund (a negative payment) is taken off
 * the month it was reported in, but it is not a payment: it is not counted as one.
 */
export function paidPerMonth(scope: Scope, input: PaidPerMonthInput): PaidPerMonthOutput {
  requireMoneyReader(scope);
  const range = resolveRange(scope, input, (to) => monthsBefore(to, YEAR_BACK));
  const month = sql<string>`substr(${payments.paidOn}, 1, 7)`;
  const rows = scope.db
    .select({ month, currency: invoices.currency, payments: sql<number>`count(*) FILTER (WHERE ${payments.refundOf} IS NULL)`.mapWith(Number), minor: sql<bigint>`sum(${payments.amountMinor})`.mapWith(BigInt) })
    .from(payments)
    .innerJoin(invoices, eq(invoices.id, payments.invoiceId))
    .where(and(between(payments.paidOn, range.from, range.to), input.client_ids ? inIds(invoices.clientId, input.client_ids) : undefined))
    .groupBy(month, invoices.currency)
    .orderBy(asc(month), asc(invoices.currency))
    .all();
  const totals = new PerCurrency(() => ({ payments: 0, minor: 0n }));
  for (const r of rows) {
    const t = totals.of(r.currency);
    t.payments += r.payments;
    t.minor += r.minor;
  }
  return {
    ...range,
    rows: rows.map((r) => ({ month: r.month, currency: r.currency, payments: r.payments, amount: amountOf(r.minor, r.currency) })),
    totals: totals.entries().map(([currency, t]) => ({ currency, payments: t.payments, amount: amountOf(t.minor, currency) })),
  };
}
