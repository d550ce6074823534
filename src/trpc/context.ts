import type { Transaction } from '../db/index.ts';
import type { ClientInfo, SessionGrant } from '../domain/accounts/sessions.ts';
import type { AppServices } from '../services.ts';
import type { WorkspaceHandle } from '../workspaces/handle.ts';

/** The workspace a request reached and the key that opened it. */
export interface Authenticated {
  handle: WorkspaceHandle;
  keyId: string;
  /** A personal key's member (calls made with it act as that member); null for the workspace key. */
  memberId: string | null;
}

/**
 * What the /trpc door knows about a browser: the session cookie it presented, where it calls from,
 * and how to set or clear its cookie. REST requests have none: that door takes API keys only.
 */
export interface BrowserRequest {
  sessionToken: string | undefined;
  client: ClientInfo;
  /** Sets the session cookie (a grant) or clears it (null). */
  setSession(grant: SessionGrant | null): void;
}

/** One request's context, the same for both doors. The workspace is resolved by the procedures. */
export interface Context {
  services: AppServices;
  requestId: string;
  /** The workspace label from the Host header, or null when the host names none. */
  subdomain: string | null;
  apiKey: string | undefined;
  /** Set once the workspace and key were checked (and the rate limit taken) for this request. */
  auth?: Authenticated;
  /** Set by a door that keeps its answer (a request with an idempotency key); mutations call it. */
  callHooks?: CallHooks;
  /** Only on /trpc (and in tests that act as a browser). */
  browser?: BrowserRequest | undefined;
}

/** What a door that keeps its answer needs to hear from the mutation it calls. */
export interface CallHooks {
  /** Inside the mutation's transaction, right before commit: records the door's answer with the change. */
  beforeCommit(tx: Transaction, procedure: string, output: unknown): void;
  /** The mutation is about to run; false when the caller went away first, and then it must not. */
  begin(): boolean;
  /** The mutation has returned or failed. */
  end(): void;
}

interface RequestLike {
  headers: Record<string, string | string[] | undefined>;
}

export const header = (req: RequestLike, name: string): string | undefined => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * What a trusted proxy says in an `X-Forwarded-*` header: its last entry, the one the proxy itself
 * wrote. Entries before it came from the client (a proxy that appends keeps what the client sent),
 * so the first would be the client's choice. Undefined when the header is absent or empty.
 */
export function forwarded(req: RequestLike, name: 'x-forwarded-for' | 'x-forwarded-host' | 'x-forwarded-proto'): string | undefined {
  return header(req, name)?.split(',').at(-1)?.trim() || undefined;
}

export function hostOf(req: RequestLike, trustProxy: boolean): string | undefined {
  return (trustProxy ? forwarded(req, 'x-forwarded-host') : undefined) ?? header(req, 'host');
}

export function contextFor(
  services: AppServices,
  req: RequestLike,
  requestId: string,
  subdomainOf: (host: string | undefined) => string | null,
  browser?: BrowserRequest,
): Context {
  return { services, requestId, subdomain: subdomainOf(hostOf(req, services.config.trustProxy)), apiKey: header(req, 'x-api-key'), browser };
}
