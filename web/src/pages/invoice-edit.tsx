import { useMutation, useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Link, useLocation, useParams } from 'wouter';
import { api, apiError, type Outputs } from '../api.ts';
import { amountInputText, decimalInputText, formatMoney } from '../format.ts';
import { useMe } from '../session.tsx';
import { FormError, formErrors } from '../ui/field.tsx';
import { Form, SubmitButton } from '../ui/form.tsx';
import { chargedPrice, InvoiceLines } from '../ui/invoice-lines.tsx';
import { useNotice } from '../ui/notice.tsx';
import { Loading, Page } from '../ui/page.tsx';
import { fixedPriceProjects, InvoiceFieldset, LinesFieldset, RecipientChecks, TaxesFieldset } from './invoice-form-fields.tsx';
import { describeDetail, describeLine, emptyService, PERCENT_DECIMALS, PreviewSection, QUANTITY_DECIMALS, useInvoiceFields, useLines, usePreview, type Entry, type InvoiceFieldsState, type Lines, type LinesStart } from './invoice-form.tsx';

type View = Outputs['invoices']['view'];
type Compose = Outputs['invoices']['compose'];

/** The draft's own entries (with what their lines say) first, then the client's other unbilled time. */
function entriesOf(view: View, compose: Compose): Entry[] {
  const own = view.invoice.lines.flatMap((l, i): Entry[] => {
    if (!l.time_entry_id || !l.project_id || !l.task_id || !l.user_id) return [];
    const d = view.line_details[i];
    return [
      {
        id: l.time_entry_id,
        project_id: l.project_id,
        task_id: l.task_id,
        user_id: l.user_id,
        recorded_on: d?.date ?? null,
        project_name: d?.project_name ?? '',
        task_name: d?.task_name ?? '',
        user_name: d?.person_name ?? '',
        hours: l.hours ?? 0,
        notes: d?.notes || l.notes,
        line: { hours: l.hours, hourly_rate: l.hourly_rate, notes: l.notes },
      },
    ];
  });
  return [...own, ...compose.unbilled];
}

/** The draft's lines as the editor starts: its service lines, or its entries picked; its taxes. */
function startLines(inv: View['invoice']): LinesStart {
  const serviceLines = inv.lines.filter((l) => l.kind === 'service');
  return {
    mode: serviceLines.length > 0 ? 'services' : 'time',
    picked: new Set(inv.lines.flatMap((l) => (l.time_entry_id ? [l.time_entry_id] : []))),
    services: serviceLines.length
      ? serviceLines.map((l) => ({ notes: l.notes, quantity: decimalInputText(l.quantity ?? 1, QUANTITY_DECIMALS), unit_amount: amountInputText(l.unit_amount ?? 0, inv.currency), project_id: l.project_id, file: l.file }))
      : [emptyService()],
    taxes: inv.taxes.map((t) => ({ name: t.name, percentage: decimalInputText(t.percentage, PERCENT_DECIMALS), selected: t.selected })),
  };
}

/** The draft's recipients still on the client (a removed one is no longer offered). */
const liveRecipientIds = (view: View) => new Set(view.invoice.recipient_ids.filter((id) => view.client_recipients.some((r) => r.id === id)));
const sameSet = (a: ReadonlySet<string>, b: ReadonlySet<string>) => a.size === b.size && [...a].every((x) => b.has(x));

/** Whom the draft goes to when it is sent: the client's recipients to tick, kept on the draft. */
function RecipientsFieldset({ view, chosen, onChosen, error }: { view: View; chosen: Set<string>; onChosen: (c: Set<string>) => void; error: string | undefined }) {
  return (
    <fieldset className="panel">
      <legend>Recipients</legend>
      {view.client_recipients.length === 0 ? (
        <p className="muted">
          {view.client_name} has no recipients; <Link href={`/clients/${view.invoice.client_id}`}>add one</Link> to send invoices by e-mail.
        </p>
      ) : (
        <>
          <p className="hint">Sending the draft goes to them (you can still change it then); reminders too.</p>
          <RecipientChecks recipients={view.client_recipients} chosen={chosen} onChosen={onChosen} error={error} />
        </>
      )}
    </fieldset>
  );
}

interface DraftForm {
  lines: Lines;
  fields: InvoiceFieldsState['fields'];
  recipients: Set<string>;
  total: number | undefined;
  /** The client's payment terms in days: an emptied due date is this many days after the issue date. */
  terms: number;
}

/**
 * `invoices.update` with only what changed (untouched lines are not priced again); then the draft's
 * page. An emptied due date is sent as the client's terms (`due_date_period`), as a new invoice's is.
 */
function useSaveDraft(view: View, { lines, fields, recipients, total, terms }: DraftForm) {
  const me = useMe();
  const notify = useNotice();
  const [, navigate] = useLocation();
  const inv = view.invoice;
  return useMutation({
    mutationFn: () =>
      api.invoices.update.mutate({
        email: me.member.email,
        invoice_id: inv.id,
        ...(fields.number !== inv.number && { number: fields.number }),
        ...(fields.issueDate !== inv.issue_date && { issue_date: fields.issueDate }),
        ...(fields.dueDate !== inv.due_date && (fields.dueDate.trim() === '' ? { due_date_period: terms } : { due_date: fields.dueDate })),
        ...(fields.notes !== inv.notes && { notes: fields.notes }),
        ...(fields.payLink !== inv.include_payment_link && { include_payment_link: fields.payLink }),
        ...(!sameSet(recipients, liveRecipientIds(view)) && { recipient_ids: [...recipients] }),
        ...(lines.touched && { ...lines.request, total: total ?? 0 }),
      }),
    onSuccess: () => {
      notify(`Draft ${fields.number} saved`);
      navigate(`/invoicing/${inv.id}`);
    },
  });
}

/** The lines as saved, while none changed: nothing is priced again. */
function SavedLines({ view }: { view: View }) {
  const inv = view.invoice;
  return (
    <section className="panel" aria-labelledby="preview-title">
      <h2 id="preview-title">Lines as saved</h2>
      <InvoiceLines
        caption="Lines as saved"
        lines={inv.lines.map((l, i) => ({ key: l.id, description: describeDetail(view.line_details[i]), hours: l.hours, quantity: l.quantity, rate: chargedPrice(l), amount: l.amount }))}
        totals={{ currency: inv.currency, subtotal: inv.subtotal, taxes: inv.taxes.filter((t) => t.selected), total: inv.total }}
      />
    </section>
  );
}

const DRAFT_FIELDS = ['number', 'issue_date', 'due_date', 'notes', 'invoice_time_entries', 'invoice_services', 'tax_details', 'total', 'recipient_ids'];

/**
 * A draft's editor: its lines, taxes, number, dates, notes and recipients, saved with
 * `invoices.update`. Only what changed is sent: untouched lines are not priced again, a new issue
 * date alone keeps the terms.
 */
function DraftEditor({ view, compose }: { view: View; compose: Compose }) {
  const inv = view.invoice;
  const entries = useMemo(() => entriesOf(view, compose), [view, compose]);
  const lines = useLines(() => startLines(inv), entries, inv.currency);
  const fields = useInvoiceFields({ number: inv.number, issueDate: inv.issue_date, dueDate: inv.due_date, notes: inv.notes, payLink: inv.include_payment_link });
  const [recipients, setRecipients] = useState(() => liveRecipientIds(view));
  const { preview, count, error: previewError, ready, problems } = usePreview(inv.client_id, lines, lines.touched, inv.id);
  const terms = compose.client.default_invoice_due_in_days;
  const fixedPrice = useMemo(() => fixedPriceProjects(compose.projects), [compose.projects]);
  const save = useSaveDraft(view, { lines, fields: fields.fields, recipients, total: preview.data?.total, terms });
  const errors = formErrors(save.error ? apiError(save.error) : null, DRAFT_FIELDS, { invoice_number_taken: 'number', total_mismatch: 'total' });
  const total = lines.touched ? preview.data?.total : inv.total;
  return (
    <Form className="stack" onSubmit={() => save.mutate()}>
      <LinesFieldset lines={lines} entries={entries} clientName={view.client_name} currency={inv.currency} problems={problems} error={errors.field('invoice_time_entries') ?? errors.field('invoice_services')} fixedPrice={fixedPrice} />
      <TaxesFieldset taxes={lines.taxes} onTaxes={lines.setTaxes} problems={problems} error={errors.field('tax_details')} />
      {lines.touched ? <PreviewSection preview={preview.data} count={count} error={previewError} busy={preview.isFetching} describe={describeLine(entries)} /> : <SavedLines view={view} />}
      <FormError message={errors.field('total')} />
      <InvoiceFieldset state={fields} errors={errors} hints={{ issueDate: 'Changed alone, the due date keeps its distance', dueDate: `Empty: ${terms} days after issue` }} />
      <RecipientsFieldset view={view} chosen={recipients} onChosen={setRecipients} error={errors.field('recipient_ids')} />
      <div className="row">
        <SubmitButton pending={save.isPending} disabled={lines.touched && !ready}>
          Save draft{total !== undefined && (!lines.touched || count > 0) ? ` · ${formatMoney(total, inv.currency)}` : ''}
        </SubmitButton>
        <Link className="button" href={`/invoicing/${inv.id}`}>
          Cancel
        </Link>
      </div>
    </Form>
  );
}

export function EditInvoicePage() {
  const { id = '' } = useParams<{ id: string }>();
  const view = useQuery({ queryKey: ['invoices.view', id], queryFn: () => api.invoices.view.query({ invoice_id: id }) });
  const clientId = view.data?.invoice.client_id;
  const editable = view.data?.invoice.status === 'draft' && view.data.invoice.kind === 'invoice';
  const compose = useQuery({
    queryKey: ['invoices.compose', clientId],
    queryFn: () => api.invoices.compose.query({ client_id: clientId! }),
    enabled: clientId !== undefined && editable,
    staleTime: Infinity,
  });
  const title = view.data ? `Edit draft ${view.data.invoice.number}` : 'Edit draft';
  if (view.data && !editable) {
    return (
      <Page title={title}>
        <p className="panel" role="alert">
          {view.data.invoice.number} is {view.data.invoice.kind === 'credit_note' ? 'a credit note' : 'no longer a draft'}: what was issued stays as the client received it.{' '}
          <Link href={`/invoicing/${id}`}>Back to it</Link>
        </p>
      </Page>
    );
  }
  return (
    <Page title={title}>
      {view.data && compose.data ? <DraftEditor view={view.data} compose={compose.data} /> : <Loading error={view.error ?? compose.error} what="the draft" />}
    </Page>
  );
}
