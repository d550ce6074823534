import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, apiError, type Outputs } from '../api.ts';
import { formatDateTime, formatDayOf } from '../format.ts';
import { useMe } from '../session.tsx';
import { Badge } from '../ui/badge.tsx';
import { useWithPassword } from '../ui/confirm-password.tsx';
import { Form, TextField, SubmitButton } from '../ui/form.tsx';
import { FormError, formErrors } from '../ui/field.tsx';
import { useNotice } from '../ui/notice.tsx';
import { Loading } from '../ui/page.tsx';
import { SecretOnce } from '../ui/secret.tsx';
import { Table } from '../ui/table.tsx';

type Key = Outputs['apiKeys']['list']['items'][number];

const stateOf = (k: Key) => (k.revoked_at ? 'revoked' : k.expires_at && Date.parse(k.expires_at) <= Date.now() ? 'expired' : 'active');

/**
 * API keys: workspace keys (settings, Owner/Admin) speak for the workspace; personal keys (account
 * page) act as their member. A new key is shown once, here, and never again.
 */
export function ApiKeys({ personal }: { personal: boolean }) {
  const me = useMe();
  const notify = useNotice();
  const keys = useQuery({ queryKey: ['apiKeys.list'], queryFn: () => api.apiKeys.list.query() });
  const [label, setLabel] = useState('');
  const [expires, setExpires] = useState('');
  const [shown, setShown] = useState<string | null>(null);
  const withPassword = useWithPassword();
  // A key outlives the session: the server asks for the password, each time (ui/confirm-password.tsx).
  const create = useMutation({
    mutationFn: () => withPassword((current_password) => api.apiKeys.create.mutate({ label, personal, current_password, ...(expires ? { expires_on: expires } : {}) })),
    onSuccess: (r) => {
      setShown(r.api_key);
      setLabel('');
      setExpires('');
    },
  });
  const revoke = useMutation({ mutationFn: (key_id: string) => api.apiKeys.revoke.mutate({ key_id }), onSuccess: (r) => notify(`Key ${r.key.label} revoked`) });
  const errors = formErrors(create.error ? apiError(create.error) : null, ['label', 'expires_on']);
  const rows = (keys.data?.items ?? []).filter((k) => (personal ? k.member?.id === me.member.id : true));
  const zone = me.workspace.time_zone;
  return (
    <>
      {shown && <SecretOnce what="new key" secret={shown} onDone={() => setShown(null)} />}
      {keys.data ? (
        <Table
          caption={personal ? 'Your personal API keys' : 'API keys'}
          captionHidden
          rows={rows}
          rowKey={(k) => k.id}
          empty="No keys yet."
          columns={[
            { header: 'Label', cell: (k) => k.label },
            { header: 'Key', cell: (k) => <code>{k.prefix}…</code> },
            ...(personal ? [] : [{ header: 'Acts as', cell: (k: Key) => k.member?.email ?? 'The workspace' }]),
            // Days in the workspace's zone, as every business date of the app; the moment a key stops
            // working with its time (a key expires as its day begins in UTC, the evening before west of it).
            { header: 'Created', cell: (k) => formatDayOf(k.created_at, zone) },
            { header: 'Last used', cell: (k) => (k.last_used_at ? formatDateTime(k.last_used_at) : 'Never') },
            { header: 'Expires', cell: (k) => (k.expires_at ? formatDateTime(k.expires_at, zone) : 'Never') },
            { header: 'Status', cell: (k) => <Badge status={stateOf(k)} /> },
            {
              header: <span className="visually-hidden">Actions</span>,
              label: 'Actions',
              cell: (k) =>
                stateOf(k) === 'active' ? (
                  <button type="button" className="button small danger" disabled={revoke.isPending} onClick={() => window.confirm(`Revoke ${k.label}? Anything using it stops working.`) && revoke.mutate(k.id)}>
                    Revoke<span className="visually-hidden"> {k.label}</span>
                  </button>
                ) : null,
            },
          ]}
        />
      ) : (
        <Loading error={keys.error} what="the keys" />
      )}
      <FormError message={revoke.error ? apiError(revoke.error).message : null} />
      <h3>{personal ? 'New personal key' : 'New workspace key'}</h3>
      <Form
        className="inline-form"
        onSubmit={() => create.mutate()}
      >
        <TextField label="Label (what uses the key)" error={errors.field('label')} value={label} onChange={setLabel} />
        <TextField label="Expires on (optional)" hint="It stops working as that day begins in UTC" error={errors.field('expires_on')} type="date" value={expires} onChange={setExpires} />
        <SubmitButton pending={create.isPending}>
          Create key
        </SubmitButton>
        <FormError message={errors.form} />
      </Form>
    </>
  );
}
