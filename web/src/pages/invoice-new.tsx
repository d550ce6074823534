import { useMutation, useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { api, apiError, type Inputs, type Outputs } from '../api.ts';
import { todayIn } from '../dates.ts';
import { formatHours, formatMoney } from '../format.ts';
import { useMe } from '../session.tsx';
import { Check, FormError, formErrors } from '../ui/field.tsx';
import { Form, SubmitButton } from '../ui/form.tsx';
import { useNotice } from '../ui/notice.tsx';
import { Loading, Page } from '../ui/page.tsx';
import { fixedPriceProjects, InvoiceFieldset, LinesFieldset, RecipientChecks, TaxesFieldset } from './invoice-form-fields.tsx';
import { describeLine, emptyService, PreviewSection, useInvoiceFields, useLines, usePreview, type Entry, type InvoiceFieldsState, type Lines } from './invoice-form.tsx';

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
      {draft.unpriced_entries > 0 &&
        ` ${draft.unpriced_entries} ${draft.unpriced_entries === 1 ? 'entry is' : 'entries are'} left out: ${draft.unpriced_entries === 1 ? 'it has' : 'they have'} no hourly rate in ${draft.currency} (a project billed in another currency without a rate of its own).`}
    </p>
  );
}

/** Whether to send the new invoice now, to whom, with the PDF. */
function useSendChoice(compose: Compose) {
  const [send, setSend] = useState(compose.recipients.length > 0);
  const [recipients, setRecipients] = useState<Set<string>>(() => new Set(compose.recipients.map((r) => r.id)));
  const [attachPdf, setAttachPdf] = useState(true);
  return { send, setSend, recipients, setRecipients, attachPdf, setAttachPdf };
}
type SendChoice = ReturnType<typeof useSendChoice>;

function SendFieldset({ compose, choice, error }: { compose: Compose; choice: SendChoice; error: string | undefined }) {
  return (
    <fieldset className="panel">
      <legend>Send</legend>
      {compose.recipients.length === 0 ? (
        <p className="muted">
          {compose.client.name} has no recipients; <Link href={`/clients/${compose.client.id}`}>add one</Link> to send invoices by e-mail.
        </p>
      ) : (
        <>
          <Check label="Send it by e-mail now" checked={choice.send} onChange={choice.setSend} />
          {choice.send && (
            <div className="indent">
              <RecipientChecks recipients={compose.recipients} chosen={choice.recipients} onChosen={choice.setRecipients} />
              <Check label="Attach the PDF" checked={choice.attachPdf} onChange={choice.setAttachPdf} />
              <FormError message={error} />
            </div>
          )}
        </>
      )}
    </fieldset>
  );
}

/** `invoices.create` with what the form holds, at the total the preview stated; then the new invoice's page. */
function useCreate(compose: Compose, lines: Lines, { fields }: InvoiceFieldsState, choice: SendChoice, total: number | undefined) {
  const me = useMe();
  const notify = useNotice();
  const [, navigate] = useLocation();
  return useMutation({
    mutationFn: () =>
      api.invoices.create.mutate({
        email: me.member.email,
        client_id: compose.client.id,
        number: fields.number,
        total: total ?? 0,
        issue_date: fields.issueDate,
        ...(fields.dueDate ? { due_date: fields.dueDate } : {}),
        notes: fields.notes,
        ...lines.request,
        include_payment_link: fields.payLink,
        send_email: choice.send,
        ...(choice.send ? { invoice_details: { recipient_ids: [...choice.recipients], attach_pdf_invoice: choice.attachPdf ? 'true' : 'false' } } : {}),
      }),
    onSuccess: ({ invoice }) => {
      notify(`Invoice ${invoice.number} created${choice.send ? ' and queued for sending' : ''}`);
      navigate(`/invoicing/${invoice.id}`);
    },
  });
}

function Composer({ compose, preselect }: { compose: Compose; preselect: ReadonlySet<string> | null }) {
  const me = useMe();
  const { client } = compose;
  // Started from unbilled work: the entries being billed come first (a stable sort keeps their order).
  const entries: Entry[] = useMemo(
    () => (preselect ? [...compose.unbilled].sort((a, b) => Number(preselect.has(b.id)) - Number(preselect.has(a.id))) : compose.unbilled),
    [compose.unbilled, preselect],
  );
  const fixedPrice = useMemo(() => fixedPriceProjects(compose.projects), [compose.projects]);
  // All the unbilled time is picked, but not a fixed-price project's (it is not charged by the hour:
  // its flat amount is a service line); with nothing to pick, the page starts on service lines.
  const lines = useLines(() => {
    const picked = new Set(entries.filter((e) => preselect?.has(e.id) ?? !fixedPrice.has(e.project_id)).map((e) => e.id));
    const mode = picked.size > 0 || (preselect !== null && compose.unbilled.length > 0) ? 'time' : 'services';
    return { mode, picked, services: [emptyService()], taxes: [] };
  }, entries, client.currency);
  const fields = useInvoiceFields({ number: compose.next_number, issueDate: todayIn(me.workspace.time_zone), dueDate: '', notes: '', payLink: true });
  const choice = useSendChoice(compose);
  const { preview, count, error: previewError, ready, problems } = usePreview(client.id, lines, true);
  const create = useCreate(compose, lines, fields, choice, preview.data?.total);
  const errors = formErrors(create.error ? apiError(create.error) : null, ['number', 'issue_date', 'due_date', 'notes', 'invoice_time_entries', 'invoice_services', 'tax_details', 'invoice_details'], {
    invoice_number_taken: 'number',
  });
  // Never one click to e-mail a client an invoice of 0 (time on a fixed-price project alone, say).
  const sendsNothing = choice.send && preview.data !== undefined && count > 0 && preview.data.total === 0;
  return (
    <Form className="stack" onSubmit={() => create.mutate()}>
      <LinesFieldset lines={lines} entries={entries} clientName={client.name} currency={client.currency} problems={problems} error={errors.field('invoice_time_entries') ?? errors.field('invoice_services')} fixedPrice={fixedPrice} />
      <TaxesFieldset taxes={lines.taxes} onTaxes={lines.setTaxes} problems={problems} error={errors.field('tax_details')} />
      <PreviewSection preview={preview.data} count={count} error={previewError} busy={preview.isFetching} describe={describeLine(entries)} />
      <InvoiceFieldset state={fields} errors={errors} hints={{ dueDate: `Empty: ${client.default_invoice_due_in_days} days after issue` }} />
      <SendFieldset compose={compose} choice={choice} error={errors.field('invoice_details')} />
      {sendsNothing && (
        <p className="callout" role="status">
          The total is {formatMoney(0, client.currency)}: an invoice for nothing is not e-mailed to {client.name}. Untick “Send it by e-mail now” to create it without sending, or bill something with an amount.
        </p>
      )}
      <div className="row">
        <SubmitButton pending={create.isPending} disabled={!ready || sendsNothing}>
          {choice.send ? 'Create and send' : 'Create invoice'}
          {preview.data && count > 0 ? ` · ${formatMoney(preview.data.total, client.currency)}` : ''}
        </SubmitButton>
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
  // A refetch that failed keeps the data it had: coming Back after the draft was invoiced, that
  // would say its entries "are selected" above the error saying there are none. The error wins.
  const draftData = draft.error ? undefined : draft.data;
  const preselect = useMemo(
    () => (draftData ? new Set(draftData.request.invoice_time_entries.map((l) => l.time_entry_id)) : fromDraft ? new Set<string>() : null),
    // eslint-disable-next-line react-hooks/exhaustive-deps -- fromDraft is rebuilt each render; its presence is what matters
    [draftData, fromDraft !== null],
  );
  return (
    <Page title={compose.data ? `New invoice for ${compose.data.client.name}` : 'New invoice'}>
      {clientId === null ? (
        <ChooseClient />
      ) : compose.data && draftSettled ? (
        <>
          {draftData && <DraftNote draft={draftData} />}
          {draft.error && <FormError message={apiError(draft.error).message} />}
          <Composer compose={compose.data} preselect={preselect} />
        </>
      ) : (
        <Loading error={compose.error} what="the client's unbilled work" />
      )}
    </Page>
  );
}
