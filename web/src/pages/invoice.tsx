import { useMutation, useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'wouter';
import { api, apiError } from '../api.ts';
import { formatDate, formatDateTime, formatMoney } from '../format.ts';
import { useMe } from '../session.tsx';
import { Badge } from '../ui/badge.tsx';
import { FormError } from '../ui/field.tsx';
import { InvoiceLines } from '../ui/invoice-lines.tsx';
import { useNotice } from '../ui/notice.tsx';
import { Loading, Page } from '../ui/page.tsx';
import { Table } from '../ui/table.tsx';

/** Saves the PDF the server rendered (base64 over tRPC) under its own file name. */
function download(pdf: { filename: string; base64: string }) {
  const bytes = Uint8Array.from(atob(pdf.base64), (c) => c.charCodeAt(0));
  const url = URL.createObjectURL(new Blob([bytes], { type: 'application/pdf' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = pdf.filename;
  document.body.append(a);
  a.click();
  a.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function InvoicePage() {
  const me = useMe();
  const notify = useNotice();
  const { id = '' } = useParams<{ id: string }>();
  const invoice = useQuery({ queryKey: ['invoices.view', id], queryFn: () => api.invoices.view.query({ invoice_id: id }) });
  const deliveries = useQuery({
    queryKey: ['invoices.deliveries', id],
    queryFn: () => api.invoices.deliveries.query({ invoice_id: id }),
    // While mail is on its way, look again now and then.
    refetchInterval: (q) => (q.state.data?.items.some((d) => d.status === 'pending') ? 3000 : false),
  });
  const pdf = useMutation({ mutationFn: () => api.invoices.pdf.query({ invoice_id: id }), onSuccess: download });
  const paid = useMutation({ mutationFn: () => api.invoices.markPaid.mutate({ email: me.member.email, invoice_id: id }), onSuccess: () => notify('Marked as paid') });
  const voided = useMutation({ mutationFn: () => api.invoices.void.mutate({ email: me.member.email, invoice_id: id }), onSuccess: () => notify('Invoice voided; its time is unbilled again') });
  if (!invoice.data) return <Page title="Invoice"><Loading error={invoice.error} what="the invoice" /></Page>;
  const inv = invoice.data.invoice;
  const details = invoice.data.line_details;
  const describe = (i: number) => {
    const d = details[i];
    if (!d) return '';
    const what = [d.date && formatDate(d.date), d.project_name, d.task_name, d.person_name].filter(Boolean).join(' · ');
    return [what, d.notes].filter(Boolean).join(' — ') || 'Service';
  };
  const money = (n: number) => formatMoney(n, inv.currency);
  const open = inv.status !== 'paid' && inv.status !== 'void';
  const failed = pdf.error ?? paid.error ?? voided.error;
  return (
    <Page title={`Invoice ${inv.number}`} actions={<Badge status={inv.status} />}>
      <p>
        <Link href="/invoicing">← All invoices</Link> · <Link href={`/clients/${inv.client_id}`}>{invoice.data.client_name}</Link>
      </p>
      <div className="row actions-bar">
        <button type="button" className="button" onClick={() => pdf.mutate()} disabled={pdf.isPending}>
          {pdf.isPending ? 'Preparing PDF…' : 'Download PDF'}
        </button>
        <a className="button" href={inv.public_url} target="_blank" rel="noreferrer">
          Open the public page<span className="visually-hidden"> (new tab)</span>
        </a>
        {open && (
          <button type="button" className="button primary" onClick={() => paid.mutate()} disabled={paid.isPending}>
            Mark as paid
          </button>
        )}
        {open && (
          <button type="button" className="button danger" onClick={() => window.confirm(`Void invoice ${inv.number}? Its time entries become unbilled again.`) && voided.mutate()} disabled={voided.isPending}>
            Void
          </button>
        )}
      </div>
      <FormError message={failed ? apiError(failed).message : null} />
      <dl className="facts panel">
        <div>
          <dt>Issued</dt>
          <dd>{formatDate(inv.issue_date)}</dd>
        </div>
        <div>
          <dt>Due</dt>
          <dd>{formatDate(inv.due_date)}</dd>
        </div>
        <div>
          <dt>Total</dt>
          <dd>{money(inv.total)}</dd>
        </div>
        {inv.sent_at && (
          <div>
            <dt>Sent</dt>
            <dd>{formatDateTime(inv.sent_at)}</dd>
          </div>
        )}
        {inv.paid_at && (
          <div>
            <dt>Paid</dt>
            <dd>{formatDateTime(inv.paid_at)}</dd>
          </div>
        )}
        {inv.voided_at && (
          <div>
            <dt>Voided</dt>
            <dd>{formatDateTime(inv.voided_at)}</dd>
          </div>
        )}
      </dl>
      <section className="panel" aria-labelledby="lines">
        <h2 id="lines">Lines</h2>
        <InvoiceLines
          caption="Lines"
          lines={inv.lines.map((l, i) => ({ key: l.id, description: describe(i), hours: l.hours, quantity: l.quantity, rate: l.hourly_rate ?? l.unit_amount ?? 0, amount: l.amount }))}
          totals={{ currency: inv.currency, subtotal: inv.subtotal, taxes: inv.taxes.filter((t) => t.selected), total: inv.total }}
        />
      </section>
      <section className="panel" aria-labelledby="mail">
        <h2 id="mail">E-mail</h2>
        {deliveries.data ? (
          <Table
            caption="Messages"
            captionHidden
            rows={deliveries.data.items}
            rowKey={(d) => d.id}
            empty="This invoice was not sent by e-mail."
            columns={[
              { header: 'To', cell: (d) => (d.to_name ? `${d.to_name} <${d.to_address}>` : d.to_address) },
              { header: 'Status', cell: (d) => <Badge status={d.status} /> },
              { header: 'Sent', cell: (d) => (d.sent_at ? formatDateTime(d.sent_at) : d.last_error ? `Retrying: ${d.last_error}` : '—') },
            ]}
          />
        ) : (
          <Loading error={deliveries.error} what="the messages" />
        )}
      </section>
    </Page>
  );
}
