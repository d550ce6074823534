import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api, type Outputs } from '../api.ts';
import { formatDate, formatMoney, formatMonth, formatNumber } from '../format.ts';
import { Amounts, CsvLink, ReportSection, ReportTabs, TotalsPanel } from '../reports/report-ui.tsx';
import { csvHref } from '../reports/time-query.ts';
import { Badge } from '../ui/badge.tsx';
import { Loading, Page } from '../ui/page.tsx';
import { Table, type Column } from '../ui/table.tsx';

type Receivables = Outputs['reports']['receivables'];
type Ageing = Receivables['totals'][number];
type Bucket = Receivables['invoices'][number]['bucket'];

const BUCKETS: readonly (readonly [Bucket, string])[] = [
  ['not_due', 'Not due'],
  ['days_1_30', '1–30 days'],
  ['days_31_60', '31–60 days'],
  ['days_61_90', '61–90 days'],
  ['over_90', 'Over 90 days'],
];
const bucketName = (b: Bucket) => BUCKETS.find(([v]) => v === b)?.[1] ?? b;

/** An amount of the ageing table; nothing is muted on wide screens and left out of a phone's card. */
function Aged({ amount, currency }: { amount: number; currency: string }) {
  return <span className={amount === 0 ? 'muted zero' : undefined}>{formatMoney(amount, currency)}</span>;
}

/** The ageing columns of a per-client or per-currency row: each bucket, the balance and what is overdue. */
function ageingColumns<T extends Ageing>(): Column<T>[] {
  const money = (pick: (a: T) => number) => (a: T) => <Aged amount={pick(a)} currency={a.currency} />;
  return [
    ...BUCKETS.map(([b, name]) => ({ header: name, align: 'end' as const, cell: money((a) => a[b]) })),
    { header: 'Balance', align: 'end', cell: money((a) => a.balance), className: 'strong' },
    { header: 'Overdue', align: 'end', cell: money((a) => a.overdue) },
  ];
}

function Paid({ paid }: { paid: Outputs['reports']['paidPerMonth'] }) {
  return (
    <ReportSection id="paid-title" title="Received per month">
      <Table
        caption={`Payments received ${formatDate(paid.from)} – ${formatDate(paid.to)}`}
        captionHidden
        rows={paid.rows}
        rowKey={(r) => `${r.month}|${r.currency}`}
        empty="No payments received in the last twelve months."
        columns={[
          { header: 'Month', cell: (r) => formatMonth(`${r.month}-01`) },
          { header: 'Payments', align: 'end', cell: (r) => formatNumber(r.payments, 0) },
          { header: 'Received', align: 'end', cell: (r) => formatMoney(r.amount, r.currency) },
        ]}
      />
    </ReportSection>
  );
}

/**
 * Receivables: open balances by age, per client and currency, the invoices behind them (each a link),
 * and what came in per month. Two calls: `reports.receivables` and `reports.paidPerMonth`.
 */
export function ReceivablesPage() {
  const report = useQuery({ queryKey: ['reports.receivables', {}], queryFn: () => api.reports.receivables.query({}) });
  const paid = useQuery({ queryKey: ['reports.paidPerMonth', {}], queryFn: () => api.reports.paidPerMonth.query({}) });
  const data = report.data;
  return (
    <Page
      title="Receivables"
      actions={
        <>
          <CsvLink href={csvHref('receivables')}>Download CSV</CsvLink>
          <CsvLink href={csvHref('paid-per-month', paid.data ? { from: paid.data.from, to: paid.data.to } : {})}>Payments per month as CSV</CsvLink>
        </>
      }
    >
      <ReportTabs />
      {data ? (
        <>
          <TotalsPanel
            facts={[
              ['Open balance', <Amounts amounts={data.totals.map((t) => ({ currency: t.currency, amount: t.balance }))} />],
              [
                'Overdue',
                <span className={data.totals.some((t) => t.overdue > 0) ? 'overdue' : undefined}>
                  <Amounts amounts={data.totals.map((t) => ({ currency: t.currency, amount: t.overdue }))} />
                </span>,
              ],
              ['Open invoices', formatNumber(data.invoices.length, 0)],
              ['As of', formatDate(data.as_of)],
            ]}
          />
          <ReportSection id="ageing-title" title="By client">
            <Table
              caption="Open balances by client and age"
              captionHidden
              rows={data.clients}
              rowKey={(c) => `${c.client.id}|${c.currency}`}
              empty="No client owes anything."
              columns={[{ header: 'Client', cell: (c) => c.client.name }, ...ageingColumns<(typeof data.clients)[number]>()]}
              footer={data.totals.map((t) => (
                <tr key={t.currency} className="total report-total">
                  <th scope="row">Total {t.currency}</th>
                  {[...BUCKETS.map(([b, name]) => [name, t[b]] as const), ['Balance', t.balance] as const, ['Overdue', t.overdue] as const].map(([name, amount]) => (
                    <td key={name} className="num" data-label={name}>
                      <Aged amount={amount} currency={t.currency} />
                    </td>
                  ))}
                </tr>
              ))}
            />
          </ReportSection>
          <ReportSection id="open-title" title="Open invoices">
            <Table
              caption="Open invoices, oldest due date first"
              captionHidden
              rows={data.invoices}
              rowKey={(i) => i.id}
              empty="No open invoices."
              columns={[
                { header: 'Invoice', cell: (i) => <Link href={`/invoicing/${i.id}`}>{i.number}</Link> },
                { header: 'Client', cell: (i) => i.client.name },
                { header: 'Due', cell: (i) => formatDate(i.due_date) },
                { header: 'Age', cell: (i) => (i.days_overdue > 0 ? `${formatNumber(i.days_overdue, 0)} days overdue` : bucketName(i.bucket)) },
                { header: 'Total', align: 'end', cell: (i) => formatMoney(i.total, i.currency) },
                { header: 'Balance', align: 'end', cell: (i) => formatMoney(i.balance, i.currency) },
                { header: 'Status', cell: (i) => <Badge status={i.status} /> },
              ]}
            />
          </ReportSection>
          {paid.data ? <Paid paid={paid.data} /> : <Loading error={paid.error} what="the payments" />}
        </>
      ) : (
        <Loading error={report.error} what="the receivables" />
      )}
    </Page>
  );
}
