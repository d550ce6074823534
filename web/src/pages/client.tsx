import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useLocation, useParams } from 'wouter';
import { api, apiError, type Outputs } from '../api.ts';
import { formatMoney } from '../format.ts';
import { useMe } from '../session.tsx';
import { Badge } from '../ui/badge.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { Field, FormError, formErrors } from '../ui/field.tsx';
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

function ClientDetails({ client }: { client: Client }) {
  const notify = useNotice();
  const [form, setForm] = useState({ name: client.name, currency: client.currency, days: String(client.default_invoice_due_in_days), address: client.address });
  const save = useMutation({
    mutationFn: () =>
      api.clients.update.mutate({
        client_id: client.id,
        client: { name: form.name, currency: form.currency, default_invoice_due_in_days: form.days, address_attributes: { full_address: form.address } },
      }),
    onSuccess: () => notify('Client saved'),
  });
  const status = useMutation({
    mutationFn: (next: 'active' | 'archived') => api.clients.updateStatus.mutate({ client_ids: [client.id], status: next }),
    onSuccess: (_r, next) => notify(next === 'archived' ? 'Client archived' : 'Client reactivated'),
  });
  const errors = formErrors(save.error ? apiError(save.error) : null, ['client.name', 'client.currency', 'client.default_invoice_due_in_days', 'client.address_attributes']);
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
      <form
        className="grid-form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        <FormError message={errors.form} />
        <Field label="Name" error={errors.field('client.name')}>
          {(p) => <input {...p} value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />}
        </Field>
        <Field label="Currency" error={errors.field('client.currency')}>
          {(p) => <input {...p} value={form.currency} maxLength={3} onChange={(e) => setForm({ ...form, currency: e.target.value.toUpperCase() })} />}
        </Field>
        <Field label="Invoices due after (days)" error={errors.field('client.default_invoice_due_in_days')}>
          {(p) => <input {...p} inputMode="numeric" value={form.days} onChange={(e) => setForm({ ...form, days: e.target.value })} />}
        </Field>
        <Field label="Address" className="span" error={errors.field('client.address_attributes')}>
          {(p) => <textarea {...p} rows={2} value={form.address} onChange={(e) => setForm({ ...form, address: e.target.value })} />}
        </Field>
        <div className="row span">
          <button className="button primary" type="submit" disabled={save.isPending}>
            Save details
          </button>
        </div>
      </form>
    </section>
  );
}

function RecipientRow({ clientId, recipient }: { clientId: string; recipient: Recipient }) {
  const notify = useNotice();
  const [form, setForm] = useState({ name: recipient.name, email: recipient.email });
  const save = useMutation({ mutationFn: () => api.recipients.update.mutate({ client_id: clientId, recipient_id: recipient.id, recipient: form }), onSuccess: () => notify('Recipient saved') });
  const remove = useMutation({ mutationFn: () => api.recipients.delete.mutate({ client_id: clientId, recipient_id: recipient.id }), onSuccess: () => notify('Recipient removed') });
  const errors = formErrors(save.error ? apiError(save.error) : null, ['recipient.name', 'recipient.email']);
  return (
    <li>
      <form
        className="inline-form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        <Field label="Name" error={errors.field('recipient.name')}>
          {(p) => <input {...p} value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />}
        </Field>
        <Field label="E-mail" error={errors.field('recipient.email') ?? errors.form ?? undefined}>
          {(p) => <input {...p} type="email" value={form.email} onChange={(e) => setForm({ ...form, email: e.target.value })} />}
        </Field>
        <button className="button" type="submit" disabled={save.isPending}>
          Save<span className="visually-hidden"> {recipient.name}</span>
        </button>
        <button className="button danger" type="button" disabled={remove.isPending} onClick={() => window.confirm(`Remove ${recipient.name}? They get no more invoices.`) && remove.mutate()}>
          Remove<span className="visually-hidden"> {recipient.name}</span>
        </button>
      </form>
    </li>
  );
}

function Recipients({ clientId, recipients }: { clientId: string; recipients: Recipient[] }) {
  const me = useMe();
  const notify = useNotice();
  const [form, setForm] = useState({ name: '', email: '' });
  const add = useMutation({
    mutationFn: () => api.recipients.create.mutate({ email: me.member.email, client_id: clientId, recipient: form }),
    onSuccess: () => {
      notify(`${form.name} will receive invoices`);
      setForm({ name: '', email: '' });
    },
  });
  const errors = formErrors(add.error ? apiError(add.error) : null, ['recipient.name', 'recipient.email']);
  return (
    <section className="panel" aria-labelledby="recipients">
      <h2 id="recipients">Invoice recipients</h2>
      {recipients.length === 0 ? <p className="muted">No one receives this client’s invoices by e-mail yet.</p> : null}
      <ul className="plain">
        {recipients.map((r) => (
          <RecipientRow key={r.id} clientId={clientId} recipient={r} />
        ))}
      </ul>
      <h3>Add a recipient</h3>
      <form
        className="inline-form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          add.mutate();
        }}
      >
        <Field label="Name" error={errors.field('recipient.name')}>
          {(p) => <input {...p} value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />}
        </Field>
        <Field label="E-mail" error={errors.field('recipient.email') ?? errors.form ?? undefined}>
          {(p) => <input {...p} type="email" value={form.email} onChange={(e) => setForm({ ...form, email: e.target.value })} />}
        </Field>
        <button className="button primary" type="submit" disabled={add.isPending}>
          Add recipient
        </button>
      </form>
    </section>
  );
}

function NewProjectDialog({ client, onClose }: { client: Client; onClose: () => void }) {
  const me = useMe();
  const [, navigate] = useLocation();
  const notify = useNotice();
  const [form, setForm] = useState({ name: '', billing: 'hourly_project_rate' as BillingMethod, rate: '', task: 'General' });
  const create = useMutation({
    mutationFn: () =>
      api.projects.create.mutate({
        email: me.member.email,
        project: {
          name: form.name,
          client_id: client.id,
          billing_method: form.billing,
          currency: client.currency,
          ...(form.rate.trim() ? { hourly_rate: Number(form.rate.replace(',', '.')) } : {}),
          ...(form.task.trim() ? { tasks_attributes: [{ name: form.task, billable: true }] } : {}),
          project_users_attributes: [{ user_id: me.member.id, role: 'project_manager' }],
        },
      }),
    onSuccess: ({ project }) => {
      notify(`Project ${project.name} created`);
      navigate(`/projects/${project.id}`);
    },
  });
  const errors = formErrors(create.error ? apiError(create.error) : null, ['project.name', 'project.billing_method', 'project.hourly_rate', 'project.tasks_attributes']);
  return (
    <Dialog title={`New project for ${client.name}`} onClose={onClose}>
      <form
        className="stack"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <FormError message={errors.form} />
        <Field label="Name" error={errors.field('project.name')}>
          {(p) => <input {...p} value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />}
        </Field>
        <Field label="Billing" error={errors.field('project.billing_method')}>
          {(p) => (
            <select {...p} value={form.billing} onChange={(e) => setForm({ ...form, billing: e.target.value as BillingMethod })}>
              {BILLING_METHODS.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label={`Hourly rate (${client.currency})`} error={errors.field('project.hourly_rate')}>
          {(p) => <input {...p} inputMode="decimal" value={form.rate} onChange={(e) => setForm({ ...form, rate: e.target.value })} />}
        </Field>
        <Field label="First task" hint="More tasks and checklists on the project's page" error={errors.field('project.tasks_attributes')}>
          {(p) => <input {...p} value={form.task} onChange={(e) => setForm({ ...form, task: e.target.value })} />}
        </Field>
        <div className="row">
          <button className="button primary" type="submit" disabled={create.isPending}>
            Create project
          </button>
          <button className="button" type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
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
      <ClientDetails key={c.updated_at} client={c} />
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
              { header: 'Rate', align: 'end', cell: (p) => formatMoney(p.hourly_rate, p.currency) },
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
