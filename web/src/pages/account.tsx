import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useLocation } from 'wouter';
import { api, apiError, queryClient } from '../api.ts';
import { useMe } from '../session.tsx';
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

/** Ends every session, this one included, and goes to the sign-in page. */
function Sessions() {
  const [, navigate] = useLocation();
  const everywhere = useMutation({
    mutationFn: () => api.auth.signOutEverywhere.mutate(),
    onSuccess: () => {
      queryClient.clear();
      navigate('/sign-in');
    },
  });
  return (
    <section className="panel stack" aria-labelledby="sessions">
      <h2 id="sessions">Sessions</h2>
      <p>Signed in on a computer you no longer use? End every session, this one included, and revoke your personal API keys.</p>
      <div className="row">
        <button type="button" className="button danger" onClick={() => everywhere.mutate()} disabled={everywhere.isPending}>
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
