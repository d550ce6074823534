import { useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Link, useLocation, useParams } from 'wouter';
import { api, apiError } from '../api.ts';
import { formatDate, formatDateTime, formatMinor, formatMoney } from '../format.ts';
import { useMe } from '../session.tsx';
import { Badge, InvoiceStatus } from '../ui/badge.tsx';
import { FormError } from '../ui/field.tsx';
import { focusWhenShown } from '../ui/hooks.ts';
import { chargedPrice, InvoiceLines } from '../ui/invoice-lines.tsx';
import { useNotice } from '../ui/notice.tsx';
import { Loading, Page } from '../ui/page.tsx';
import { Table, type Column } from '../ui/table.tsx';
import { describeDetail } from './invoice-form.tsx';
import { PAYMENT_METHODS, RecordPaymentDialog, SendDialog, VoidDialog, type View } from './invoice-dialogs.tsx';

type Invoice = View['invoice'];
type Payment = View['payments']['items'][number];
type Open = 'payment' | 'send' | 'resend' | 'void' | null;

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

const ISSUED_UNPAID = ['sending', 'sent', 'partially_paid'];
const methodName = (m: string) => PAYMENT_METHODS.find(([v]) => v === m)?.[1] ?? m;
/** An invoice's messages to the client: while one is pending, the invoice waits for it (docs/invoices.md). */
const CLIENT_MAIL_KINDS = ['invoice', 'invoice_resend'];

/** The server's prefix of a message it cancelled (docs/invoices.md, Mail). */
const CANCELLED = 'cancelled:';

/**
 * When a message went, or why it has not: only a pending one is retried; a failed one was cancelled
 * (the invoice voided, the recipient deleted, …) or given up after its last attempt.
 */
function deliveryNote(d: { status: string; sent_at: string | null; last_error: string | null }): string {
  if (d.sent_at) return formatDateTime(d.sent_at);
  if (!d.last_error) return '—';
  if (d.status === 'pending') return `Retrying: ${d.last_error}`;
  if (d.last_error.startsWith(CANCELLED)) return `Cancelled: ${d.last_error.slice(CANCELLED.length).trim()}`;
  return `Gave up: ${d.last_error}`;
}

const docName = (i: { kind: string; number: string }) => `${i.kind === 'credit_note' ? 'Credit note' : 'Invoice'} ${i.number}`;

/** What the actions bar does itself (the dialogs are the page's): download the PDF, mark as sent, delete a draft. */
function useInvoiceActions(inv: Invoice) {
  const me = useMe();
  const notify = useNotice();
  const [, navigate] = useLocation();
  const pdf = useMutation({ mutationFn: () => api.invoices.pdf.query({ invoice_id: inv.id }), onSuccess: download });
  const markSent = useMutation({
    mutationFn: () => api.invoices.markSent.mutate({ email: me.member.email, invoice_id: inv.id }),
    onSuccess: () => {
      notify(`${inv.number} marked as sent`);
      focusWhenShown('invoice-title');
    },
  });
  const remove = useMutation({
    mutationFn: () => api.invoices.delete.mutate({ email: me.member.email, invoice_id: inv.id }),
    onSuccess: () => {
      notify(`Draft ${inv.number} deleted; its time is unbilled again`);
      navigate('/invoicing');
    },
  });
  return { pdf, markSent, remove, failed: pdf.error ?? markSent.error ?? remove.error };
}
type InvoiceActions = ReturnType<typeof useInvoiceActions>;

/** A draft's own buttons: send, and for an invoice (not a credit note) edit and mark as sent. */
function draftButtons(inv: Invoice, open: (what: Open) => void, { markSent }: InvoiceActions): ReactNode[] {
  const buttons: ReactNode[] = [
    <button key="send" type="button" className="button primary" onClick={() => open('send')}>
      Send now
    </button>,
  ];
  if (inv.kind === 'invoice') {
    buttons.push(
      <Link key="edit" className="button" href={`/invoicing/${inv.id}/edit`}>
        Edit
      </Link>,
      <button key="mark" type="button" className="button" disabled={markSent.isPending} onClick={() => markSent.mutate()}>
        Mark as sent
      </button>,
    );
  }
  return buttons;
}

/**
 * The buttons an invoice's state allows: a draft is edited, sent or deleted; an issued one is paid,
 * resent or voided. One left `sending` because its e-mail gave up without reaching the client
 * (`mailGaveUp`) can be marked sent: the agency delivered it another way.
 */
function ActionsBar({ view, open, mailGaveUp }: { view: View; open: (what: Open) => void; mailGaveUp: boolean }) {
  const inv = view.invoice;
  const actions = useInvoiceActions(inv);
  const { pdf, remove } = actions;
  const isInvoice = inv.kind === 'invoice';
  const draft = inv.status === 'draft';
  const buttons: ReactNode[] = [];
  if (isInvoice && ISSUED_UNPAID.includes(inv.status)) {
    buttons.push(
      <button key="pay" type="button" className="button primary" onClick={() => open('payment')}>
        Record a payment
      </button>,
    );
  }
  if (draft) buttons.push(...draftButtons(inv, open, actions));
  if (isInvoice && mailGaveUp) {
    buttons.push(
      <button key="mark" type="button" className="button" disabled={actions.markSent.isPending} onClick={() => actions.markSent.mutate()}>
        Mark as sent
      </button>,
    );
  }
  if (!draft && inv.status !== 'void') {
    buttons.push(
      <button key="resend" type="button" className="button" onClick={() => open('resend')}>
        Send again
      </button>,
    );
  }
  buttons.push(
    <button key="pdf" type="button" className="button" onClick={() => pdf.mutate()} disabled={pdf.isPending}>
      {pdf.isPending ? 'Preparing PDF…' : 'Download PDF'}
    </button>,
    <a key="public" className="button" href={inv.public_url} target="_blank" rel="noreferrer">
      Open the public page<span className="visually-hidden"> (new tab)</span>
    </a>,
  );
  if (isInvoice && (draft || ISSUED_UNPAID.includes(inv.status))) {
    buttons.push(
      <button key="void" type="button" className="button danger" onClick={() => open('void')}>
        Void
      </button>,
    );
  }
  if (isInvoice && draft) {
    buttons.push(
      <button key="delete" type="button" className="button danger" disabled={remove.isPending} onClick={() => window.confirm(`Delete draft ${inv.number}? Its time entries become unbilled again.`) && remove.mutate()}>
        Delete draft
      </button>,
    );
  }
  return (
    <>
      <div className="row actions-bar">{buttons}</div>
      <FormError message={actions.failed ? apiError(actions.failed).message : null} />
    </>
  );
}

function Facts({ inv }: { inv: Invoice }) {
  const money = (n: number) => formatMoney(n, inv.currency);
  const facts: [string, ReactNode][] = [['Issued', formatDate(inv.issue_date)]];
  // A credit note is owed nothing: no due date.
  if (inv.kind === 'invoice') facts.push(['Due', formatDate(inv.due_date)]);
  facts.push(['Total', money(inv.total)]);
  if (inv.kind === 'invoice' && inv.status !== 'draft') {
    facts.push(['Paid', money(inv.amount_paid)], ['Balance due', <strong key="b" className={inv.overdue ? 'overdue' : undefined}>{money(inv.balance_due)}</strong>]);
  }
  if (inv.sent_at) facts.push(['Sent', formatDateTime(inv.sent_at)]);
  if (inv.paid_at) facts.push(['Paid in full', formatDateTime(inv.paid_at)]);
  if (inv.voided_at) facts.push(['Voided', formatDateTime(inv.voided_at)]);
  return (
    <dl className="facts panel">
      {facts.map(([dt, dd]) => (
        <div key={dt}>
          <dt>{dt}</dt>
          <dd>{dd}</dd>
        </div>
      ))}
    </dl>
  );
}

/** What cancels this invoice, or what this credit note cancels, as a link both ways. */
function Related({ view }: { view: View }) {
  const { invoice: inv, related } = view;
  if (!related) {
    return inv.status === 'void' && inv.kind === 'invoice' ? <p className="muted">Voided as a draft: nothing was issued, so no credit note.</p> : null;
  }
  return (
    <p className="panel related">
      {inv.kind === 'credit_note' ? 'This credit note cancels ' : 'Cancelled by '}
      <Link id="related-link" href={`/invoicing/${related.id}`}>
        {docName(related)}
      </Link>{' '}
      of {formatDate(related.issue_date)} ({formatMoney(related.total, related.currency)}).
    </p>
  );
}

function Payments({ view }: { view: View }) {
  const me = useMe();
  const notify = useNotice();
  const inv = view.invoice;
  const { items, unapplied_card_payments: unapplied } = view.payments;
  const remove = useMutation({
    mutationFn: (payment_id: string) => api.invoices.deletePayment.mutate({ email: me.member.email, payment_id }),
    onSuccess: ({ invoice }) => {
      notify(`Payment deleted; ${formatMoney(invoice.balance_due, invoice.currency)} due`);
      focusWhenShown('payments-title');
    },
  });
  if (inv.kind !== 'invoice' || (inv.status === 'draft' && items.length === 0)) return null;
  const money = (n: number) => formatMoney(n, inv.currency);
  const actions: Column<Payment> = {
    header: <span className="visually-hidden">Actions</span>,
    label: 'Actions',
    cell: (p) =>
      p.source === 'manual' ? (
        <button type="button" className="button small danger" disabled={remove.isPending} onClick={() => window.confirm(`Delete the payment of ${money(p.amount)} of ${formatDate(p.paid_on)}?`) && remove.mutate(p.id)}>
          Delete<span className="visually-hidden"> the payment of {money(p.amount)} of {formatDate(p.paid_on)}</span>
        </button>
      ) : null,
  };
  return (
    <section className="panel" aria-labelledby="payments-title">
      <h2 id="payments-title" tabIndex={-1}>
        Payments
      </h2>
      <Table
        caption="Payments"
        captionHidden
        rows={items}
        rowKey={(p) => p.id}
        empty="No payment recorded yet."
        columns={[
          { header: 'Paid on', cell: (p) => formatDate(p.paid_on) },
          { header: 'Amount', align: 'end', cell: (p) => money(p.amount) },
          { header: 'Method', cell: (p) => (p.source === 'card_processor' ? 'Card (online)' : methodName(p.method)) },
          { header: 'Note or reference', cell: (p) => p.reference || '—', className: 'wrap' },
          // A void invoice's payments stay listed (the money to give back) and cannot be deleted.
          ...(inv.status === 'void' ? [] : [actions]),
        ]}
      />
      <FormError message={remove.error ? apiError(remove.error).message : null} />
      {unapplied.length > 0 && (
        <div className="form-error" role="note">
          <p>Card payments the processor collected that were not recorded (refund them with the processor, or record them by hand):</p>
          <ul>
            {unapplied.map((u) => (
              <li key={u.event_id}>
                {formatDateTime(u.received_at)}: {u.amount_minor !== null && u.currency ? formatMinor(u.amount_minor, u.currency) : 'amount unknown'} — {u.reason}
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}

export function InvoicePage() {
  const { id = '' } = useParams<{ id: string }>();
  const [open, setOpen] = useState<Open>(null);
  const deliveries = useQuery({
    queryKey: ['invoices.deliveries', id],
    queryFn: () => api.invoices.deliveries.query({ invoice_id: id }),
    // While mail is on its way, look again now and then.
    refetchInterval: (q) => (q.state.data?.items.some((d) => d.status === 'pending') ? 3000 : false),
  });
  // Unknown until the deliveries are read: taken as on its way.
  const clientMailPending = deliveries.data?.items.some((d) => CLIENT_MAIL_KINDS.includes(d.kind) && d.status === 'pending') ?? true;
  const view = useQuery({
    queryKey: ['invoices.view', id],
    queryFn: () => api.invoices.view.query({ invoice_id: id }),
    // Sending: it becomes sent (or a draft again) when its mail to the client settles; one whose
    // mail gave up stays sending, and is not asked for again and again.
    refetchInterval: (q) => (q.state.data?.invoice.status === 'sending' && clientMailPending ? 3000 : false),
  });
  const { refetch: refetchView } = view;
  const wasPending = useRef<boolean | null>(null);
  // The last client message settled (pending before, not now): the invoice's status was settled
  // with it in one transaction, so it is read once more.
  useEffect(() => {
    if (!deliveries.data) return;
    if (wasPending.current === true && !clientMailPending) void refetchView();
    wasPending.current = clientMailPending;
  }, [clientMailPending, deliveries.data, refetchView]);
  if (!view.data) {
    return (
      <Page title="Invoice">
        <Loading error={view.error} what="the invoice" />
      </Page>
    );
  }
  const v = view.data;
  const inv = v.invoice;
  const close = () => setOpen(null);
  return (
    <Page title={docName(inv)} titleId="invoice-title" actions={<InvoiceStatus invoice={inv} />}>
      <p className="crumbs">
        <Link href="/invoicing">← All invoices</Link> · <Link href={`/clients/${inv.client_id}`}>{v.client_name}</Link>
      </p>
      <ActionsBar view={v} open={setOpen} mailGaveUp={inv.status === 'sending' && !clientMailPending} />
      <Related view={v} />
      <Facts inv={inv} />
      <Payments view={v} />
      <section className="panel" aria-labelledby="lines">
        <h2 id="lines">Lines</h2>
        <InvoiceLines
          caption="Lines"
          lines={inv.lines.map((l, i) => ({ key: l.id, description: describeDetail(v.line_details[i]), hours: l.hours, quantity: l.quantity, rate: chargedPrice(l), amount: l.amount }))}
          totals={{ currency: inv.currency, subtotal: inv.subtotal, taxes: inv.taxes.filter((t) => t.selected), total: inv.total }}
        />
        {inv.notes && <p className="notes" dir="auto">{inv.notes}</p>}
      </section>
      <section className="panel" aria-labelledby="mail-title">
        <h2 id="mail-title" tabIndex={-1}>
          E-mail
        </h2>
        {deliveries.data ? (
          <Table
            caption="Messages"
            captionHidden
            rows={deliveries.data.items}
            rowKey={(d) => d.id}
            empty="Nothing sent by e-mail yet."
            columns={[
              { header: 'To', cell: (d) => (d.to_name ? `${d.to_name} <${d.to_address}>` : d.to_address), className: 'wrap' },
              { header: 'Status', cell: (d) => <Badge status={d.status} /> },
              { header: 'Sent', cell: deliveryNote },
            ]}
          />
        ) : (
          <Loading error={deliveries.error} what="the messages" />
        )}
      </section>
      {open === 'payment' && <RecordPaymentDialog invoice={inv} onClose={close} />}
      {(open === 'send' || open === 'resend') && <SendDialog view={v} again={open === 'resend'} onClose={close} />}
      {open === 'void' && <VoidDialog invoice={inv} onClose={close} />}
    </Page>
  );
}
