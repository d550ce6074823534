import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, apiError, type Outputs } from '../api.ts';
import { useMe, useSignOut, type Me } from '../session.tsx';
import { Actions, Form, TextField } from '../ui/form.tsx';
import { FormError, formErrors } from '../ui/field.tsx';
import { useNotice } from '../ui/notice.tsx';
import { Page } from '../ui/page.tsx';
import { ApiKeys } from './api-keys.tsx';

/** Current and new password; a change signs out one's other sessions. */
function ChangePassword({ email }: { email: string }) {
  const notify = useNotice();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const change = useMutation({
    mutationFn: () => api.auth.changePassword.mutate({ current_password: current, new_password: next }),
    onSuccess: () => {
      notify('Password changed; your other sessions were signed out');
      setCurrent('');
      setNext('');
    },
  });
  const errors = formErrors(change.error ? apiError(change.error) : null, ['current_password', 'new_password']);
  return (
    <Form
      className="panel stack"
      aria-labelledby="pw"
      onSubmit={() => change.mutate()}
    >
      <h2 id="pw">Change your password</h2>
      <FormError message={errors.form} />
      <input type="email" hidden readOnly autoComplete="username" value={email} />
      <TextField label="Current password" error={errors.field('current_password')} type="password" autoComplete="current-password" value={current} onChange={setCurrent} />
      <TextField label="New password" hint="At least 10 characters" error={errors.field('new_password')} type="password" autoComplete="new-password" value={next} onChange={setNext} />
      <Actions submit="Change password" pending={change.isPending} />
    </Form>
  );
}

type Key = Outputs['apiKeys']['list']['items'][number];

/** One's own personal keys that still work: what signing out everywhere revokes. */
const liveKeysOf = (keys: Key[], me: Me) => keys.filter((k) => k.member?.id === me.member.id && !k.revoked_at && !(k.expires_at && Date.parse(k.expires_at) <= Date.now()));

/** What "Sign out everywhere" asks before it ends every session and revokes one's personal keys (it cannot be undone). */
function signOutEverywhereQuestion(keys: Key[] | undefined): string {
  const sessions = 'End every session, this one included? You will have to sign in again on every device.';
  if (keys === undefined) return `${sessions}\n\nYour personal API keys are revoked too: scripts using them stop working.`;
  if (keys.length === 0) return sessions;
  const named = keys.length === 1 ? `your personal API key “${keys[0]!.label}”` : `your ${keys.length} personal API keys (${keys.map((k) => `“${k.label}”`).join(', ')})`;
  return `${sessions}\n\nThis also revokes ${named}: scripts using ${keys.length === 1 ? 'it' : 'them'} stop working, and this cannot be undone.`;
}

/** Ends every session, this one included, and revokes one's personal keys, once confirmed; then the sign-in page. */
function Sessions() {
  const me = useMe();
  const keys = useQuery({ queryKey: ['apiKeys.list'], queryFn: () => api.apiKeys.list.query() });
  const everywhere = useSignOut(() => api.auth.signOutEverywhere.mutate(), { always: false });
  const live = keys.data ? liveKeysOf(keys.data.items, me) : undefined;
  const ask = () => {
    if (window.confirm(signOutEverywhereQuestion(live))) everywhere.mutate();
  };
  return (
    <section className="panel stack" aria-labelledby="sessions">
      <h2 id="sessions">Sessions</h2>
      <p>
        Signed in on a computer you no longer use? End every session, this one included, and revoke your personal API keys
        {live && live.length > 0 ? ` (${live.length} active): scripts using them stop working` : ''}.
      </p>
      <FormError message={everywhere.error ? apiError(everywhere.error).message : null} />
      <div className="row">
        <button type="button" className="button danger" onClick={ask} disabled={everywhere.isPending}>
          Sign out everywhere
        </button>
      </div>
    </section>
  );
}

export function AccountPage() {
  const me = useMe();
  const m = me.member;
  return (
    <Page title="Your account">
      <section className="panel" aria-labelledby="you">
        <h2 id="you">
          {m.first_name} {m.last_name}
        </h2>
        <dl className="facts">
          <div>
            <dt>E-mail</dt>
            <dd>{m.email}</dd>
          </div>
          <div>
            <dt>Role</dt>
            <dd>{m.organization_role}</dd>
          </div>
          <div>
            <dt>Time zone</dt>
            <dd>{m.time_zone.replaceAll('_', ' ')}</dd>
          </div>
        </dl>
      </section>
      <ChangePassword email={m.email} />
      <Sessions />
      <section className="panel" aria-labelledby="personal-keys">
        <h2 id="personal-keys">Personal API keys</h2>
        <p className="muted">A personal key lets a script act as you — only as you.</p>
        <ApiKeys personal />
      </section>
    </Page>
  );
}
