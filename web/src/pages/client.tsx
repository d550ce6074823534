import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { Link, useLocation, useParams } from 'wouter';
import { api, apiError, type Outputs } from '../api.ts';
import { formatMoney } from '../format.ts';
import { useMe } from '../session.tsx';
import { AmountField, useAmountInput, type AmountInput } from '../ui/amount-field.tsx';
import { Badge } from '../ui/badge.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { FormError, formErrors, type FormErrors } from '../ui/field.tsx';
import { Actions, Form, SelectField, TextField } from '../ui/form.tsx';
import { useNotice } from '../ui/notice.tsx';
import { Loading, Page } from '../ui/page.tsx';
import { Table } from '../ui/table.tsx';

type Client = Outputs['clients']['get']['client'];
type Recipient = Outputs['clients']['get']['recipients'][number];

export const BILLING_METHODS = [
  ['hourly_project_rate', 'Hourly, project rate'],
  ['hourly_person_rate', 'Hourly, rate per person'],
  ['hourly_task_rate', 'Hourly, rate per task'],
  ['fixed_price_project', 'Fixed price'],
] as const;
export type BillingMethod = (typeof BILLING_METHODS)[number][0];

/** A project's name and billing method: with its hourly rate, or for a fixed-price project its flat amount (amount fields). */
export interface ProjectBasics {
  name: string;
  billing: BillingMethod;
}

export const isFixedPrice = (billing: BillingMethod) => billing === 'fixed_price_project';

/** The amount a project bills by: its flat amount when fixed-price (none yet: null), else its hourly rate. */
export function projectAmount(p: { billing_method: BillingMethod; hourly_rate: number; flat_amount: string | null; currency: string }): string | null {
  if (!isFixedPrice(p.billing_method)) return formatMoney(p.hourly_rate, p.currency);
  return p.flat_amount === null ? null : formatMoney(Number(p.flat_amount), p.currency);
}

/** The same in words: `$120.00 an hour`, `¥2,500,000 fixed price`. */
export function projectPrice(p: Parameters<typeof projectAmount>[0]): string {
  const amount = projectAmount(p);
  if (!isFixedPrice(p.billing_method)) return `${amount} an hour`;
  return amount === null ? 'fixed price, no amount set' : `${amount} fixed price`;
}

/**
 * The fields of a new project and of its settings: name, billing method, and the amount that
 * billing method bills by: the hourly rate, or the flat amount of a fixed-price project (an hourly
 * rate means nothing there, so it is not asked for).
 */
export function ProjectBasicsFields({ value, onChange, rate, flat, currency, errors }: { value: ProjectBasics; onChange: (v: ProjectBasics) => void; rate: AmountInput; flat: AmountInput; currency: string; errors: FormErrors }) {
  return (
    <>
      <TextField label="Name" value={value.name} onChange={(name) => onChange({ ...value, name })} error={errors.field('project.name')} />
      <SelectField label="Billing" value={value.billing} options={BILLING_METHODS} onChange={(billing) => onChange({ ...value, billing })} error={errors.field('project.billing_method')} />
      {isFixedPrice(value.billing) ? (
        <AmountField label={`Flat amount (${currency})`} hint="The whole project's price" amount={flat} error={errors.field('project.flat_amount')} />
      ) : (
        <AmountField label={`Hourly rate (${currency})`} amount={rate} error={errors.field('project.hourly_rate')} />
      )}
    </>
  );
}

/** The amount fields of a project form, checked and sent for its billing method: only the one shown. */
export function projectAmounts(billing: BillingMethod, rate: AmountInput, flat: AmountInput) {
  const fixed = isFixedPrice(billing);
  return {
    whenValid: (send: () => void) => (fixed ? flat : rate).whenValid(send),
    fields: fixed ? { flat_amount: flat.value } : rate.value === null ? {} : { hourly_rate: rate.value },
  };
}

export const PROJECT_AMOUNT_FIELDS = ['project.hourly_rate', 'project.flat_amount'] as const;

/** Client fields as the forms hold them (text), for the new-client dialog and the details form. */
export interface ClientFields {
  name: string;
  currency: string;
  days: string;
  address: string;
}

export function ClientFieldsInputs({ value, onChange, errors, paths }: { value: ClientFields; onChange: (v: ClientFields) => void; errors: FormErrors; paths: Record<keyof ClientFields, string> }) {
  return (
    <>
      <TextField label="Name" value={value.name} onChange={(name) => onChange({ ...value, name })} error={errors.field(paths.name)} />
      <TextField label="Currency" hint="ISO code, e.g. USD or EUR" maxLength={3} value={value.currency} onChange={(c) => onChange({ ...value, currency: c.toUpperCase() })} error={errors.field(paths.currency)} />
      <TextField label="Invoices due after (days)" inputMode="numeric" value={value.days} onChange={(days) => onChange({ ...value, days })} error={errors.field(paths.days)} />
      <TextField label="Address" className="span" multiline value={value.address} onChange={(address) => onChange({ ...value, address })} error={errors.field(paths.address)} />
    </>
  );
}

const fieldsOf = (client: Client): ClientFields => ({ name: client.name, currency: client.currency, days: String(client.default_invoice_due_in_days), address: client.address });

/**
 * The client's details and status. The form is made once per client: archiving or reactivating
 * changes the badge and the button, never what is typed in the form; saving shows the client as saved.
 */
function ClientDetails({ client }: { client: Client }) {
  const notify = useNotice();
  const [form, setForm] = useState<ClientFields>(() => fieldsOf(client));
  const save = useMutation({
    mutationFn: async () => {
      await api.clients.update.mutate({
        client_id: client.id,
        client: { name: form.name, currency: form.currency, default_invoice_due_in_days: form.days.trim(), address_attributes: { full_address: form.address } },
      });
      return api.clients.get.query({ client_id: client.id });
    },
    onSuccess: ({ client: saved }) => {
      setForm(fieldsOf(saved));
      notify('Client saved');
    },
  });
  const status = useMutation({
    mutationFn: (next: 'active' | 'archived') => api.clients.updateStatus.mutate({ client_ids: [client.id], status: next }),
    onSuccess: (_r, next) => notify(next === 'archived' ? 'Client archived' : 'Client reactivated'),
  });
  const paths = { name: 'client.name', currency: 'client.currency', days: 'client.default_invoice_due_in_days', address: 'client.address_attributes' };
  const errors = formErrors(save.error ? apiError(save.error) : null, Object.values(paths));
  return (
    <section className="panel" aria-labelledby="details">
      <div className="group-head">
        <h2 id="details">Details</h2>
        <Badge status={client.status} />
        <button type="button" className="button" disabled={status.isPending} onClick={() => status.mutate(client.status === 'active' ? 'archived' : 'active')}>
          {client.status === 'active' ? 'Archive' : 'Reactivate'}
        </button>
      </div>
      <FormError message={status.error ? apiError(status.error).message : null} />
      <Form className="grid-form" onSubmit={() => save.mutate()}>
        <FormError message={errors.form} />
        <ClientFieldsInputs value={form} onChange={setForm} errors={errors} paths={paths} />
        <div className="span">
          <Actions submit="Save details" pending={save.isPending} />
        </div>
      </Form>
    </section>
  );
}

/** A recipient's name and e-mail, and what to do with them (save, add, remove). */
function RecipientForm({ initial, submit, pending, error, onSubmit, children }: { initial: { name: string; email: string }; submit: ReactNode; pending: boolean; error: unknown; onSubmit: (v: { name: string; email: string }) => void; children?: ReactNode }) {
  const [form, setForm] = useState(initial);
  const errors = formErrors(error ? apiError(error) : null, ['recipient.name', 'recipient.email']);
  return (
    <Form className="inline-form" onSubmit={() => onSubmit(form)}>
      <TextField label="Name" value={form.name} onChange={(name) => setForm({ ...form, name })} error={errors.field('recipient.name')} />
      <TextField label="E-mail" type="email" value={form.email} onChange={(email) => setForm({ ...form, email })} error={errors.field('recipient.email') ?? errors.form ?? undefined} />
      <Actions submit={submit} pending={pending}>
        {children}
      </Actions>
    </Form>
  );
}

function RecipientRow({ clientId, recipient }: { clientId: string; recipient: Recipient }) {
  const notify = useNotice();
  const save = useMutation({
    mutationFn: (r: { name: string; email: string }) => api.recipients.update.mutate({ client_id: clientId, recipient_id: recipient.id, recipient: r }),
    onSuccess: () => notify('Recipient saved'),
  });
  const remove = useMutation({ mutationFn: () => api.recipients.delete.mutate({ client_id: clientId, recipient_id: recipient.id }), onSuccess: () => notify('Recipient removed') });
  return (
    <li>
      <RecipientForm initial={recipient} submit={
          <>
            Save<span className="visually-hidden"> {recipient.name}</span>
          </>
        }
        pending={save.isPending} error={save.error ?? remove.error} onSubmit={(r) => save.mutate(r)}>
        <button className="button danger" type="button" disabled={remove.isPending} onClick={() => window.confirm(`Remove ${recipient.name}? They get no more invoices.`) && remove.mutate()}>
          Remove<span className="visually-hidden"> {recipient.name}</span>
        </button>
      </RecipientForm>
    </li>
  );
}

function Recipients({ clientId, recipients }: { clientId: string; recipients: Recipient[] }) {
  const me = useMe();
  const notify = useNotice();
  const [round, setRound] = useState(0);
  const add = useMutation({
    mutationFn: (recipient: { name: string; email: string }) => api.recipients.create.mutate({ email: me.member.email, client_id: clientId, recipient }),
    onSuccess: ({ recipient }) => {
      notify(`${recipient.name} will receive invoices`);
      setRound(round + 1);
    },
  });
  return (
    <section className="panel" aria-labelledby="recipients">
      <h2 id="recipients">Invoice recipients</h2>
      {recipients.length === 0 ? <p className="muted">No one receives this client’s invoices by e-mail yet.</p> : null}
      <ul className="plain">
        {recipients.map((r) => (
          <RecipientRow key={`${r.id}-${r.updated_at}`} clientId={clientId} recipient={r} />
        ))}
      </ul>
      <h3>Add a recipient</h3>
      <RecipientForm key={round} initial={{ name: '', email: '' }} submit="Add recipient" pending={add.isPending} error={add.error} onSubmit={(r) => add.mutate(r)} />
    </section>
  );
}

function NewProjectDialog({ client, onClose }: { client: Client; onClose: () => void }) {
  const me = useMe();
  const [, navigate] = useLocation();
  const notify = useNotice();
  const [basics, setBasics] = useState<ProjectBasics>({ name: '', billing: 'hourly_project_rate' });
  const rate = useAmountInput('', client.currency, { positive: true, optional: true });
  const flat = useAmountInput('', client.currency);
  const amounts = projectAmounts(basics.billing, rate, flat);
  const [task, setTask] = useState('General');
  const create = useMutation({
    mutationFn: () =>
      api.projects.create.mutate({
        email: me.member.email,
        project: {
          name: basics.name,
          client_id: client.id,
          billing_method: basics.billing,
          currency: client.currency,
          ...amounts.fields,
          ...(task.trim() ? { tasks_attributes: [{ name: task, billable: true }] } : {}),
          project_users_attributes: [{ user_id: me.member.id, role: 'project_manager' }],
        },
      }),
    onSuccess: ({ project }) => {
      notify(`Project ${project.name} created`);
      navigate(`/projects/${project.id}`);
    },
  });
  const errors = formErrors(create.error ? apiError(create.error) : null, ['project.name', 'project.billing_method', ...PROJECT_AMOUNT_FIELDS, 'project.tasks_attributes']);
  return (
    <Dialog title={`New project for ${client.name}`} onClose={onClose}>
      <Form className="stack" onSubmit={() => amounts.whenValid(() => create.mutate())}>
        <FormError message={errors.form} />
        <ProjectBasicsFields value={basics} onChange={setBasics} rate={rate} flat={flat} currency={client.currency} errors={errors} />
        <TextField label="First task" hint="More tasks and checklists on the project's page" value={task} onChange={setTask} error={errors.field('project.tasks_attributes')} />
        <Actions submit="Create project" pending={create.isPending} onCancel={onClose} />
      </Form>
    </Dialog>
  );
}

export function ClientPage() {
  const { id = '' } = useParams<{ id: string }>();
  const [creating, setCreating] = useState(false);
  const client = useQuery({ queryKey: ['clients.get', id], queryFn: () => api.clients.get.query({ client_id: id }) });
  const projects = useQuery({ queryKey: ['projects.list', { client_id: id }], queryFn: () => api.projects.list.query({ client_id: id, limit: 200 }) });
  if (!client.data) return <Page title="Client"><Loading error={client.error} what="the client" /></Page>;
  const c = client.data.client;
  return (
    <Page
      title={c.name}
      actions={
        c.status === 'active' && (
          <Link className="button primary" href={`/invoicing/new?client=${c.id}`}>
            New invoice
          </Link>
        )
      }
    >
      <p>
        <Link href="/clients">← All clients</Link>
      </p>
      <ClientDetails key={c.id} client={c} />
      <section className="panel" aria-labelledby="projects">
        <div className="group-head">
          <h2 id="projects">Projects</h2>
          {c.status === 'active' && (
            <button type="button" className="button" onClick={() => setCreating(true)}>
              New project
            </button>
          )}
        </div>
        {projects.data ? (
          <Table
            caption="Projects"
            captionHidden
            rows={projects.data.items}
            rowKey={(p) => p.id}
            empty="No projects yet."
            columns={[
              { header: 'Project', cell: (p) => <Link href={`/projects/${p.id}`}>{p.name}</Link> },
              { header: 'Billing', cell: (p) => BILLING_METHODS.find(([v]) => v === p.billing_method)?.[1] ?? p.billing_method },
              { header: 'Rate or price', align: 'end', cell: (p) => projectAmount(p) ?? '—' },
              { header: 'Status', cell: (p) => <Badge status={p.status} /> },
            ]}
          />
        ) : (
          <Loading error={projects.error} what="the projects" />
        )}
      </section>
      <Recipients clientId={c.id} recipients={client.data.recipients} />
      {creating && <NewProjectDialog client={c} onClose={() => setCreating(false)} />}
    </Page>
  );
}
