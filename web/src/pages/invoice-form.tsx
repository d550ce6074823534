import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, apiError, type Inputs, type Outputs } from '../api.ts';
import { formatDate, formatHours } from '../format.ts';
import { Check, Field, FormError } from '../ui/field.tsx';
import { useDebounced } from '../ui/hooks.ts';
import { InvoiceLines } from '../ui/invoice-lines.tsx';

/**
 * The parts of an invoice's form that the new-invoice page and the draft editor share: what to
 * bill (time entries or service lines), taxes, and the server's preview of the result.
 */

type Preview = Outputs['invoices']['preview'];
type TimeLine = NonNullable<Inputs['invoices']['preview']['invoice_time_entries']>[number];

/** A time entry that can be billed, with what the line keeps of it when it is already on the draft. */
export interface Entry {
  id: string;
  project_id: string;
  task_id: string;
  user_id: string;
  recorded_on: string | null;
  project_name: string;
  task_name: string;
  user_name: string;
  hours: number;
  notes: string;
  /** Already on the draft: its line's hours, rate and notes (a write-down stays written down). */
  line?: { hours: number | null; hourly_rate: number | null; notes: string };
}
export interface Service {
  notes: string;
  quantity: string;
  unit_amount: string;
  project_id?: string | null;
  file?: string | null;
}
export interface Tax {
  name: string;
  percentage: string;
  selected: boolean;
}
export type Mode = 'time' | 'services';

const num = (text: string) => Number(text.trim().replace(',', '.'));
export const emptyService = (): Service => ({ notes: '', quantity: '1', unit_amount: '' });

/** The request's line group and taxes, as `invoices.create`, `invoices.update` and `invoices.preview` take them. */
export function linesRequest(mode: Mode, entries: Entry[], picked: Set<string>, services: Service[], taxes: Tax[]) {
  const tax_details = taxes.filter((t) => t.name.trim()).map((t) => ({ name: t.name, percentage: num(t.percentage), selected: t.selected }));
  if (mode === 'time') {
    const invoice_time_entries: TimeLine[] = entries
      .filter((e) => picked.has(e.id))
      .map((e) => ({
        time_entry_id: e.id,
        project_id: e.project_id,
        task_id: e.task_id,
        user_id: e.user_id,
        ...(e.line && { notes: e.line.notes, ...(e.line.hours !== null && { hours: e.line.hours }), ...(e.line.hourly_rate !== null && { hourly_rate: e.line.hourly_rate }) }),
      }));
    return { invoice_time_entries, tax_details };
  }
  const rows = services
    .filter((s) => s.notes.trim() || s.unit_amount.trim())
    .map((s) => ({ notes: s.notes, quantity: num(s.quantity), unit_amount: num(s.unit_amount), ...(s.project_id && { project_id: s.project_id }), ...(s.file && { file: s.file }) }));
  return { invoice_services: rows, tax_details };
}
export type LinesRequest = ReturnType<typeof linesRequest>;
export const lineCountOf = (lines: LinesRequest) => (lines.invoice_time_entries ?? lines.invoice_services ?? []).length;

/** A stored line as the invoice page, the PDF and the public page describe it: date · project · task · person — notes. */
export function describeDetail(d: { date: string | null; project_name: string | null; task_name: string | null; person_name: string | null; notes: string } | undefined): string {
  if (!d) return '';
  const what = [d.date && formatDate(d.date), d.project_name, d.task_name, d.person_name].filter(Boolean).join(' · ');
  return [what, d.notes].filter(Boolean).join(' — ') || 'Service';
}

const describeEntry = (e: Entry) => [e.recorded_on && formatDate(e.recorded_on), e.project_name, e.task_name, e.user_name].filter(Boolean).join(' · ');

interface LinesProps {
  clientName: string;
  currency: string;
  mode: Mode;
  onMode: (mode: Mode) => void;
  entries: Entry[];
  picked: Set<string>;
  onPicked: (picked: Set<string>) => void;
  services: Service[];
  onServices: (services: Service[]) => void;
  error: string | undefined;
}

/** What to bill: a choice of time entries, or service lines (description, quantity, unit price). */
export function LinesFieldset({ clientName, currency, mode, onMode, entries, picked, onPicked, services, onServices, error }: LinesProps) {
  const setService = (i: number, change: Partial<Service>) => onServices(services.map((x, j) => (j === i ? { ...x, ...change } : x)));
  return (
    <fieldset className="panel">
      <legend>What to bill</legend>
      <div className="row" role="radiogroup" aria-label="Lines">
        <label className="radio">
          <input type="radio" name="mode" checked={mode === 'time'} onChange={() => onMode('time')} /> Time entries ({entries.length})
        </label>
        <label className="radio">
          <input type="radio" name="mode" checked={mode === 'services'} onChange={() => onMode('services')} /> Service lines
        </label>
      </div>
      {mode === 'time' ? (
        entries.length === 0 ? (
          <p className="muted">{clientName} has no approved, unbilled billable time.</p>
        ) : (
          <>
            <Check label="All entries" checked={picked.size === entries.length} onChange={(on) => onPicked(new Set(on ? entries.map((e) => e.id) : []))} />
            <ul className="plain entries pick">
              {entries.map((e) => (
                <li key={e.id}>
                  <Check
                    label={
                      <>
                        <span className="entry-hours">{formatHours(e.line?.hours ?? e.hours)}</span> {describeEntry(e)}
                        {e.notes && <span className="muted"> — {e.notes}</span>}
                      </>
                    }
                    checked={picked.has(e.id)}
                    onChange={(on) => {
                      const next = new Set(picked);
                      if (on) next.add(e.id);
                      else next.delete(e.id);
                      onPicked(next);
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
              <Field label={`Description ${i + 1}`} className="grow">
                {(p) => <input {...p} value={s.notes} onChange={(e) => setService(i, { notes: e.target.value })} />}
              </Field>
              <Field label="Quantity">{(p) => <input {...p} inputMode="decimal" size={6} value={s.quantity} onChange={(e) => setService(i, { quantity: e.target.value })} />}</Field>
              <Field label={`Unit price (${currency})`}>{(p) => <input {...p} inputMode="decimal" size={10} value={s.unit_amount} onChange={(e) => setService(i, { unit_amount: e.target.value })} />}</Field>
              {services.length > 1 && (
                <button type="button" className="button" onClick={() => onServices(services.filter((_, j) => j !== i))}>
                  Remove<span className="visually-hidden"> line {i + 1}</span>
                </button>
              )}
            </li>
          ))}
          <li>
            <button type="button" className="button" onClick={() => onServices([...services, emptyService()])}>
              Add a line
            </button>
          </li>
        </ul>
      )}
      <FormError message={error} />
    </fieldset>
  );
}

/** The taxes: name and percentage; a tax recorded but not charged (set through the API) says so. */
export function TaxesFieldset({ taxes, onTaxes, error }: { taxes: Tax[]; onTaxes: (taxes: Tax[]) => void; error: string | undefined }) {
  const setTax = (i: number, change: Partial<Tax>) => onTaxes(taxes.map((x, j) => (j === i ? { ...x, ...change } : x)));
  return (
    <fieldset className="panel">
      <legend>Taxes</legend>
      <ul className="plain rows">
        {taxes.map((t, i) => (
          <li key={i} className="inline-form">
            <Field label={`Tax ${i + 1}`} hint={t.selected ? undefined : 'Recorded, not charged'}>
              {(p) => <input {...p} value={t.name} onChange={(e) => setTax(i, { name: e.target.value })} />}
            </Field>
            <Field label="Percent">{(p) => <input {...p} inputMode="decimal" size={6} value={t.percentage} onChange={(e) => setTax(i, { percentage: e.target.value })} />}</Field>
            <button type="button" className="button" onClick={() => onTaxes(taxes.filter((_, j) => j !== i))}>
              Remove<span className="visually-hidden"> tax {i + 1}</span>
            </button>
          </li>
        ))}
      </ul>
      <button type="button" className="button" onClick={() => onTaxes([...taxes, { name: 'VAT', percentage: '19', selected: true }])}>
        Add a tax
      </button>
      <FormError message={error} />
    </fieldset>
  );
}

/**
 * The server's pricing of these lines (`invoices.preview`, the pass creation and edits use), asked
 * once typing settles. `invoiceId`: the draft being edited (its own entries count as unbilled).
 */
export function usePreview(clientId: string, lines: LinesRequest, enabled: boolean, invoiceId?: string) {
  const settled = useDebounced(lines, 300);
  const count = lineCountOf(settled);
  const input: Inputs['invoices']['preview'] = { client_id: clientId, ...(invoiceId && { invoice_id: invoiceId }), ...settled };
  const preview = useQuery({
    queryKey: ['invoices.preview', input],
    queryFn: () => api.invoices.preview.query(input),
    enabled: enabled && count > 0,
    placeholderData: keepPreviousData,
    retry: false,
  });
  const error = preview.error ? apiError(preview.error) : null;
  // Ready to submit: priced for exactly what is on screen, without an error.
  const ready = !!preview.data && count > 0 && lineCountOf(lines) === count && !preview.isFetching && !error && settled === lines;
  return { preview, count, error, ready };
}

/** The lines, taxes and total as the server prices them: what saving will charge. */
export function PreviewSection({ preview, count, error, busy, describe }: { preview: Preview | undefined; count: number; error: ReturnType<typeof apiError> | null; busy: boolean; describe: (timeEntryId: string | null, notes: string) => string }) {
  return (
    <section className="panel" aria-labelledby="preview-title" aria-busy={busy}>
      <h2 id="preview-title">Preview</h2>
      {count === 0 ? <p className="muted">Pick entries or add a line to see the invoice.</p> : null}
      {error && (
        <p className="form-error" role="alert">
          {error.details[0] ? `${error.details[0].path}: ${error.details[0].message}` : error.message}
        </p>
      )}
      {preview && count > 0 && (
        <InvoiceLines
          caption="Invoice preview"
          lines={preview.lines.map((l, i) => ({ key: String(i), description: describe(l.time_entry_id, l.notes), hours: l.hours, quantity: l.quantity, rate: l.hourly_rate ?? l.unit_amount ?? 0, amount: l.amount }))}
          totals={preview}
        />
      )}
    </section>
  );
}

/** A line of the preview, described by its entry (date · project · task · person) or its notes. */
export const describeLine = (entries: Entry[]) => (id: string | null, notes: string) => {
  const e = entries.find((x) => x.id === id);
  return e ? describeEntry(e) : notes || 'Service';
};
