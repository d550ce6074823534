import { QueryClient, QueryCache, MutationCache } from '@tanstack/react-query';
import { createTRPCClient, httpBatchLink, splitLink, TRPCClientError } from '@trpc/client';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { MAX_BATCH_CALLS } from '../../src/trpc/limits.ts';
import type { AppRouter } from '../../src/trpc/router.ts';

const csrf = () => ({ 'x-hourbook-csrf': '1' });
/** Longer query inputs than this (URL-encoded) go in a POST body: an invoice preview of hundreds of entries does not fit a URL. */
const QUERY_IN_URL = 3000;
/**
 * The server's limit of calls per request; larger batches are split. Typed as the server's own
 * literal (the web app takes only types from the server), so a change there fails this app's
 * typecheck until this follows.
 */
const MAX_BATCH: typeof MAX_BATCH_CALLS = 20;
/**
 * Queries whose input is a secret (a one-time link's token) are POSTed too: an address ends up in
 * proxies' access logs, which would keep a live invite or reset link (docs/auth.md).
 */
const SECRET_INPUT = new Set(['auth.checkLink']);

/**
 * The typed client of the server's procedures. Same origin, so the session cookie goes along; every
 * call carries the CSRF header the server demands of cookie calls (docs/auth.md). Batching answers
 * a batch at once (not streamed), so a procedure can still set the session cookie. Queries travel
 * as GET, except one whose input is too long for an address or secret, which is POSTed (the server
 * allows that override; it is still only a query).
 */
export const api = createTRPCClient<AppRouter>({
  links: [
    splitLink({
      condition: (op) => op.type === 'query' && (SECRET_INPUT.has(op.path) || encodeURIComponent(JSON.stringify(op.input ?? null)).length > QUERY_IN_URL),
      true: httpBatchLink({ url: '/trpc', methodOverride: 'POST', headers: csrf, maxItems: MAX_BATCH }),
      false: httpBatchLink({ url: '/trpc', maxURLLength: 2 * QUERY_IN_URL, headers: csrf, maxItems: MAX_BATCH }),
    }),
  ],
});

export type Inputs = inferRouterInputs<AppRouter>;
export type Outputs = inferRouterOutputs<AppRouter>;

export interface FieldError {
  path: string;
  message: string;
}

/** A failed call in the product's vocabulary: the stable `code`, the status, and per-field details. */
export interface ApiError {
  code: string;
  status: number;
  message: string;
  details: FieldError[];
  extra: Record<string, unknown>;
}

interface ErrorData {
  code?: string;
  httpStatus?: number;
  details?: FieldError[];
  extra?: Record<string, unknown>;
}

export function apiError(err: unknown): ApiError {
  // The member closed the password dialog (ui/confirm-password.tsx): nothing was sent again.
  if (err instanceof Error && err.name === 'PasswordNotGiven') return { code: 'password_not_given', status: 0, message: err.message, details: [], extra: {} };
  // No answer from the server (offline, connection refused, a proxy's page instead of the API's):
  // the client error carries no shape of the server's.
  if (err instanceof TRPCClientError && err.shape !== undefined) {
    const data = (err.data ?? {}) as ErrorData;
    return { code: data.code ?? 'error', status: data.httpStatus ?? 0, message: err.message, details: data.details ?? [], extra: data.extra ?? {} };
  }
  return { code: 'network', status: 0, message: 'The server could not be reached; check your connection and try again', details: [], extra: {} };
}

/** Called when the server says the session has ended, so the app can show the sign-in page. */
let onSignedOut: () => void = () => {};
export const whenSignedOut = (fn: () => void) => {
  onSignedOut = fn;
};

const watch = (err: unknown) => {
  if (apiError(err).status === 401) onSignedOut();
};

export const queryClient: QueryClient = new QueryClient({
  queryCache: new QueryCache({ onError: watch }),
  mutationCache: new MutationCache({
    onError: watch,
    // Every change may show on another page: refetch what is on screen, mark the rest stale; not
    // after signing out (`meta.refetch: false`), when every call would be refused.
    onSuccess: (_data, _variables, _context, mutation): Promise<void> | undefined => (mutation.meta?.refetch === false ? undefined : queryClient.invalidateQueries()),
  }),
  defaultOptions: {
    queries: {
      staleTime: 30_000,
      refetchOnWindowFocus: true,
      retry: (count, err) => apiError(err).status === 0 && count < 2,
      // Offline, a call fails (and says the server could not be reached) rather than waiting,
      // paused, with its button disabled and nothing said.
      networkMode: 'always',
    },
    mutations: { retry: false, networkMode: 'always' },
  },
});
