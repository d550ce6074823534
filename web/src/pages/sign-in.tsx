import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useLocation } from 'wouter';
import { api, apiError } from '../api.ts';
import { formatDateTime } from '../format.ts';
import { signedInAs } from '../session.tsx';
import { Form, TextField, SubmitButton } from '../ui/form.tsx';
import { FormError, formErrors } from '../ui/field.tsx';
import { Page } from '../ui/page.tsx';

export function SignInPage() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  // Signed in, the app opens here, at /sign-in?next=…, and goes on to that page (app.tsx).
  const signIn = useMutation({
    mutationFn: () => api.auth.signIn.mutate({ email, password }),
    onSuccess: (me) => signedInAs(me),
  });
  const error = signIn.error ? apiError(signIn.error) : null;
  const errors = formErrors(error, ['email', 'password']);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    signIn.mutate();
  };
  return (
    <Page title="Sign in">
      <form className="panel stack" onSubmit={submit} noValidate>
        <FormError message={errors.form} />
        <TextField label="E-mail" error={errors.field('email')} type="email" autoComplete="username" required value={email} onChange={setEmail} />
        <TextField label="Password" error={errors.field('password')} type="password" autoComplete="current-password" required value={password} onChange={setPassword} />
        <SubmitButton pending={signIn.isPending}>
          {signIn.isPending ? 'Signing in…' : 'Sign in'}
        </SubmitButton>
        <p>
          <Link href="/forgot-password">Forgot your password?</Link>
        </p>
      </form>
    </Page>
  );
}

const tokenFromHash = () => new URLSearchParams(window.location.hash.slice(1)).get('token') ?? '';

/** The page of every one-time link: a first password (new workspace, invite) or a new one (reset). */
export function SetPasswordPage() {
  const [, navigate] = useLocation();
  const [token] = useState(tokenFromHash);
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const link = useQuery({ queryKey: ['auth.checkLink', token], queryFn: () => api.auth.checkLink.query({ token }), retry: false, enabled: token !== '' });
  const save = useMutation({
    mutationFn: () => api.auth.setPassword.mutate({ token, password }),
    onSuccess: (me) => {
      signedInAs(me);
      // The token must not stay in the address bar or the history.
      navigate('/timesheet', { replace: true });
    },
  });
  const error = save.error ? apiError(save.error) : null;
  const errors = formErrors(error, ['password']);
  if (token === '' || link.isError) {
    return (
      <Page title="This link does not work">
        <div className="panel stack">
          <p>{link.error ? apiError(link.error).message : 'The link is incomplete; open it again from your e-mail.'}</p>
          <p>
            <Link href="/forgot-password">Ask for a new link</Link> or ask an Owner or Admin of the workspace to send you one.
          </p>
        </div>
      </Page>
    );
  }
  if (!link.data) {
    return (
      <p className="muted" role="status">
        Checking your link…
      </p>
    );
  }
  const welcome = link.data.purpose !== 'reset';
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setMismatch(password !== repeat);
    if (password === repeat) save.mutate();
  };
  return (
    <Page title={welcome ? `Welcome to ${link.data.workspace_name}` : 'Choose a new password'}>
      <form className="panel stack" onSubmit={submit} noValidate>
        <p>
          {welcome ? `Hello ${link.data.first_name}, choose a password to sign in as ` : 'Choose a new password for '}
          <strong>{link.data.email}</strong>. This link works once, until {formatDateTime(link.data.expires_at)}.
        </p>
        <FormError message={errors.form} />
        <input type="email" hidden readOnly autoComplete="username" value={link.data.email} />
        <TextField label="New password" hint="At least 10 characters. A few unrelated words make a good one." error={errors.field('password')} type="password" autoComplete="new-password" value={password} onChange={setPassword} />
        <TextField label="Repeat the password" error={mismatch ? 'The two passwords are not the same' : undefined} type="password" autoComplete="new-password" value={repeat} onChange={setRepeat} />
        <SubmitButton pending={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save password and sign in'}
        </SubmitButton>
      </form>
    </Page>
  );
}

export function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const request = useMutation({ mutationFn: () => api.auth.requestReset.mutate({ email }) });
  const error = request.error ? apiError(request.error) : null;
  const errors = formErrors(error, ['email']);
  return (
    <Page title="Reset your password">
      {request.isSuccess ? (
        <div className="panel stack" role="status">
          <p>If {email} belongs to a member of this workspace, a link to choose a new password is on its way. It works for one hour.</p>
          <p>
            <Link href="/sign-in">Back to sign in</Link>
          </p>
        </div>
      ) : (
        <Form
          className="panel stack"
          onSubmit={() => request.mutate()}
        >
          <FormError message={errors.form} />
          <TextField label="E-mail" error={errors.field('email')} type="email" autoComplete="username" value={email} onChange={setEmail} />
          <SubmitButton pending={request.isPending}>
            Send me a link
          </SubmitButton>
          <p>
            <Link href="/sign-in">Back to sign in</Link>
          </p>
        </Form>
      )}
    </Page>
  );
}
