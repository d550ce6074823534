import { createContext, useCallback, useContext, useState, type ReactNode } from 'react';
import { apiError } from '../api.ts';
import { useMe } from '../session.tsx';
import { Dialog } from './dialog.tsx';
import { Actions, Form, TextField } from './form.tsx';

/**
 * Some calls take the member's password as well as the session (src/trpc/step-up.ts on the
 * server: making an API key, inviting an Owner or Admin, a new e-mail address or role of Owner or
 * Admin, a webhook endpoint added, moved or its secret rotated, the card processor's keys). The
 * server says when: its answer names `current_password` as required. The app does not keep that
 * list itself: `withPassword` makes the call, and when the server asks, shows one dialog for the
 * password and makes the call again with it; a wrong password is said in the dialog, which stays
 * open. The password lives in the dialog only for that call.
 */
type Call<T> = (currentPassword?: string) => Promise<T>;

/** The dialog's answer to "not now": the change was not made. */
export class PasswordNotGiven extends Error {
  constructor() {
    super('Nothing was changed: this needs your password');
    this.name = 'PasswordNotGiven';
  }
}

interface Asking {
  /** What the password is for, in the server's words ("add a webhook endpoint"). */
  purpose: string;
  attempt: (password: string) => Promise<void>;
  cancel: () => void;
}

const PasswordContext = createContext<<T>(call: Call<T>) => Promise<T>>((call) => call());

const REQUIRED = /^is required to /;

/** The password's own failures (wrong, too many tries): said in the dialog, which stays open. */
const OWN_FAILURES = new Set(['invalid_credentials', 'sign_in_throttled']);

/** The server's request for the password, if that is why the call was refused: what it is for. */
function askedFor(err: unknown): string | null {
  const e = apiError(err);
  const detail = e.code === 'validation_failed' ? e.details.find((d) => d.path === 'current_password') : undefined;
  return detail && REQUIRED.test(detail.message) ? detail.message.replace(REQUIRED, '') : null;
}

export function PasswordConfirmationProvider({ children }: { children: ReactNode }) {
  const [asking, setAsking] = useState<Asking | null>(null);
  const withPassword = useCallback(async <T,>(call: Call<T>): Promise<T> => {
    try {
      return await call();
    } catch (err) {
      const purpose = askedFor(err);
      if (purpose === null) throw err;
      return new Promise<T>((resolve, reject) => {
        setAsking({
          purpose,
          attempt: async (password) => {
            try {
              const result = await call(password);
              setAsking(null);
              resolve(result);
            } catch (failed) {
              // A wrong password is the dialog's to say; anything else is the page's.
              if (OWN_FAILURES.has(apiError(failed).code)) throw failed;
              setAsking(null);
              reject(failed);
            }
          },
          cancel: () => {
            setAsking(null);
            reject(new PasswordNotGiven());
          },
        });
      });
    }
  }, []);
  return (
    <PasswordContext.Provider value={withPassword}>
      {children}
      {asking && <PasswordDialog asking={asking} />}
    </PasswordContext.Provider>
  );
}

/**
 * `withPassword(call)`: `call()`, and again as `call(password)` once the member typed it, when the
 * server asks for it. Rejects with `PasswordNotGiven` when they close the dialog instead.
 */
export const useWithPassword = () => useContext(PasswordContext);

function PasswordDialog({ asking }: { asking: Asking }) {
  const me = useMe();
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const submit = async () => {
    setPending(true);
    setError(null);
    try {
      await asking.attempt(password);
    } catch (err) {
      const e = apiError(err);
      setError(e.code === 'invalid_credentials' ? 'This is not your password' : e.message);
      setPassword('');
      setPending(false);
    }
  };
  return (
    <Dialog title="Confirm with your password" onClose={asking.cancel}>
      <Form onSubmit={() => void submit()}>
        <p>To {asking.purpose}, enter your password: your session alone is not enough for this, so no one who got hold of it could do it.</p>
        <input type="email" hidden readOnly autoComplete="username" value={me.member.email} />
        <TextField label="Your password" error={error ?? undefined} type="password" autoComplete="current-password" value={password} onChange={setPassword} autoFocus />
        <Actions submit="Confirm" pending={pending} onCancel={asking.cancel} />
      </Form>
    </Dialog>
  );
}
