import { useQuery } from '@tanstack/react-query';
import { Link, useLocation, useSearch } from 'wouter';
import { api, type Inputs } from '../api.ts';
import { formatDate, formatMoney } from '../format.ts';
import { InvoiceStatus } from '../ui/badge.tsx';
import { SelectField } from '../ui/form.tsx';
import { Loading, Page } from '../ui/page.tsx';
import { Table } from '../ui/table.tsx';

/** The status filter: the statuses, and overdue (derived: a balance due after the due date). */
const STATUS_FILTERS = [
  ['', 'All'],
  ['draft', 'Draft'],
  ['sending', 'Sending'],
  ['sent', 'Sent'],
  ['partially_paid', 'Partly paid'],
  ['overdue', 'Overdue'],
  ['paid', 'Paid'],
  ['void', 'Void'],
] as const;
const KIND_FILTERS = [
  ['', 'Invoices and credit notes'],
  ['invoice', 'Invoices'],
  ['credit_note', 'Credit notes'],
] as const;
type StatusFilter = (typeof STATUS_FILTERS)[number][0];
type KindFilter = (typeof KIND_FILTERS)[number][0];

const oneOf = <V extends string>(options: readonly (readonly [V, string])[], value: string | null): V => options.find(([v]) => v === value)?.[0] ?? options[0]![0];

export function InvoicesPage() {
  const [, navigate] = useLocation();
  const params = new URLSearchParams(useSearch());
  const status = oneOf(STATUS_FILTERS, params.get('status'));
  const kind = oneOf(KIND_FILTERS, params.get('kind'));
  const go = (next: { status: StatusFilter; kind: KindFilter }) => {
    const q = new URLSearchParams(Object.entries(next).filter(([, v]) => v));
    navigate(q.size ? `/invoicing?${q}` : '/invoicing');
  };
  const input: Inputs['invoices']['list'] = { limit: 200, ...(status === 'overdue' ? { overdue: true } : status ? { status } : {}), ...(kind && { kind }) };
  const invoices = useQuery({ queryKey: ['invoices.list', input], queryFn: () => api.invoices.list.query(input), placeholderData: (previous) => previous });
  const clients = useQuery({ queryKey: ['clients.list', { limit: 200 }], queryFn: () => api.clients.list.query({ limit: 200 }) });
  const clientName = (id: string) => clients.data?.items.find((c) => c.id === id)?.name ?? '';
  // Newest first: the list is kept in creation order.
  const rows = [...(invoices.data?.items ?? [])].reverse();
  return (
    <Page
      title="Invoices"
      actions={
        <Link className="button primary" href="/invoicing/new">
          New invoice
        </Link>
      }
    >
      <div className="toolbar">
        <SelectField label="Status" className="inline" value={status} options={STATUS_FILTERS} onChange={(s) => go({ status: s, kind })} />
        <SelectField label="Kind" className="inline" value={kind} options={KIND_FILTERS} onChange={(k) => go({ status, kind: k })} />
      </div>
      {invoices.data ? (
        <Table
          caption="Invoices"
          captionHidden
          rows={rows}
          rowKey={(i) => i.id}
          empty={status || kind ? 'Nothing matches these filters.' : 'No invoices yet.'}
          columns={[
            { header: 'Number', cell: (i) => <Link href={`/invoicing/${i.id}`}>{i.number}</Link>, className: 'wrap' },
            { header: 'Client', cell: (i) => clientName(i.client_id), className: 'wrap' },
            { header: 'Issued', cell: (i) => formatDate(i.issue_date) },
            { header: 'Due', cell: (i) => formatDate(i.due_date) },
            { header: 'Total', align: 'end', cell: (i) => formatMoney(i.total, i.currency) },
            { header: 'Balance due', align: 'end', cell: (i) => (i.balance_due > 0 ? formatMoney(i.balance_due, i.currency) : '—') },
            { header: 'Status', cell: (i) => <InvoiceStatus invoice={i} /> },
          ]}
        />
      ) : (
        <Loading error={invoices.error} what="the invoices" />
      )}
    </Page>
  );
}
