import type { TLSSocket } from 'node:tls';
import { parse, serialize } from 'cookie';
import type { Request, Response } from 'express';
import type { Config } from '../config.ts';
import type { SessionGrant } from '../domain/accounts/sessions.ts';
import { forwarded, header, type BrowserRequest } from '../trpc/context.ts';

/**
 * The session cookie. Host-only (no Domain attribute), so a browser never sends one workspace's
 * cookie to another workspace's host; over HTTPS it carries the `__Host-` prefix, which browsers
 * accept only from a secure, host-only, Path=/ cookie.
 */
const COOKIE = 'hourbook_session';
const SECURE_COOKIE = `__Host-${COOKIE}`;

/** Served over HTTPS, directly or (with TRUST_PROXY) behind a proxy that says so. */
export function isSecure(req: Request, config: Pick<Config, 'trustProxy'>): boolean {
  if ((req.socket as Partial<TLSSocket>).encrypted) return true;
  return config.trustProxy && forwarded(req, 'x-forwarded-proto')?.toLowerCase() === 'https';
}

/**
 * The caller's address: with TRUST_PROXY, the address the trusted proxy wrote (`forwarded`: the
 * first entry would let a client choose its address and dodge the per-address sign-in limit).
 * The shipped proxy configs replace the header with the peer's address besides.
 */
export function clientAddress(req: Request, config: Pick<Config, 'trustProxy'>): string {
  return (config.trustProxy ? forwarded(req, 'x-forwarded-for') : undefined) || req.socket.remoteAddress || 'unknown';
}

/** What /trpc knows about the browser behind a request, and how it sets the session cookie. */
export function browserRequest(req: Request, res: Response, config: Pick<Config, 'trustProxy'>, now: () => Date): BrowserRequest {
  const secure = isSecure(req, config);
  const name = secure ? SECURE_COOKIE : COOKIE;
  const cookies = parse(header(req, 'cookie') ?? '');
  return {
    sessionToken: cookies[name],
    client: { address: clientAddress(req, config), userAgent: header(req, 'user-agent') ?? '' },
    setSession(grant: SessionGrant | null) {
      const maxAge = grant ? Math.max(0, Math.floor((Date.parse(grant.expiresAt) - now().getTime()) / 1000)) : 0;
      // The app's tRPC link answers a batch at once, so headers are still open when a procedure runs.
      if (res.headersSent) throw new Error('the session cookie must be set before the response starts');
      res.append('Set-Cookie', serialize(name, grant?.token ?? '', { httpOnly: true, sameSite: 'lax', secure, path: '/', maxAge }));
    },
  };
}
