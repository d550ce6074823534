import type { IncomingMessage, ServerResponse } from 'node:http';
import { claimIdempotencyKey, type IdempotentExchange } from '../idempotency/exchange.ts';
import { keepAnswer, sendStoredAnswer } from '../idempotency/http.ts';
import { IDEMPOTENCY_HEADER, idempotencyKeyOf, requestFingerprint } from '../idempotency/key.ts';
import type { StoredAnswer } from '../idempotency/store.ts';
import type { AppServices } from '../services.ts';
import type { Context } from '../trpc/context.ts';
import { authenticate } from '../trpc/init.ts';
import { procedureSchemas } from '../trpc/procedure-schemas.ts';
import type { RestRoute } from './types.ts';

/**
 * `Idempotency-Key` on REST writes (docs/idempotency.md), in two steps. Once the request is known
 * to be an operation it may be answered (its row matched, its Accept rule met) and before its body
 * is read: the caller is authenticated and the key claimed (a malformed key is 422, a key in use
 * 409), and the answer about to be written is kept for the key. Once the route has its body,
 * `answeredByKey` replays the key's stored answer, refuses a reused key, or lets the route run.
 * Refusals before that match (no such operation, 406, a body that cannot be read) are never kept.
 */
export function claimKey(services: AppServices, req: IncomingMessage, res: ServerResponse, ctx: Context): IdempotentExchange | undefined {
  if (req.headers[IDEMPOTENCY_HEADER] === undefined) return undefined;
  const key = idempotencyKeyOf(req.method ?? '', req.headers);
  if (key === null) return undefined;
  const auth = authenticate(ctx);
  const claim = claimIdempotencyKey({ services, handle: auth.handle, principal: { kind: 'api_key', id: auth.keyId }, key, method: req.method ?? '', path: req.url ?? '' });
  if (claim.kind === 'refused') throw claim.error;
  keepAnswer(res, claim.exchange);
  return claim.exchange;
}

/** What a REST row answers for a procedure's output: exactly what the adapter sends. */
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
export function answeredByKey(exchange: IdempotentExchange, ctx: Context, req: IncomingMessage, body: unknown, res: ServerResponse, route: RestRoute): boolean {
  const verdict = exchange.match(requestFingerprint(req.method ?? '', req.url ?? '', body === undefined ? null : { json: body }));
  if (verdict.kind === 'replay') {
    sendStoredAnswer(res, verdict.answer);
    return true;
  }
  if (verdict.kind === 'refused') throw verdict.error;
  exchange.render = restAnswer(route);
  ctx.callHooks = exchange.hooks;
  return false;
}
