import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import type { AppServices } from './services.ts';
import { hostOf } from './trpc/context.ts';
import { subdomainFromHost } from './workspaces/host.ts';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,100}$/;
/**
 * A public invoice's token in its path (`/invoices/<token>`, `/pdf`, `/pay`): whoever holds it
 * reads and pays the invoice, so it never goes into a log, which more people read than the invoice.
 */
const PUBLIC_TOKEN = /^\/invoices\/[^/]+/;

/**
 * Gives the request its id (the caller's `X-Request-Id` when it is a plain token, else a new one),
 * sends it back, and logs one line when the answer is finished: method, path, status, ms,
 * workspace, request id. Never headers, bodies, query strings or a public invoice's token. Returns the id.
 */
export function logRequest(services: AppServices, req: IncomingMessage, res: ServerResponse): string {
  const started = process.hrtime.bigint();
  // Read now: a router mounted at a prefix shortens req.url while it runs.
  const path = (req.url ?? '').split('?')[0]?.replace(PUBLIC_TOKEN, '/invoices/:token');
  const incoming = req.headers['x-request-id'];
  const requestId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
  res.setHeader('X-Request-Id', requestId);
  res.on('finish', () => {
    services.logger.info(
      {
        method: req.method,
        path,
        status: res.statusCode,
        ms: Number((process.hrtime.bigint() - started) / 1000n) / 1000,
        workspace: subdomainFromHost(hostOf(req, services.config.trustProxy), services.config.baseDomain),
        request_id: requestId,
      },
      'request',
    );
  });
  return requestId;
}

/** `logRequest` for every request the Express app serves. */
export function requestLog(services: AppServices) {
  return (req: Request, res: Response, next: NextFunction) => {
    logRequest(services, req, res);
    next();
  };
}
