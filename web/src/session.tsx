import { useMutation, useQuery } from '@tanstack/react-query';
import { createContext, useContext, type ReactNode } from 'react';
import { useLocation } from 'wouter';
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
  // Dates and amounts in the workspace's locale (its identity's, as on invoices); a new locale
  // mounts the app afresh so every page formats in it.
  const { locale } = me.data.workspace;
  setLocale(locale);
  return (
    <MeContext.Provider key={locale} value={me.data}>
      {signedIn}
    </MeContext.Provider>
  );
}

/** After signing in (or setting a password), the answer is the member: no second round trip. */
export const signedInAs = (me: Me) => queryClient.setQueryData<Me | null>(ME_KEY, me);

/**
 * What the cache says of the session right now. The gate hears of a change a moment after it is
 * made (the query cache tells its observers on the next tick), while a change of address renders at
 * once: a route rendered in between asks this, so neither app redirects on the other's behalf
 * (signing in must not send `/reports` back to the sign-in page, signing out must not pass through
 * the timesheet).
 */
export const sessionNow = (): 'signed-in' | 'signed-out' | 'unknown' => {
  const me = queryClient.getQueryData<Me | null>(ME_KEY);
  return me === undefined ? 'unknown' : me === null ? 'signed-out' : 'signed-in';
};

/** Only a path of this app, never another site, is a place to go after signing in. */
export const safeNext = (search: string) => {
  const next = new URLSearchParams(search).get('next');
  return next && /^\/[a-z]/.test(next) && !next.startsWith('//') ? next : '/timesheet';
};

/**
 * Signing out (`call`: this session, or all of them): once the server has answered, the signed-out
 * app takes over at once on the sign-in page, with no `?next=` (a deliberate sign-out is not a
 * session that ran out). Nothing is refetched first: every call would only be refused. `always`:
 * sign out here even when the call failed (the Sign out button); otherwise the error is shown.
 */
export function useSignOut(call: () => Promise<unknown>, { always }: { always: boolean }) {
  const [, navigate] = useLocation();
  const signOutHere = () => {
    queryClient.setQueryData<Me | null>(ME_KEY, null);
    navigate('/sign-in', { replace: true });
  };
  return useMutation({
    mutationFn: call,
    meta: { refetch: false },
    onSuccess: always ? undefined : signOutHere,
    onSettled: always ? signOutHere : undefined,
  });
}

/** What the signed-out app keeps of the cache: the session and the sign-in pages' own queries, nothing of the member's. */
export const forgetMembersData = () => queryClient.removeQueries({ predicate: (q) => !String(q.queryKey[0]).startsWith('auth.') });
