import { useQuery } from '@tanstack/react-query';
import { createContext, useContext, type ReactNode } from 'react';
import { api, apiError, queryClient, whenSignedOut, type Outputs } from './api.ts';
import { setLocale } from './format.ts';

export type Me = Outputs['auth']['me'];

export const ME_KEY = ['auth.me'];

const MeContext = createContext<Me | null>(null);

/** The signed-in member; only pages behind the sign-in gate use it. */
export function useMe(): Me {
  const me = useContext(MeContext);
  if (!me) throw new Error('useMe outside the signed-in app');
  return me;
}

/** Who may see a page: everyone signed in, project managers (and Owners/Admins), or Owners/Admins. */
export type Audience = 'all' | 'manager' | 'admin';
export const maysee = (me: Me, who: Audience) => who === 'all' || me.is_admin || (who === 'manager' && me.manages_projects);

// A 401 anywhere means the session ended: no one is signed in any more.
whenSignedOut(() => queryClient.setQueryData(ME_KEY, null));

/** Who is signed in; null (not an error) when no one is. */
const whoIsSignedIn = (): Promise<Me | null> =>
  api.auth.me.query().catch((err: unknown) => {
    if (apiError(err).status === 401) return null;
    throw err;
  });

/** Renders `signedIn` with the member in context, `signedOut` when no session is open. */
export function SessionGate({ signedIn, signedOut }: { signedIn: ReactNode; signedOut: ReactNode }) {
  const me = useQuery({ queryKey: ME_KEY, queryFn: whoIsSignedIn, retry: false, staleTime: 5 * 60_000 });
  if (me.isPending) {
    return (
      <p className="muted boot" role="status">
        Loading…
      </p>
    );
  }
  if (me.isError) {
    return (
      <p className="form-error boot" role="alert">
        hourbook could not be reached: {apiError(me.error).message}
      </p>
    );
  }
  if (!me.data) return <>{signedOut}</>;
  setLocale(me.data.workspace.locale);
  return <MeContext.Provider value={me.data}>{signedIn}</MeContext.Provider>;
}

/** After signing in (or setting a password), the answer is the member: no second round trip. */
export const signedInAs = (me: Me) => queryClient.setQueryData<Me | null>(ME_KEY, me);
