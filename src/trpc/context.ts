import type { AppServices } from '../services.ts';

/** One request's context, the same for both doors. The workspace is resolved by the procedures. */
export interface Context {
  services: AppServices;
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

export function contextFor(services: AppServices, req: RequestLike, requestId: string, subdomainOf: (host: string | undefined) => string | null): Context {
  return { services, requestId, subdomain: subdomainOf(hostOf(req, services.config.trustProxy)), apiKey: header(req, 'x-api-key') };
}
