import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { api, apiError, type Inputs, type Outputs } from '../api.ts';
import { todayHere } from '../dates.ts';
import { formatDate, formatHours, formatMoney } from '../format.ts';
import { useMe } from '../session.tsx';
import { Check, Field, FormError, formErrors } from '../ui/field.tsx';
import { TextField } from '../ui/form.tsx';
import { useDebounced } from '../ui/hooks.ts';
import { useNotice } from '../ui/notice.tsx';
import { Loading, Page } from '../ui/page.tsx';
import { InvoiceLines } from '../ui/invoice-lines.tsx';

type Compose = Outputs['invoices']['compose'];
type Preview = Outputs['invoices']['preview'];
type Draft = Outputs['reports']['invoiceDraft'];
type Service = { notes: string; quantity: string; unit_amount: string };
type Tax = { name: string; percentage: string };

const num = (text: string) => Number(text.trim().replace(',', '.'));

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

/** The lines, taxes and total as the server prices them: what creating the invoice will charge. */
function PreviewTable({ preview, compose }: { preview: Preview; compose: Compose }) {
  const describe = (id: string | null, notes: string) => {
    const e = compose.unbilled.find((x) => x.id === id);
    return e ? `${formatDate(e.recorded_on)} · ${e.project_name} · ${e.task_name} · ${e.user_name}` : notes || 'Service';
  };
  return (
    <InvoiceLines
      caption="Invoice preview"
      lines={preview.lines.map((l, i) => ({ key: String(i), description: describe(l.time_entry_id, l.notes), hours: l.hours, quantity: l.quantity, rate: l.hourly_rate ?? l.unit_amount ?? 0, amount: l.amount }))}
      totals={preview}
    />
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
  const [mode, setMode] = useState<'time' | 'services'>(compose.unbilled.length > 0 ? 'time' : 'services');
  const [picked, setPicked] = useState<Set<string>>(() => new Set(compose.unbilled.filter((e) => preselect?.has(e.id) ?? true).map((e) => e.id)));
  // Started from unbilled work: the entries being billed come first (a stable sort keeps their order).
  const listed = preselect ? [...compose.unbilled].sort((a, b) => Number(preselect.has(b.id)) - Number(preselect.has(a.id))) : compose.unbilled;
  const [services, setServices] = useState<Service[]>([{ notes: '', quantity: '1', unit_amount: '' }]);
  const [taxes, setTaxes] = useState<Tax[]>([]);
  const [number, setNumber] = useState(compose.next_number);
  const [issueDate, setIssueDate] = useState(todayHere());
  const [dueDate, setDueDate] = useState('');
  const [notes, setNotes] = useState('');
  const [send, setSend] = useState(compose.recipients.length > 0);
  const [recipients, setRecipients] = useState<Set<string>>(() => new Set(compose.recipients.map((r) => r.id)));
  const [attachPdf, setAttachPdf] = useState(true);
  const [payLink, setPayLink] = useState(true);

  const lines = useMemo(() => {
    const tax_details = taxes.filter((t) => t.name.trim()).map((t) => ({ name: t.name, percentage: num(t.percentage), selected: true }));
    if (mode === 'time') {
      const entries = compose.unbilled.filter((e) => picked.has(e.id)).map((e) => ({ time_entry_id: e.id, project_id: e.project_id, task_id: e.task_id, user_id: e.user_id }));
      return { invoice_time_entries: entries, tax_details };
    }
    const rows = services.filter((s) => s.notes.trim() || s.unit_amount.trim()).map((s) => ({ notes: s.notes, quantity: num(s.quantity), unit_amount: num(s.unit_amount) }));
    return { invoice_services: rows, tax_details };
  }, [mode, picked, services, taxes, compose.unbilled]);
  const settled = useDebounced(lines, 300);
  const lineCount = (settled.invoice_time_entries ?? settled.invoice_services ?? []).length;
  const previewInput: Inputs['invoices']['preview'] = { client_id: compose.client.id, ...settled };
  const preview = useQuery({
    queryKey: ['invoices.preview', previewInput],
    queryFn: () => api.invoices.preview.query(previewInput),
    enabled: lineCount > 0,
    placeholderData: keepPreviousData,
    retry: false,
  });

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
  const previewError = preview.error ? apiError(preview.error) : null;
  const money = (n: number) => formatMoney(n, compose.client.currency);

  return (
    <form
      className="stack"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate();
      }}
    >
      <fieldset className="panel">
        <legend>What to bill</legend>
        <div className="row" role="radiogroup" aria-label="Lines">
          <label className="radio">
            <input type="radio" name="mode" checked={mode === 'time'} onChange={() => setMode('time')} /> Unbilled time ({compose.unbilled.length} entries)
          </label>
          <label className="radio">
            <input type="radio" name="mode" checked={mode === 'services'} onChange={() => setMode('services')} /> Service lines
          </label>
        </div>
        {mode === 'time' ? (
          compose.unbilled.length === 0 ? (
            <p className="muted">{compose.client.name} has no approved, unbilled billable time.</p>
          ) : (
            <>
              <Check label="All entries" checked={picked.size === compose.unbilled.length} onChange={(on) => setPicked(new Set(on ? compose.unbilled.map((e) => e.id) : []))} />
              <ul className="plain entries pick">
                {listed.map((e) => (
                  <li key={e.id}>
                    <Check
                      label={
                        <>
                          <span className="entry-hours">{formatHours(e.hours)}</span> {formatDate(e.recorded_on)} · {e.project_name} · {e.task_name} · {e.user_name}
                          {e.notes && <span className="muted"> — {e.notes}</span>}
                        </>
                      }
                      checked={picked.has(e.id)}
                      onChange={(on) => {
                        const next = new Set(picked);
                        if (on) next.add(e.id);
                        else next.delete(e.id);
                        setPicked(next);
                      }}
                    />
                  </li>
                ))}
              </ul>
            </>
          )
        ) : (
          <ul className="plain rows">
            {services.map((s, i) => (
              <li key={i} className="inline-form">
                <Field label={`Description ${i + 1}`}>{(p) => <input {...p} value={s.notes} onChange={(e) => setServices(services.map((x, j) => (j === i ? { ...x, notes: e.target.value } : x)))} />}</Field>
                <Field label="Quantity">{(p) => <input {...p} inputMode="decimal" value={s.quantity} onChange={(e) => setServices(services.map((x, j) => (j === i ? { ...x, quantity: e.target.value } : x)))} />}</Field>
                <Field label={`Unit price (${compose.client.currency})`}>
                  {(p) => <input {...p} inputMode="decimal" value={s.unit_amount} onChange={(e) => setServices(services.map((x, j) => (j === i ? { ...x, unit_amount: e.target.value } : x)))} />}
                </Field>
              </li>
            ))}
            <li>
              <button type="button" className="button" onClick={() => setServices([...services, { notes: '', quantity: '1', unit_amount: '' }])}>
                Add a line
              </button>
            </li>
          </ul>
        )}
        <FormError message={errors.field('invoice_time_entries') ?? errors.field('invoice_services')} />
      </fieldset>

      <fieldset className="panel">
        <legend>Taxes</legend>
        <ul className="plain rows">
          {taxes.map((t, i) => (
            <li key={i} className="inline-form">
              <Field label={`Tax ${i + 1}`}>{(p) => <input {...p} value={t.name} onChange={(e) => setTaxes(taxes.map((x, j) => (j === i ? { ...x, name: e.target.value } : x)))} />}</Field>
              <Field label="Percent">{(p) => <input {...p} inputMode="decimal" value={t.percentage} onChange={(e) => setTaxes(taxes.map((x, j) => (j === i ? { ...x, percentage: e.target.value } : x)))} />}</Field>
              <button type="button" className="button" onClick={() => setTaxes(taxes.filter((_, j) => j !== i))}>
                Remove<span className="visually-hidden"> tax {i + 1}</span>
              </button>
            </li>
          ))}
        </ul>
        <button type="button" className="button" onClick={() => setTaxes([...taxes, { name: 'VAT', percentage: '19' }])}>
          Add a tax
        </button>
        <FormError message={errors.field('tax_details')} />
      </fieldset>

      <section className="panel" aria-labelledby="preview-title" aria-busy={preview.isFetching}>
        <h2 id="preview-title">Preview</h2>
        {lineCount === 0 ? <p className="muted">Pick entries or add a line to see the invoice.</p> : null}
        {previewError && (
          <p className="form-error" role="alert">
            {previewError.details[0] ? `${previewError.details[0].path}: ${previewError.details[0].message}` : previewError.message}
          </p>
        )}
        {preview.data && lineCount > 0 && <PreviewTable preview={preview.data} compose={compose} />}
      </section>

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
        <button className="button primary" type="submit" disabled={create.isPending || !preview.data || lineCount === 0 || preview.isFetching || previewError !== null}>
          {send ? 'Create and send' : 'Create invoice'}
          {preview.data && lineCount > 0 ? ` · ${money(preview.data.total)}` : ''}
        </button>
        <Link className="button" href="/invoicing">
          Cancel
        </Link>
      </div>
    </form>
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
  const preselect = draft.data ? new Set(draft.data.request.invoice_time_entries.map((l) => l.time_entry_id)) : fromDraft ? new Set<string>() : null;
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
