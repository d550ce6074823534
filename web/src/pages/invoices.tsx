import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { api, type Inputs, type Outputs } from '../api.ts';
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
type Filters = { status: StatusFilter; kind: KindFilter };
type Summary = Outputs['invoices']['list']['items'][number];

/** Invoices per page: a screenful or two; older ones follow with "Show more". */
export const INVOICES_PAGE = 50;

const oneOf = <V extends string>(options: readonly (readonly [V, string])[], value: string | null): V => options.find(([v]) => v === value)?.[0] ?? options[0]![0];

/** The filters, kept in the address (`?status=&kind=`) so a filtered list can be bookmarked or shared. */
function useFilters(): [Filters, (next: Filters) => void] {
  const [, navigate] = useLocation();
  const params = new URLSearchParams(useSearch());
  const filters = { status: oneOf(STATUS_FILTERS, params.get('status')), kind: oneOf(KIND_FILTERS, params.get('kind')) };
  const go = (next: Filters) => {
    const q = new URLSearchParams(Object.entries(next).filter(([, v]) => v));
    navigate(q.size ? `/invoicing?${q}` : '/invoicing');
  };
  return [filters, go];
}

/** Newest first, a page at a time: each next page continues after the last invoice shown (keyset, no gaps or repeats). */
function useInvoicePages({ status, kind }: Filters) {
  const input: Inputs['invoices']['list'] = {
    order: 'newest_first',
    limit: INVOICES_PAGE,
    ...(status === 'overdue' ? { overdue: true } : status ? { status } : {}),
    ...(kind && { kind }),
  };
  return useInfiniteQuery({
    queryKey: ['invoices.list', input],
    queryFn: ({ pageParam }) => api.invoices.list.query({ ...input, ...(pageParam && { cursor: pageParam }) }),
    initialPageParam: '',
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    // Another filter: the list shown stays until the new one arrives.
    placeholderData: keepPreviousData,
  });
}

/** After "Show more", focus moves to the first invoice it added, so keyboard and screen reader users continue there. */
function useFocusFirstAdded(count: number) {
  const shown = useRef(count);
  const wanted = useRef(false);
  useEffect(() => {
    if (wanted.current && count > shown.current) {
      document.querySelectorAll<HTMLAnchorElement>('a[data-invoice-link]')[shown.current]?.focus();
      wanted.current = false;
    }
    shown.current = count;
  }, [count]);
  return () => {
    wanted.current = true;
  };
}

function InvoiceTable({ rows, filtered }: { rows: Summary[]; filtered: boolean }) {
  const clients = useQuery({ queryKey: ['clients.list', { limit: 200 }], queryFn: () => api.clients.list.query({ limit: 200 }) });
  const clientName = (id: string) => clients.data?.items.find((c) => c.id === id)?.name ?? '';
  return (
    <Table
      caption="Invoices, newest first"
      captionHidden
      rows={rows}
      rowKey={(i) => i.id}
      empty={filtered ? 'Nothing matches these filters.' : 'No invoices yet.'}
      columns={[
        {
          header: 'Number',
          cell: (i) => (
            <Link href={`/invoicing/${i.id}`} data-invoice-link="">
              {i.number}
            </Link>
          ),
          className: 'wrap',
        },
        { header: 'Client', cell: (i) => clientName(i.client_id), className: 'wrap' },
        { header: 'Issued', cell: (i) => formatDate(i.issue_date) },
        // A credit note is due nothing (its stored due date is its issue date).
        { header: 'Due', cell: (i) => (i.kind === 'credit_note' ? '—' : formatDate(i.due_date)) },
        { header: 'Total', align: 'end', cell: (i) => formatMoney(i.total, i.currency) },
        { header: 'Balance due', align: 'end', cell: (i) => (i.balance_due > 0 ? formatMoney(i.balance_due, i.currency) : '—') },
        { header: 'Status', cell: (i) => <InvoiceStatus invoice={i} /> },
      ]}
    />
  );
}

export function InvoicesPage() {
  const [filters, go] = useFilters();
  const pages = useInvoicePages(filters);
  const rows = pages.data?.pages.flatMap((p) => p.items) ?? [];
  const focusAdded = useFocusFirstAdded(rows.length);
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
        <SelectField label="Status" className="inline" value={filters.status} options={STATUS_FILTERS} onChange={(status) => go({ ...filters, status })} />
        <SelectField label="Kind" className="inline" value={filters.kind} options={KIND_FILTERS} onChange={(kind) => go({ ...filters, kind })} />
      </div>
      {pages.data ? <InvoiceTable rows={rows} filtered={!!(filters.status || filters.kind)} /> : <Loading error={pages.error} what="the invoices" />}
      {pages.hasNextPage && (
        <div className="row more">
          <button
            type="button"
            className="button"
            disabled={pages.isFetchingNextPage}
            onClick={() => {
              focusAdded();
              void pages.fetchNextPage();
            }}
          >
            {pages.isFetchingNextPage ? 'Loading older invoices…' : 'Show more'}
          </button>
          <span className="muted" aria-live="polite">
            {rows.length} shown, newest first
          </span>
        </div>
      )}
    </Page>
  );
}
