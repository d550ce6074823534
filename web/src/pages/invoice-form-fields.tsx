import { formatHours, formatMoney } from '../format.ts';
import { Check, Field, FormError, type FormErrors } from '../ui/field.tsx';
import { TextField } from '../ui/form.tsx';
import { describeEntry, emptyService, type Entry, type InvoiceFieldsState, type Lines, type Problems, type Service, type Tax } from './invoice-form.tsx';

/** The fieldsets of an invoice's form, shared by the new-invoice page and the draft editor. */

/** A set with `id` added or taken out. */
export function toggled(set: ReadonlySet<string>, id: string, on: boolean): Set<string> {
  const next = new Set(set);
  if (on) next.add(id);
  else next.delete(id);
  return next;
}

function ModeChoice({ lines, entryCount }: { lines: Lines; entryCount: number }) {
  return (
    <div className="row" role="radiogroup" aria-label="Lines">
      <label className="radio">
        <input type="radio" name="mode" checked={lines.mode === 'time'} onChange={() => lines.setMode('time')} /> Time entries ({entryCount})
      </label>
      <label className="radio">
        <input type="radio" name="mode" checked={lines.mode === 'services'} onChange={() => lines.setMode('services')} /> Service lines
      </label>
    </div>
  );
}

/** The client's projects billed at a flat amount (`billing_method` fixed_price_project): their time is not charged by the hour. */
export const fixedPriceProjects = (projects: { id: string; billing_method: string }[]): ReadonlySet<string> =>
  new Set(projects.filter((p) => p.billing_method === 'fixed_price_project').map((p) => p.id));

/**
 * Why time on a fixed-price project is priced at nothing, and what to do instead: its flat amount
 * is billed as a service line (docs/design.md); its entries can still be listed, at no charge.
 */
function FixedPriceNote({ entries, fixedPrice, currency, mode }: { entries: Entry[]; fixedPrice: ReadonlySet<string>; currency: string; mode: Lines['mode'] }) {
  const names = [...new Set(entries.filter((e) => fixedPrice.has(e.project_id)).map((e) => e.project_name))];
  if (names.length === 0) return null;
  const one = names.length === 1;
  const its = one ? 'its' : 'their';
  return (
    <p className="callout">
      {one ? `${names[0]} is a fixed-price project` : `${names.join(', ')} are fixed-price projects`}: {its} time is not charged by the hour, so {its} entries come to {formatMoney(0, currency)}. Bill {its} flat amount{one ? '' : 's'} as a service line{mode === 'services' ? ' here' : ' (choose Service lines)'}; pick {its} entries only to list the hours on the invoice at no charge.
    </p>
  );
}

function EntryPicker({ entries, picked, onPicked, clientName, fixedPrice }: { entries: Entry[]; picked: Set<string>; onPicked: (p: Set<string>) => void; clientName: string; fixedPrice: ReadonlySet<string> }) {
  if (entries.length === 0) return <p className="muted">{clientName} has no approved, unbilled billable time.</p>;
  return (
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
                  {fixedPrice.has(e.project_id) && <span className="muted"> (fixed price: no charge)</span>}
                </>
              }
              checked={picked.has(e.id)}
              onChange={(on) => onPicked(toggled(picked, e.id, on))}
            />
          </li>
        ))}
      </ul>
    </>
  );
}

function ServiceRows({ services, onServices, currency, problems }: { services: Service[]; onServices: (s: Service[]) => void; currency: string; problems: Problems }) {
  const setService = (i: number, change: Partial<Service>) => onServices(services.map((x, j) => (j === i ? { ...x, ...change } : x)));
  return (
    <ul className="plain rows">
      {services.map((s, i) => (
        <li key={i} className="inline-form">
          <TextField label={`Description ${i + 1}`} className="grow" value={s.notes} onChange={(notes) => setService(i, { notes })} error={problems[`services.${i}.notes`]} />
          <TextField label="Quantity" inputMode="decimal" size={6} value={s.quantity} onChange={(quantity) => setService(i, { quantity })} error={problems[`services.${i}.quantity`]} />
          <TextField
            label={`Unit price (${currency})`}
            inputMode="decimal"
            size={10}
            value={s.unit_amount}
            onChange={(unit_amount) => setService(i, { unit_amount })}
            error={problems[`services.${i}.unit_amount`]}
          />
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
  );
}

/**
 * What to bill: a choice of time entries, or service lines (description, quantity, unit price).
 * `fixedPrice`: the client's fixed-price projects, whose entries are marked and explained.
 */
export function LinesFieldset({ lines, entries, clientName, currency, problems, error, fixedPrice }: { lines: Lines; entries: Entry[]; clientName: string; currency: string; problems: Problems; error: string | undefined; fixedPrice: ReadonlySet<string> }) {
  return (
    <fieldset className="panel">
      <legend>What to bill</legend>
      <ModeChoice lines={lines} entryCount={entries.length} />
      <FixedPriceNote entries={entries} fixedPrice={fixedPrice} currency={currency} mode={lines.mode} />
      {lines.mode === 'time' ? (
        <EntryPicker entries={entries} picked={lines.picked} onPicked={lines.setPicked} clientName={clientName} fixedPrice={fixedPrice} />
      ) : (
        <ServiceRows services={lines.services} onServices={lines.setServices} currency={currency} problems={problems} />
      )}
      <FormError message={error} />
    </fieldset>
  );
}

/** The taxes: name and percentage; a tax recorded but not charged (set through the API) says so. */
export function TaxesFieldset({ taxes, onTaxes, problems, error }: { taxes: Tax[]; onTaxes: (taxes: Tax[]) => void; problems: Problems; error: string | undefined }) {
  const setTax = (i: number, change: Partial<Tax>) => onTaxes(taxes.map((x, j) => (j === i ? { ...x, ...change } : x)));
  return (
    <fieldset className="panel">
      <legend>Taxes</legend>
      <ul className="plain rows">
        {taxes.map((t, i) => (
          <li key={i} className="inline-form">
            <TextField label={`Tax ${i + 1}`} hint={t.selected ? undefined : 'Recorded, not charged'} value={t.name} onChange={(name) => setTax(i, { name })} error={problems[`taxes.${i}.name`]} />
            <TextField label="Percent" inputMode="decimal" size={6} value={t.percentage} onChange={(percentage) => setTax(i, { percentage })} error={problems[`taxes.${i}.percentage`]} />
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

interface InvoiceFieldsetProps {
  state: InvoiceFieldsState;
  errors: FormErrors;
  hints: { issueDate?: string; dueDate?: string };
}

/** The invoice's number, dates, notes and whether it links to its page online. */
export function InvoiceFieldset({ state: { fields, set }, errors, hints }: InvoiceFieldsetProps) {
  const field = errors.field;
  return (
    <fieldset className="panel grid-form">
      <legend>Invoice</legend>
      <FormError message={errors.form} />
      <TextField label="Number" error={field('number')} value={fields.number} onChange={set('number')} />
      <TextField label="Issue date" hint={hints.issueDate} error={field('issue_date')} type="date" value={fields.issueDate} onChange={set('issueDate')} />
      <TextField label="Due date" hint={hints.dueDate} error={field('due_date')} type="date" value={fields.dueDate} onChange={set('dueDate')} />
      <Field label="Notes on the invoice" className="span" error={field('notes')}>
        {(p) => <textarea {...p} rows={3} value={fields.notes} onChange={(e) => set('notes')(e.target.value)} />}
      </Field>
      <div className="span">
        <Check label="Link to the invoice's page online" checked={fields.payLink} onChange={set('payLink')} />
      </div>
    </fieldset>
  );
}

export interface Recipient {
  id: string;
  name: string;
  email: string;
}

/** The client's recipients to tick (`Name <address>`), with the message for them. */
export function RecipientChecks({ recipients, chosen, onChosen, error }: { recipients: Recipient[]; chosen: Set<string>; onChosen: (c: Set<string>) => void; error?: string | undefined }) {
  return (
    <>
      {recipients.map((r) => (
        <Check key={r.id} label={`${r.name} <${r.email}>`} checked={chosen.has(r.id)} onChange={(on) => onChosen(toggled(chosen, r.id, on))} />
      ))}
      <FormError message={error} />
    </>
  );
}
