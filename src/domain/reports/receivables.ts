import type { Scope } from '../scope.ts';
import { amountOf, PerCurrency } from './amounts.ts';
import { balanceDueMinor, isOverdue } from '../invoices/balance.ts';
import { ageingBucket, daysOverdue, openInvoices } from './open-invoices.ts';
import { clientNames, compareText, nameOf } from './labels.ts';
import { todayOf } from './range.ts';
import { AGEING_BUCKETS, type AgeingBucket, type ReceivablesInput, type ReceivablesOutput } from './schemas.ts';
import { requireMoneyReader } from './visibility.ts';

type Ageing = Record<AgeingBucket, bigint> & { balance: bigint; overdue: bigint; invoices: number };

const emptyAgeing = (): Ageing => ({ ...(Object.fromEntries(AGEING_BUCKETS.map((b) => [b, 0n])) as Record<AgeingBucket, bigint>), balance: 0n, overdue: 0n, invoices: 0 });

function ageingOut(a: Ageing, currency: string) {
  const buckets = Object.fromEntries(AGEING_BUCKETS.map((b) => [b, amountOf(a[b], currency)])) as Record<AgeingBucket, number>;
  return { currency, ...buckets, balance: amountOf(a.balance, currency), overdue: amountOf(a.overdue, currency), invoices: a.invoices };
}

/**
 * tRPC `reports.receivables`: every invoice with a balance due (balance.ts), oldest due date
 * first, with its age in days past due and its ageing bucket; the same balances summed per client
 * and currency, and per currency. "Today" is today in the workspace's time zone. Owner, Admin or
 * the workspace key only.
 */
export function receivablesReport(scope: Scope, input: ReceivablesInput): ReceivablesOutput {
  requireMoneyReader(scope);
  const today = todayOf(scope);
  const owing = openInvoices(scope.db, input.client_ids ?? null).filter((i) => balanceDueMinor(i, i.paidMinor) > 0);
  owing.sort((a, b) => compareText(a.dueDate, b.dueDate) || compareText(a.number, b.number));
  const names = clientNames(scope.db, [...new Set(owing.map((i) => i.clientId))]);
  const byClient = new Map<string, PerCurrency<Ageing>>();
  const totals = new PerCurrency(emptyAgeing);
  const invoicesOut = owing.map((i) => {
    const balance = balanceDueMinor(i, i.paidMinor);
    const bucket = ageingBucket(i.dueDate, today);
    const perClient = byClient.get(i.clientId) ?? new PerCurrency(emptyAgeing);
    byClient.set(i.clientId, perClient);
    for (const a of [perClient.of(i.currency), totals.of(i.currency)]) {
      a[bucket] += BigInt(balance);
      a.balance += BigInt(balance);
      if (isOverdue(i, i.paidMinor, today)) a.overdue += BigInt(balance);
      a.invoices += 1;
    }
    return {
      id: i.id,
      number: i.number,
      client: { id: i.clientId, name: nameOf(names, i.clientId) },
      status: i.status,
      currency: i.currency,
      issue_date: i.issueDate,
      due_date: i.dueDate,
      total: amountOf(BigInt(i.totalMinor), i.currency),
      paid: amountOf(BigInt(i.paidMinor), i.currency),
      balance: amountOf(BigInt(balance), i.currency),
      days_overdue: daysOverdue(i.dueDate, today),
      bucket,
    };
  });
  const clients = [...byClient.entries()]
    .flatMap(([clientId, perCurrency]) => perCurrency.entries().map(([currency, a]) => ({ client: { id: clientId, name: nameOf(names, clientId) }, ...ageingOut(a, currency) })))
    .sort((a, b) => a.client.name.localeCompare(b.client.name) || compareText(a.client.id, b.client.id) || compareText(a.currency, b.currency));
  return { as_of: today, invoices: invoicesOut, clients, totals: totals.entries().map(([currency, a]) => ageingOut(a, currency)) };
}
