import type { NextFunction, Request, Response } from 'express';
import type { Config } from '../config.ts';
import { header, hostOf } from '../trpc/context.ts';
import { isSecure } from './browser.ts';

/** The header the app sends with every change. A cross-site form cannot set a header at all. */
export const CSRF_HEADER = 'x-hourbook-csrf';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The origin a request says it comes from: `Origin`, else the `Referer`'s origin. */
function originOf(req: Request): URL | null {
  const value = header(req, 'origin') ?? header(req, 'referer');
  if (!value || value === 'null') return null;
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

/**
 * CSRF protection for the cookie door. Every state-changing call without an API key (a signed-in
 * browser, or one signing in) must carry `X-Hourbook-CSRF: 1` AND come from a page of the same
 * workspace host (Origin, else Referer). Anything else is refused with 403 before it reaches a
 * procedure. Calls with `X-Api-Key` are not cookie calls and pass: a form cannot send that header.
 */
export function csrfGuard(config: Pick<Config, 'trustProxy'>) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (SAFE_METHODS.has(req.method) || header(req, 'x-api-key') !== undefined) {
      next();
      return;
    }
    const origin = originOf(req);
    const host = hostOf(req, config.trustProxy)?.toLowerCase();
    const sameOrigin = origin !== null && host !== undefined && origin.host.toLowerCase() === host && (origin.protocol === 'https:' || !isSecure(req, config));
    if (header(req, CSRF_HEADER) === '1' && sameOrigin) {
      next();
      return;
    }
    res.status(403).json({ error: 'Cross-site request refused: changes must come from the workspace’s own pages', code: 'csrf_rejected' });
  };
}
