import { currencyDecimals } from '../money.ts';
import type { CsvColumn } from './csv.ts';
import { isPeriod } from './periods.ts';
import {
  AGEING_BUCKETS,
  type PaidPerMonthOutput,
  type ReceivablesOutput,
  type TimeReportOutput,
  type UnbilledOutput,
  type UtilisationOutput,
} from './schemas.ts';

/**
 * The CSV columns of each report: the same rows the procedure answers, flattened. Amounts are
 * written with their currency's decimals (`1234.50`, `¥` amounts without), as numbers.
 */

/** An API amount (a number with at most the currency's decimals) as exact decimal text. */
export const decimalAmount = (amount: number, currency: string): string => amount.toFixed(currencyDecimals(currency));

const text = <R>(header: string, value: (row: R) => string | null): CsvColumn<R> => ({ header, kind: 'text', value });
const number = <R>(header: string, value: (row: R) => string | number | null): CsvColumn<R> => ({ header, kind: 'number', value });

type TimeRow = TimeReportOutput['rows'][number];

/** Time report: the groupings (name and id), the hours, then two amount columns per currency. */
export function timeReportColumns(report: TimeReportOutput): CsvColumn<TimeRow>[] {
  const keyColumns = report.by.flatMap((by, n): CsvColumn<TimeRow>[] =>
    isPeriod(by) ? [text(by, (r) => r.keys[n]?.id ?? null)] : [text(by, (r) => r.keys[n]?.label ?? null), text(`${by}_id`, (r) => r.keys[n]?.id ?? null)],
  );
  const currencies = report.totals.amounts.map((a) => a.currency);
  const amountColumns = currencies.flatMap((currency): CsvColumn<TimeRow>[] => {
    const of = (r: TimeRow) => r.amounts.find((a) => a.currency === currency);
    return [
      number(`billable_amount_${currency}`, (r) => {
        const a = of(r);
        return a ? decimalAmount(a.billable_amount, currency) : null;
      }),
      number(`unbilled_amount_${currency}`, (r) => {
        const a = of(r);
        return a ? decimalAmount(a.unbilled_amount, currency) : null;
      }),
    ];
  });
  return [
    ...keyColumns,
    number('entries', (r) => r.entries),
    number('hours', (r) => r.hours),
    number('billable_hours', (r) => r.billable_hours),
    number('unbilled_hours', (r) => r.unbilled_hours),
    number('seconds', (r) => r.seconds),
    ...amountColumns,
  ];
}

type UnbilledRow = UnbilledOutput['rows'][number];
export const unbilledColumns: CsvColumn<UnbilledRow>[] = [
  text('client', (r) => r.client.name),
  text('client_id', (r) => r.client.id),
  text('project_identifier', (r) => r.project.identifier),
  text('project', (r) => r.project.name),
  text('project_id', (r) => r.project.id),
  number('entries', (r) => r.entries),
  number('hours', (r) => r.hours),
  number('seconds', (r) => r.seconds),
  text('currency', (r) => r.currency),
  number('amount', (r) => decimalAmount(r.amount, r.currency)),
  text('oldest_recorded_on', (r) => r.oldest_recorded_on),
  text('newest_recorded_on', (r) => r.newest_recorded_on),
];

type ReceivableRow = ReceivablesOutput['invoices'][number];
export const receivablesColumns: CsvColumn<ReceivableRow>[] = [
  text('number', (r) => r.number),
  text('invoice_id', (r) => r.id),
  text('client', (r) => r.client.name),
  text('client_id', (r) => r.client.id),
  text('status', (r) => r.status),
  text('issue_date', (r) => r.issue_date),
  text('due_date', (r) => r.due_date),
  text('currency', (r) => r.currency),
  number('total', (r) => decimalAmount(r.total, r.currency)),
  number('paid', (r) => decimalAmount(r.paid, r.currency)),
  number('balance', (r) => decimalAmount(r.balance, r.currency)),
  number('days_overdue', (r) => r.days_overdue),
  text('bucket', (r) => r.bucket),
  ...AGEING_BUCKETS.map((b) => number<ReceivableRow>(b, (r) => (r.bucket === b ? decimalAmount(r.balance, r.currency) : null))),
];

type PaidRow = PaidPerMonthOutput['rows'][number];
export const paidPerMonthColumns: CsvColumn<PaidRow>[] = [
  text('month', (r) => r.month),
  text('currency', (r) => r.currency),
  number('payments', (r) => r.payments),
  number('amount', (r) => decimalAmount(r.amount, r.currency)),
];

type UtilisationRow = UtilisationOutput['rows'][number];
export const utilisationColumns: CsvColumn<UtilisationRow>[] = [
  text('person', (r) => r.person.name),
  text('email', (r) => r.person.email),
  text('user_id', (r) => r.person.id),
  text('week', (r) => r.week),
  text('week_starts_on', (r) => r.week_starts_on),
  number('hours', (r) => r.hours),
  number('billable_hours', (r) => r.billable_hours),
  number('billable_share', (r) => r.billable_share),
  number('seconds', (r) => r.seconds),
  number('billable_seconds', (r) => r.billable_seconds),
];
