import { useQuery } from '@tanstack/react-query';
import { Link, useLocation, useSearch } from 'wouter';
import { api } from '../api.ts';
import { formatDate, formatMoney } from '../format.ts';
import { Badge } from '../ui/badge.tsx';
import { Field } from '../ui/field.tsx';
import { Loading, Page } from '../ui/page.tsx';
import { Table } from '../ui/table.tsx';

export const INVOICE_STATUSES = ['draft', 'sending', 'sent', 'partially_paid', 'paid', 'void'] as const;
type Status = (typeof INVOICE_STATUSES)[number];

export function InvoicesPage() {
  const [, navigate] = useLocation();
  const status = (new URLSearchParams(useSearch()).get('status') ?? '') as Status | '';
  const input = { limit: 200, ...(status ? { status } : {}) };
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
        <Field label="Status" className="inline">
          {(p) => (
            <select {...p} value={status} onChange={(e) => navigate(e.target.value ? `/invoicing?status=${e.target.value}` : '/invoicing')}>
              <option value="">All</option>
              {INVOICE_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s === 'partially_paid' ? 'Partly paid' : s[0]!.toUpperCase() + s.slice(1)}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      {invoices.data ? (
        <Table
          caption="Invoices"
          captionHidden
          rows={rows}
          rowKey={(i) => i.id}
          empty={status ? 'No invoices with this status.' : 'No invoices yet.'}
          columns={[
            { header: 'Number', cell: (i) => <Link href={`/invoicing/${i.id}`}>{i.number}</Link> },
            { header: 'Client', cell: (i) => clientName(i.client_id) },
            { header: 'Issued', cell: (i) => formatDate(i.issue_date) },
            { header: 'Due', cell: (i) => formatDate(i.due_date) },
            { header: 'Total', align: 'end', cell: (i) => formatMoney(i.total, i.currency) },
            { header: 'Status', cell: (i) => <Badge status={i.status} /> },
          ]}
        />
      ) : (
        <Loading error={invoices.error} what="the invoices" />
      )}
    </Page>
  );
}
