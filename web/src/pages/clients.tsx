import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useLocation } from 'wouter';
import { api, apiError } from '../api.ts';
import { useMe } from '../session.tsx';
import { Badge } from '../ui/badge.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { Field, FormError, formErrors } from '../ui/field.tsx';
import { useDebounced } from '../ui/hooks.ts';
import { useNotice } from '../ui/notice.tsx';
import { Loading, Page } from '../ui/page.tsx';
import { Table } from '../ui/table.tsx';

function NewClientDialog({ onClose }: { onClose: () => void }) {
  const me = useMe();
  const notify = useNotice();
  const [, navigate] = useLocation();
  const [form, setForm] = useState({ name: '', currency: 'USD', days: '30', address: '' });
  const create = useMutation({
    mutationFn: () =>
      api.clients.create.mutate({
        email: me.member.email,
        name: form.name,
        currency: form.currency,
        default_invoice_due_in_days: Number(form.days),
        full_address: form.address,
      }),
    onSuccess: ({ client }) => {
      notify(`Client ${client.name} created`);
      navigate(`/clients/${client.id}`);
    },
  });
  const errors = formErrors(create.error ? apiError(create.error) : null, ['name', 'currency', 'default_invoice_due_in_days', 'full_address']);
  return (
    <Dialog title="New client" onClose={onClose}>
      <form
        className="stack"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <FormError message={errors.form} />
        <Field label="Name" error={errors.field('name')}>
          {(p) => <input {...p} value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />}
        </Field>
        <Field label="Currency" hint="ISO code, e.g. USD or EUR" error={errors.field('currency')}>
          {(p) => <input {...p} value={form.currency} maxLength={3} onChange={(e) => setForm({ ...form, currency: e.target.value.toUpperCase() })} />}
        </Field>
        <Field label="Invoices due after (days)" error={errors.field('default_invoice_due_in_days')}>
          {(p) => <input {...p} inputMode="numeric" value={form.days} onChange={(e) => setForm({ ...form, days: e.target.value })} />}
        </Field>
        <Field label="Address" error={errors.field('full_address')}>
          {(p) => <textarea {...p} rows={3} value={form.address} onChange={(e) => setForm({ ...form, address: e.target.value })} />}
        </Field>
        <div className="row">
          <button className="button primary" type="submit" disabled={create.isPending}>
            Create client
          </button>
          <button className="button" type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

export function ClientsPage() {
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState<'active' | 'archived' | ''>('active');
  const [creating, setCreating] = useState(false);
  const term = useDebounced(search.trim());
  const input = { limit: 200, ...(term ? { search: term } : {}), ...(status ? { status } : {}) };
  const clients = useQuery({ queryKey: ['clients.list', input], queryFn: () => api.clients.list.query(input), placeholderData: (previous) => previous });
  return (
    <Page
      title="Clients"
      actions={
        <button type="button" className="button primary" onClick={() => setCreating(true)}>
          New client
        </button>
      }
    >
      <div className="toolbar" role="search">
        <Field label="Search by name" className="inline grow">
          {(p) => <input {...p} type="search" value={search} onChange={(e) => setSearch(e.target.value)} />}
        </Field>
        <Field label="Status" className="inline">
          {(p) => (
            <select {...p} value={status} onChange={(e) => setStatus(e.target.value as typeof status)}>
              <option value="active">Active</option>
              <option value="archived">Archived</option>
              <option value="">All</option>
            </select>
          )}
        </Field>
      </div>
      {clients.data ? (
        <Table
          caption="Clients"
          captionHidden
          rows={clients.data.items}
          rowKey={(c) => c.id}
          empty={term ? `No client matches “${term}”.` : 'No clients yet.'}
          columns={[
            { header: 'Name', cell: (c) => <Link href={`/clients/${c.id}`}>{c.name}</Link> },
            { header: 'Currency', cell: (c) => c.currency },
            { header: 'Due after', cell: (c) => `${c.default_invoice_due_in_days} days` },
            { header: 'Status', cell: (c) => <Badge status={c.status} /> },
          ]}
        />
      ) : (
        <Loading error={clients.error} what="the clients" />
      )}
      {clients.data?.next_cursor && <p className="muted">Showing the first 200 clients; search to narrow them down.</p>}
      {creating && <NewClientDialog onClose={() => setCreating(false)} />}
    </Page>
  );
}
