import { useMutation, useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { api, apiError, type Inputs, type Outputs } from '../api.ts';
import { todayHere } from '../dates.ts';
import { formatHours, formatMoney } from '../format.ts';
import { useMe } from '../session.tsx';
import { Check, Field, FormError, formErrors } from '../ui/field.tsx';
import { Form, TextField } from '../ui/form.tsx';
import { useNotice } from '../ui/notice.tsx';
import { Loading, Page } from '../ui/page.tsx';
import { describeLine, emptyService, LinesFieldset, linesRequest, PreviewSection, TaxesFieldset, usePreview, type Entry, type Mode, type Service, type Tax } from './invoice-form.tsx';

type Compose = Outputs['invoices']['compose'];
type Draft = Outputs['reports']['invoiceDraft'];

function ChooseClient() {
  const [, navigate] = useLocation();
  const clients = useQuery({ queryKey: ['clients.list', { status: 'active', limit: 200 }], queryFn: () => api.clients.list.query({ status: 'active', limit: 200 }) });
  if (!clients.data) return <Loading error={clients.error} what="the clients" />;
  return (
    <div className="panel stack">
      <p>Who is the invoice for?</p>
      {clients.data.items.length === 0 && <p className="muted">There are no active clients yet.</p>}
      <ul className="plain">
        {clients.data.items.map((c) => (
          <li key={c.id}>
            <button type="button" className="button link" onClick={() => navigate(`/invoicing/new?client=${c.id}`)}>
              {c.name} <span className="muted">({c.currency})</span>
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * Started from the unbilled work report (`?draft=1&to=…[&project=…]`): the entries
 * `reports.invoiceDraft` says that line of the report bills, which the composer preselects.
 */
function DraftNote({ draft }: { draft: Draft }) {
  return (
    <p className="panel" role="status">
      From unbilled work: {draft.entries} {draft.entries === 1 ? 'entry' : 'entries'} ({formatHours(draft.hours)} h, {formatMoney(draft.amount, draft.currency)}) are selected.
      {draft.remaining_entries > 0 && ` ${draft.remaining_entries} more wait for the next invoice (one invoice bills at most 5,000 entries).`}
    </p>
  );
}

function Composer({ compose, preselect }: { compose: Compose; preselect: ReadonlySet<string> | null }) {
  const me = useMe();
  const notify = useNotice();
  const [, navigate] = useLocation();
  const [mode, setMode] = useState<Mode>(compose.unbilled.length > 0 ? 'time' : 'services');
  const [picked, setPicked] = useState<Set<string>>(() => new Set(compose.unbilled.filter((e) => preselect?.has(e.id) ?? true).map((e) => e.id)));
  const [services, setServices] = useState<Service[]>([emptyService()]);
  const [taxes, setTaxes] = useState<Tax[]>([]);
  const [number, setNumber] = useState(compose.next_number);
  const [issueDate, setIssueDate] = useState(todayHere());
  const [dueDate, setDueDate] = useState('');
  const [notes, setNotes] = useState('');
  const [send, setSend] = useState(compose.recipients.length > 0);
  const [recipients, setRecipients] = useState<Set<string>>(() => new Set(compose.recipients.map((r) => r.id)));
  const [attachPdf, setAttachPdf] = useState(true);
  const [payLink, setPayLink] = useState(true);

  // Started from unbilled work: the entries being billed come first (a stable sort keeps their order).
  const entries: Entry[] = useMemo(
    () => (preselect ? [...compose.unbilled].sort((a, b) => Number(preselect.has(b.id)) - Number(preselect.has(a.id))) : compose.unbilled),
    [compose.unbilled, preselect],
  );
  const lines = useMemo(() => linesRequest(mode, entries, picked, services, taxes), [mode, entries, picked, services, taxes]);
  const { preview, count, error: previewError, ready } = usePreview(compose.client.id, lines, true);

  const create = useMutation({
    mutationFn: () =>
      api.invoices.create.mutate({
        email: me.member.email,
        client_id: compose.client.id,
        number,
        total: preview.data?.total ?? 0,
        issue_date: issueDate,
        ...(dueDate ? { due_date: dueDate } : {}),
        notes,
        ...lines,
        include_payment_link: payLink,
        send_email: send,
        ...(send ? { invoice_details: { recipient_ids: [...recipients], attach_pdf_invoice: attachPdf ? 'true' : 'false' } } : {}),
      }),
    onSuccess: ({ invoice }) => {
      notify(`Invoice ${invoice.number} created${send ? ' and queued for sending' : ''}`);
      navigate(`/invoicing/${invoice.id}`);
    },
  });
  const errors = formErrors(create.error ? apiError(create.error) : null, ['number', 'issue_date', 'due_date', 'notes', 'invoice_time_entries', 'invoice_services', 'tax_details', 'invoice_details'], {
    invoice_number_taken: 'number',
  });
  const money = (n: number) => formatMoney(n, compose.client.currency);

  return (
    <Form className="stack" onSubmit={() => create.mutate()}>
      <LinesFieldset
        clientName={compose.client.name}
        currency={compose.client.currency}
        mode={mode}
        onMode={setMode}
        entries={entries}
        picked={picked}
        onPicked={setPicked}
        services={services}
        onServices={setServices}
        error={errors.field('invoice_time_entries') ?? errors.field('invoice_services')}
      />
      <TaxesFieldset taxes={taxes} onTaxes={setTaxes} error={errors.field('tax_details')} />
      <PreviewSection preview={preview.data} count={count} error={previewError} busy={preview.isFetching} describe={describeLine(entries)} />

      <fieldset className="panel grid-form">
        <legend>Invoice</legend>
        <FormError message={errors.form} />
        <TextField label="Number" error={errors.field('number')} value={number} onChange={setNumber} />
        <TextField label="Issue date" error={errors.field('issue_date')} type="date" value={issueDate} onChange={setIssueDate} />
        <TextField label="Due date" hint={`Empty: ${compose.client.default_invoice_due_in_days} days after issue`} error={errors.field('due_date')} type="date" value={dueDate} onChange={setDueDate} />
        <Field label="Notes on the invoice" className="span" error={errors.field('notes')}>
          {(p) => <textarea {...p} rows={2} value={notes} onChange={(e) => setNotes(e.target.value)} />}
        </Field>
        <div className="span">
          <Check label="Link to the invoice's page online" checked={payLink} onChange={setPayLink} />
        </div>
      </fieldset>

      <fieldset className="panel">
        <legend>Send</legend>
        {compose.recipients.length === 0 ? (
          <p className="muted">
            {compose.client.name} has no recipients; <Link href={`/clients/${compose.client.id}`}>add one</Link> to send invoices by e-mail.
          </p>
        ) : (
          <>
            <Check label="Send it by e-mail now" checked={send} onChange={setSend} />
            {send && (
              <div className="indent">
                {compose.recipients.map((r) => (
                  <Check
                    key={r.id}
                    label={`${r.name} <${r.email}>`}
                    checked={recipients.has(r.id)}
                    onChange={(on) => {
                      const next = new Set(recipients);
                      if (on) next.add(r.id);
                      else next.delete(r.id);
                      setRecipients(next);
                    }}
                  />
                ))}
                <Check label="Attach the PDF" checked={attachPdf} onChange={setAttachPdf} />
                <FormError message={errors.field('invoice_details')} />
              </div>
            )}
          </>
        )}
      </fieldset>

      <div className="row">
        <button className="button primary" type="submit" disabled={create.isPending || !ready}>
          {send ? 'Create and send' : 'Create invoice'}
          {preview.data && count > 0 ? ` · ${money(preview.data.total)}` : ''}
        </button>
        <Link className="button" href="/invoicing">
          Cancel
        </Link>
      </div>
    </Form>
  );
}

/** The draft the address asks for (`draft=1`, with `to` and optionally `project`), or null. */
function draftInput(params: URLSearchParams, clientId: string | null): Inputs['reports']['invoiceDraft'] | null {
  if (clientId === null || params.get('draft') !== '1') return null;
  const project = params.get('project');
  const to = params.get('to');
  return { client_id: clientId, ...(project ? { project_ids: [project] } : {}), ...(to ? { to } : {}) };
}

export function NewInvoicePage() {
  const params = new URLSearchParams(useSearch());
  const clientId = params.get('client');
  const fromDraft = draftInput(params, clientId);
  const compose = useQuery({
    queryKey: ['invoices.compose', clientId],
    queryFn: () => api.invoices.compose.query({ client_id: clientId! }),
    enabled: clientId !== null,
    staleTime: Infinity,
  });
  const draft = useQuery({
    queryKey: ['reports.invoiceDraft', fromDraft],
    queryFn: () => api.reports.invoiceDraft.query(fromDraft!),
    enabled: fromDraft !== null,
    staleTime: Infinity,
    retry: false,
  });
  const draftSettled = fromDraft === null || draft.data !== undefined || draft.error !== null;
  const preselect = useMemo(
    () => (draft.data ? new Set(draft.data.request.invoice_time_entries.map((l) => l.time_entry_id)) : fromDraft ? new Set<string>() : null),
    // eslint-disable-next-line react-hooks/exhaustive-deps -- fromDraft is rebuilt each render; its presence is what matters
    [draft.data, fromDraft !== null],
  );
  return (
    <Page title={compose.data ? `New invoice for ${compose.data.client.name}` : 'New invoice'}>
      {clientId === null ? (
        <ChooseClient />
      ) : compose.data && draftSettled ? (
        <>
          {draft.data && <DraftNote draft={draft.data} />}
          {draft.error && <FormError message={apiError(draft.error).message} />}
          <Composer compose={compose.data} preselect={preselect} />
        </>
      ) : (
        <Loading error={compose.error} what="the client's unbilled work" />
      )}
    </Page>
  );
}
