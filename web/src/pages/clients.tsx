import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useLocation } from 'wouter';
import { api, apiError } from '../api.ts';
import { useMe } from '../session.tsx';
import { Badge } from '../ui/badge.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { ClientFieldsInputs, type ClientFields } from './client.tsx';
import { FormError, formErrors } from '../ui/field.tsx';
import { Actions, Form, TextField } from '../ui/form.tsx';
import { useDebounced } from '../ui/hooks.ts';
import { useNotice } from '../ui/notice.tsx';
import { Loading, Page } from '../ui/page.tsx';
import { Table } from '../ui/table.tsx';
import { StatusFilter, type StatusChoice } from '../ui/status-filter.tsx';

function NewClientDialog({ onClose }: { onClose: () => void }) {
  const me = useMe();
  const notify = useNotice();
  const [, navigate] = useLocation();
  const [form, setForm] = useState<ClientFields>({ name: '', currency: 'USD', days: '30', address: '' });
  const create = useMutation({
    mutationFn: () =>
      api.clients.create.mutate({ email: me.member.email, name: form.name, currency: form.currency, default_invoice_due_in_days: Number(form.days), full_address: form.address }),
    onSuccess: ({ client }) => {
      notify(`Client ${client.name} created`);
      navigate(`/clients/${client.id}`);
    },
  });
  const paths = { name: 'name', currency: 'currency', days: 'default_invoice_due_in_days', address: 'full_address' };
  const errors = formErrors(create.error ? apiError(create.error) : null, Object.values(paths));
  return (
    <Dialog title="New client" onClose={onClose}>
      <Form className="stack" onSubmit={() => create.mutate()}>
        <FormError message={errors.form} />
        <ClientFieldsInputs value={form} onChange={setForm} errors={errors} paths={paths} />
        <Actions submit="Create client" pending={create.isPending} onCancel={onClose} />
      </Form>
    </Dialog>
  );
}

export function ClientsPage() {
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState<StatusChoice>('active');
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
        <TextField label="Search by name" className="inline grow" type="search" value={search} onChange={setSearch} />
        <StatusFilter value={status} onChange={setStatus} />
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
