import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { minorToNumber } from '../amount.ts';
import { api, apiError, type ApiError, type Inputs, type Outputs } from '../api.ts';
import { formatDate, readAmount, readDecimal } from '../format.ts';
import { forPeople } from '../messages.ts';
import { useDebounced } from '../ui/hooks.ts';
import { InvoiceLines } from '../ui/invoice-lines.tsx';

/**
 * What the new-invoice page and the draft editor share besides their fieldsets
 * (invoice-form-fields.tsx): the lines being composed (time entries or service lines, taxes) and
 * the request they make, the invoice's own fields, and the server's preview of the result.
 */

type Preview = Outputs['invoices']['preview'];
type TimeLine = NonNullable<Inputs['invoices']['preview']['invoice_time_entries']>[number];
type ServiceLine = NonNullable<Inputs['invoices']['preview']['invoice_services']>[number];

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

/** Why a typed number cannot be sent, by field (`services.0.unit_amount`, `taxes.1.percentage`). */
export type Problems = Record<string, string>;

export const emptyService = (): Service => ({ notes: '', quantity: '1', unit_amount: '' });

/** Quantities and percentages take as many decimals as the server keeps (thousandths; ten-thousandths of a percent). */
export const QUANTITY_DECIMALS = 3;
export const PERCENT_DECIMALS = 4;

/** The service lines as the API takes them, each number read in the workspace's locale; what cannot be read goes to `problems`. */
function serviceLines(services: Service[], currency: string, problems: Problems, rows: number[]): ServiceLine[] {
  return services
    .map((s, i) => ({ s, i }))
    .filter(({ s }) => s.notes.trim() || s.unit_amount.trim())
    .map(({ s, i }) => {
      rows.push(i);
      const quantity = s.quantity.trim() ? readDecimal(s.quantity, QUANTITY_DECIMALS, { positive: true }) : null;
      const price = s.unit_amount.trim() ? readAmount(s.unit_amount, currency, { positive: true }) : null;
      if (quantity && !quantity.ok) problems[`services.${i}.quantity`] = quantity.message;
      if (price && !price.ok) problems[`services.${i}.unit_amount`] = price.message;
      return {
        notes: s.notes,
        ...(quantity?.ok && { quantity: quantity.value }),
        ...(price?.ok && { unit_amount: minorToNumber(price.value, currency) }),
        ...(s.project_id && { project_id: s.project_id }),
        ...(s.file && { file: s.file }),
      };
    });
}

const timeLines = (entries: Entry[], picked: Set<string>): TimeLine[] =>
  entries
    .filter((e) => picked.has(e.id))
    .map((e) => ({
      time_entry_id: e.id,
      project_id: e.project_id,
      task_id: e.task_id,
      user_id: e.user_id,
      ...(e.line && { notes: e.line.notes, ...(e.line.hours !== null && { hours: e.line.hours }), ...(e.line.hourly_rate !== null && { hourly_rate: e.line.hourly_rate }) }),
    }));

/**
 * Where a field the server names (`tax_details.0.percentage`, `invoice_services.1.notes`) is typed
 * on the form (`taxes.2.percentage`, `services.1.notes`): taxes without a name and empty lines are
 * not sent, so the request's positions are not the form's. `undefined`: no field of the form.
 */
export type FieldOfPath = (path: string) => string | undefined;

const FORM_FIELDS: Record<string, { group: string; fields: readonly string[] }> = {
  tax_details: { group: 'taxes', fields: ['name', 'percentage'] },
  invoice_services: { group: 'services', fields: ['notes', 'quantity', 'unit_amount'] },
};

function fieldOfPath(rows: Record<string, number[]>): FieldOfPath {
  return (path) => {
    const [list = '', at = '', field = ''] = path.split('.');
    const form = FORM_FIELDS[list];
    const row = rows[list]?.[Number(at)];
    return form && row !== undefined && form.fields.includes(field) ? `${form.group}.${row}.${field}` : undefined;
  };
}

/** The request's line group and taxes, as `invoices.create`, `invoices.update` and `invoices.preview` take them, and what cannot be read. */
export function linesRequest(mode: Mode, entries: Entry[], picked: Set<string>, services: Service[], taxes: Tax[], currency: string) {
  const problems: Problems = {};
  const taxRows: number[] = [];
  const serviceRows: number[] = [];
  const tax_details = taxes
    .map((t, i) => ({ t, i }))
    .filter(({ t }) => t.name.trim())
    .map(({ t, i }) => {
      taxRows.push(i);
      const p = readDecimal(t.percentage, PERCENT_DECIMALS, { positive: true });
      if (!p.ok) problems[`taxes.${i}.percentage`] = p.message;
      return { name: t.name, percentage: p.ok ? p.value : 0, selected: t.selected };
    });
  const group = mode === 'time' ? { invoice_time_entries: timeLines(entries, picked) } : { invoice_services: serviceLines(services, currency, problems, serviceRows) };
  return { request: { ...group, tax_details }, problems, fieldOf: fieldOfPath({ tax_details: taxRows, invoice_services: serviceRows }) };
}
export type LinesRequest = ReturnType<typeof linesRequest>['request'];
export const lineCountOf = (lines: LinesRequest) => (lines.invoice_time_entries ?? lines.invoice_services ?? []).length;

export interface LinesStart {
  mode: Mode;
  picked: Set<string>;
  services: Service[];
  taxes: Tax[];
}

/** The lines being composed: what to bill, the taxes, whether the person changed any of it, and the request they make. */
export function useLines(start: () => LinesStart, entries: Entry[], currency: string) {
  const [state, setState] = useState(start);
  const [touched, setTouched] = useState(false);
  const set = <K extends keyof LinesStart>(key: K) => (value: LinesStart[K]) => {
    setTouched(true);
    setState((s) => ({ ...s, [key]: value }));
  };
  const { mode, picked, services, taxes } = state;
  const built = useMemo(() => linesRequest(mode, entries, picked, services, taxes, currency), [mode, entries, picked, services, taxes, currency]);
  return { ...state, touched, setMode: set('mode'), setPicked: set('picked'), setServices: set('services'), setTaxes: set('taxes'), ...built };
}
export type Lines = ReturnType<typeof useLines>;

/** The invoice's own fields as the form holds them. */
export interface InvoiceFields {
  number: string;
  issueDate: string;
  dueDate: string;
  notes: string;
  payLink: boolean;
}
export function useInvoiceFields(start: InvoiceFields) {
  const [fields, setFields] = useState(start);
  return { fields, set: <K extends keyof InvoiceFields>(key: K) => (value: InvoiceFields[K]) => setFields((f) => ({ ...f, [key]: value })) };
}
export type InvoiceFieldsState = ReturnType<typeof useInvoiceFields>;

/** A stored line as the invoice page, the PDF and the public page describe it: date · project · task · person — notes. */
export function describeDetail(d: { date: string | null; project_name: string | null; task_name: string | null; person_name: string | null; notes: string } | undefined): string {
  if (!d) return '';
  const what = [d.date && formatDate(d.date), d.project_name, d.task_name, d.person_name].filter(Boolean).join(' · ');
  return [what, d.notes].filter(Boolean).join(' — ') || 'Service';
}

export const describeEntry = (e: Entry) => [e.recorded_on && formatDate(e.recorded_on), e.project_name, e.task_name, e.user_name].filter(Boolean).join(' · ');

/**
 * The server's pricing of these lines (`invoices.preview`, the pass creation and edits use), asked
 * once typing settles and every number reads. `invoiceId`: the draft being edited (its own entries
 * count as unbilled). The problems shown beside the fields are the settled ones, not each keystroke's.
 */
export function usePreview(clientId: string, lines: Lines, enabled: boolean, invoiceId?: string) {
  const current = useMemo(() => ({ request: lines.request, problems: lines.problems, fieldOf: lines.fieldOf }), [lines.request, lines.problems, lines.fieldOf]);
  const settled = useDebounced(current, 300);
  const count = lineCountOf(settled.request);
  const readable = Object.keys(settled.problems).length === 0;
  const input: Inputs['invoices']['preview'] = { client_id: clientId, ...(invoiceId && { invoice_id: invoiceId }), ...settled.request };
  const preview = useQuery({
    queryKey: ['invoices.preview', input],
    queryFn: () => api.invoices.preview.query(input),
    enabled: enabled && count > 0 && readable,
    placeholderData: keepPreviousData,
    retry: false,
  });
  const error = preview.error ? apiError(preview.error) : null;
  // Ready to submit: priced for exactly what is on screen, without an error.
  const ready = !!preview.data && count > 0 && readable && lineCountOf(lines.request) === count && !preview.isFetching && !error && settled === current;
  // What the server refused goes beside the field it is about, in the app's words, as a number that
  // does not read does; the preview says only what no field shows.
  const refused = error && readable ? placed(error, settled.fieldOf) : { problems: {}, rest: null };
  return { preview, count, error: refused.rest, ready, problems: { ...settled.problems, ...refused.problems } };
}

/** A refused preview's messages by the form's field, and what the preview says: what no field shows, or to correct the marked field. */
function placed(failed: ApiError, fieldOf: FieldOfPath): { problems: Problems; rest: ApiError | null } {
  const error = forPeople(failed);
  const problems: Problems = {};
  const unplaced = error.details.filter((d) => {
    const field = fieldOf(d.path);
    if (!field) return true;
    problems[field] ??= capitalised(d.message);
    return false;
  });
  if (error.details.length > 0 && unplaced.length === 0) return { problems, rest: { ...error, message: 'Correct the marked field above to see the preview', details: [] } };
  return { problems, rest: { ...error, details: unplaced } };
}

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** A field the server names that the form has no field for, in words: `invoice_time_entries.0.hours` → "Line 1, hours". */
function describePath(path: string): string {
  const [list = '', at, ...rest] = path.split('.');
  const field = rest.join(' ').replaceAll('_', ' ');
  const line = list === 'invoice_time_entries' || list === 'invoice_services' ? 'Line' : list === 'tax_details' ? 'Tax' : list.replaceAll('_', ' ');
  return [at !== undefined && /^\d+$/.test(at) ? `${line} ${Number(at) + 1}` : capitalised(line), field].filter(Boolean).join(', ');
}

/** The lines, taxes and total as the server prices them: what saving will charge. */
export function PreviewSection({ preview, count, error, busy, describe }: { preview: Preview | undefined; count: number; error: ReturnType<typeof apiError> | null; busy: boolean; describe: (timeEntryId: string | null, notes: string) => string }) {
  return (
    <section className="panel" aria-labelledby="preview-title" aria-busy={busy}>
      <h2 id="preview-title">Preview</h2>
      {count === 0 ? <p className="muted">Pick entries or add a line to see the invoice.</p> : null}
      {error && (
        <p className="form-error" role="alert">
          {error.details[0] ? `${describePath(error.details[0].path)}: ${error.details[0].message}` : error.message}
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

/**
 * A line of the preview as the saved invoice will describe it (`describeDetail`): its entry's date ·
 * project · task · person, then the line's notes; a service line by its notes.
 */
export const describeLine = (entries: Entry[]) => (id: string | null, notes: string) => {
  const e = entries.find((x) => x.id === id);
  return e ? [describeEntry(e), notes || e.notes].filter(Boolean).join(' — ') : notes || 'Service';
};
