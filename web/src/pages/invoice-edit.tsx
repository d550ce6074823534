import { useMutation, useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Link, useLocation, useParams } from 'wouter';
import { api, apiError, type Inputs, type Outputs } from '../api.ts';
import { formatMoney } from '../format.ts';
import { useMe } from '../session.tsx';
import { Check, Field, FormError, formErrors } from '../ui/field.tsx';
import { Form, TextField } from '../ui/form.tsx';
import { InvoiceLines } from '../ui/invoice-lines.tsx';
import { useNotice } from '../ui/notice.tsx';
import { Loading, Page } from '../ui/page.tsx';
import { describeDetail, describeLine, emptyService, LinesFieldset, linesRequest, PreviewSection, TaxesFieldset, usePreview, type Entry, type Mode, type Service, type Tax } from './invoice-form.tsx';

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

/**
 * A draft's editor: its lines, taxes, number, dates and notes, saved with `invoices.update`. Only
 * what changed is sent: untouched lines are not priced again, a new issue date alone keeps the terms.
 */
function DraftEditor({ view, compose }: { view: View; compose: Compose }) {
  const me = useMe();
  const notify = useNotice();
  const [, navigate] = useLocation();
  const inv = view.invoice;
  const entries = useMemo(() => entriesOf(view, compose), [view, compose]);
  const serviceLines = inv.lines.filter((l) => l.kind === 'service');
  const [mode, setMode] = useState<Mode>(serviceLines.length > 0 ? 'services' : 'time');
  const [picked, setPicked] = useState<Set<string>>(() => new Set(inv.lines.flatMap((l) => (l.time_entry_id ? [l.time_entry_id] : []))));
  const [services, setServices] = useState<Service[]>(() =>
    serviceLines.length ? serviceLines.map((l) => ({ notes: l.notes, quantity: String(l.quantity ?? 1), unit_amount: String(l.unit_amount ?? 0), project_id: l.project_id, file: l.file })) : [emptyService()],
  );
  const [taxes, setTaxes] = useState<Tax[]>(() => inv.taxes.map((t) => ({ name: t.name, percentage: String(t.percentage), selected: t.selected })));
  const [touched, setTouched] = useState(false);
  const touch =
    <T,>(set: (value: T) => void) =>
    (value: T) => {
      setTouched(true);
      set(value);
    };
  const [number, setNumber] = useState(inv.number);
  const [issueDate, setIssueDate] = useState(inv.issue_date);
  const [dueDate, setDueDate] = useState(inv.due_date);
  const [notes, setNotes] = useState(inv.notes);
  const [payLink, setPayLink] = useState(inv.include_payment_link);

  const lines = useMemo(() => linesRequest(mode, entries, picked, services, taxes), [mode, entries, picked, services, taxes]);
  const { preview, count, error: previewError, ready } = usePreview(inv.client_id, lines, touched, inv.id);

  const save = useMutation({
    mutationFn: () => {
      const input: Inputs['invoices']['update'] = {
        email: me.member.email,
        invoice_id: inv.id,
        ...(number !== inv.number && { number }),
        ...(issueDate !== inv.issue_date && { issue_date: issueDate }),
        ...(dueDate !== inv.due_date && { due_date: dueDate }),
        ...(notes !== inv.notes && { notes }),
        ...(payLink !== inv.include_payment_link && { include_payment_link: payLink }),
        ...(touched && { ...lines, total: preview.data?.total ?? 0 }),
      };
      return api.invoices.update.mutate(input);
    },
    onSuccess: () => {
      notify(`Draft ${number} saved`);
      navigate(`/invoicing/${inv.id}`);
    },
  });
  const errors = formErrors(save.error ? apiError(save.error) : null, ['number', 'issue_date', 'due_date', 'notes', 'invoice_time_entries', 'invoice_services', 'tax_details', 'total'], {
    invoice_number_taken: 'number',
    total_mismatch: 'total',
  });
  const total = touched ? preview.data?.total : inv.total;

  return (
    <Form className="stack" onSubmit={() => save.mutate()}>
      <LinesFieldset
        clientName={view.client_name}
        currency={inv.currency}
        mode={mode}
        onMode={touch(setMode)}
        entries={entries}
        picked={picked}
        onPicked={touch(setPicked)}
        services={services}
        onServices={touch(setServices)}
        error={errors.field('invoice_time_entries') ?? errors.field('invoice_services')}
      />
      <TaxesFieldset taxes={taxes} onTaxes={touch(setTaxes)} error={errors.field('tax_details')} />
      {touched ? (
        <PreviewSection preview={preview.data} count={count} error={previewError} busy={preview.isFetching} describe={describeLine(entries)} />
      ) : (
        <section className="panel" aria-labelledby="preview-title">
          <h2 id="preview-title">Lines as saved</h2>
          <InvoiceLines
            caption="Lines as saved"
            lines={inv.lines.map((l, i) => ({ key: l.id, description: describeDetail(view.line_details[i]), hours: l.hours, quantity: l.quantity, rate: l.hourly_rate ?? l.unit_amount ?? 0, amount: l.amount }))}
            totals={{ currency: inv.currency, subtotal: inv.subtotal, taxes: inv.taxes.filter((t) => t.selected), total: inv.total }}
          />
        </section>
      )}
      <FormError message={errors.field('total')} />

      <fieldset className="panel grid-form">
        <legend>Invoice</legend>
        <FormError message={errors.form} />
        <TextField label="Number" error={errors.field('number')} value={number} onChange={setNumber} />
        <TextField label="Issue date" hint="Changed alone, the due date keeps its distance" error={errors.field('issue_date')} type="date" value={issueDate} onChange={setIssueDate} />
        <TextField label="Due date" error={errors.field('due_date')} type="date" value={dueDate} onChange={setDueDate} />
        <Field label="Notes on the invoice" className="span" error={errors.field('notes')}>
          {(p) => <textarea {...p} rows={3} value={notes} onChange={(e) => setNotes(e.target.value)} />}
        </Field>
        <div className="span">
          <Check label="Link to the invoice's page online" checked={payLink} onChange={setPayLink} />
        </div>
      </fieldset>

      <div className="row">
        <button className="button primary" type="submit" disabled={save.isPending || (touched && !ready)}>
          Save draft{total !== undefined && (!touched || count > 0) ? ` · ${formatMoney(total, inv.currency)}` : ''}
        </button>
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
