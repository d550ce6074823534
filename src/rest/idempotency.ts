import type { NextFunction, Request, Response } from 'express';
import { claimIdempotencyKey, type IdempotentExchange } from '../idempotency/exchange.ts';
import { keepAnswer, sendStoredAnswer } from '../idempotency/http.ts';
import { IDEMPOTENCY_HEADER, idempotencyKeyOf, requestFingerprint } from '../idempotency/key.ts';
import type { StoredAnswer } from '../idempotency/store.ts';
import type { AppServices } from '../services.ts';
import { contextFor, type Context } from '../trpc/context.ts';
import { authenticate } from '../trpc/init.ts';
import { procedureSchemas } from '../trpc/procedure-schemas.ts';
import type { RestRoute } from './types.ts';

/**
 * `Idempotency-Key` on REST writes (docs/idempotency.md), in two steps. Before the body is read:
 * the caller is authenticated and the key claimed (a malformed key is 422, a key in use 409). Once
 * the route has its body: `answeredByKey` replays the key's stored answer, refuses a reused key, or
 * lets the route run with its answer kept.
 */
export function claimKey(services: AppServices, subdomainOf: (host: string | undefined) => string | null) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.headers[IDEMPOTENCY_HEADER] === undefined) {
      next();
      return;
    }
    try {
      const ctx = contextFor(services, req, String(res.getHeader('x-request-id') ?? ''), subdomainOf);
      res.locals.restContext = ctx;
      const key = idempotencyKeyOf(req.method, req.headers);
      if (key === null) {
        next();
        return;
      }
      const auth = authenticate(ctx);
      const claim = claimIdempotencyKey({ services, handle: auth.handle, principal: { kind: 'api_key', id: auth.keyId }, key, method: req.method, path: req.originalUrl });
      if (claim.kind === 'refused') throw claim.error;
      res.locals.idempotency = claim.exchange;
      keepAnswer(res, claim.exchange);
      next();
    } catch (err) {
      next(err);
    }
  };
}

/** The request's context: the one the key's claim authenticated, or a new one. */
export const restContextOf = (services: AppServices, req: Request, res: Response, subdomainOf: (host: string | undefined) => string | null): Context =>
  (res.locals.restContext as Context | undefined) ?? contextFor(services, req, String(res.getHeader('x-request-id') ?? ''), subdomainOf);

/** What a REST row answers for a procedure's output: exactly what the adapter sends (`res.json`). */
function restAnswer(route: RestRoute): (procedure: string, output: unknown) => StoredAnswer {
  const schema = procedureSchemas(route.procedure).output;
  return (_procedure, output) => {
    if (route.status === 204) return { status: 204, contentType: null, body: '' };
    const parsed = schema ? schema.parse(output) : output;
    const body = route.toBody ? route.toBody(parsed as never) : parsed;
    return { status: route.status, contentType: 'application/json; charset=utf-8', body: JSON.stringify(body) };
  };
}

/** True when the key's stored answer was sent; throws 422 for a key used with another request. */
export function answeredByKey(ctx: Context, req: Request, res: Response, route: RestRoute): boolean {
  const exchange = res.locals.idempotency as IdempotentExchange | undefined;
  if (!exchange) return false;
  const verdict = exchange.match(requestFingerprint(req.method, req.originalUrl, req.body === undefined ? null : { json: req.body }));
  if (verdict.kind === 'replay') {
    sendStoredAnswer(res, verdict.answer);
    return true;
  }
  if (verdict.kind === 'refused') throw verdict.error;
  exchange.render = restAnswer(route);
  ctx.callHooks = exchange.hooks;
  return false;
}
