import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { RateLimiter } from '../workspaces/rate-limit.ts';
import type { WorkspaceRegistry } from '../workspaces/registry.ts';

/** What lives as long as the process: shared by every request's context. */
export interface AppServices {
  config: Config;
  registry: WorkspaceRegistry;
  clock: Clock;
  logger: Logger;
  rateLimiter: RateLimiter;
  /** Wakes the outbox worker for a workspace after a commit that queued mail (a no-op when no worker runs). */
  notifyOutbox: (subdomain: string) => void;
}

/** One request's context, the same for both doors. The workspace is resolved by the procedures. */
export interface Context extends Omit<AppServices, 'notifyOutbox'> {
  /** Wakes the outbox worker for this request's workspace, after a commit that queued mail. */
  notifyOutbox: () => void;
  requestId: string;
  /** The workspace label from the Host header, or null when the host names none. */
  subdomain: string | null;
  apiKey: string | undefined;
}

interface RequestLike {
  headers: Record<string, string | string[] | undefined>;
}

const header = (req: RequestLike, name: string): string | undefined => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

export function hostOf(req: RequestLike, trustProxy: boolean): string | undefined {
  return (trustProxy ? header(req, 'x-forwarded-host')?.split(',')[0]?.trim() : undefined) ?? header(req, 'host');
}

/** The context of one call to a workspace, whichever door it came through (or none: tests, scripts). */
export function callContext(services: AppServices, call: { requestId: string; subdomain: string | null; apiKey: string | undefined }): Context {
  const { subdomain } = call;
  return {
    ...services,
    ...call,
    notifyOutbox: () => {
      if (subdomain) services.notifyOutbox(subdomain);
    },
  };
}

export function contextFor(
  services: AppServices,
  req: RequestLike,
  requestId: string,
  subdomainOf: (host: string | undefined) => string | null,
): Context {
  return callContext(services, { requestId, subdomain: subdomainOf(hostOf(req, services.config.trustProxy)), apiKey: header(req, 'x-api-key') });
}
