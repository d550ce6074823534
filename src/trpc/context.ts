import type { ClientInfo, SessionGrant } from '../domain/accounts/sessions.ts';
import type { AppServices } from '../services.ts';

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
  /** Only on /trpc (and in tests that act as a browser). */
  browser?: BrowserRequest | undefined;
}

interface RequestLike {
  headers: Record<string, string | string[] | undefined>;
}

export const header = (req: RequestLike, name: string): string | undefined => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

export function hostOf(req: RequestLike, trustProxy: boolean): string | undefined {
  return (trustProxy ? header(req, 'x-forwarded-host')?.split(',')[0]?.trim() : undefined) ?? header(req, 'host');
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
