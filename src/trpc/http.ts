import { createExpressMiddleware } from '@trpc/server/adapters/express';
import cors from 'cors';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { AppError } from '../errors.ts';
import { claimIdempotencyKey, type IdempotentExchange } from '../idempotency/exchange.ts';
import { keepAnswer, sendStoredAnswer } from '../idempotency/http.ts';
import { IDEMPOTENCY_HEADER, idempotencyKeyOf, requestFingerprint } from '../idempotency/key.ts';
import type { StoredAnswer } from '../idempotency/store.ts';
import { LOGO_BODY_BYTES } from '../domain/workspace/logo.ts';
import { MAX_BODY_BYTES } from '../rest/body.ts';
import type { AppServices } from '../services.ts';
import { contextFor, type CallHooks, type Context } from './context.ts';
import { responseMeta, toAppError } from './errors.ts';
import { authenticate } from './init.ts';
import { MAX_BATCH_CALLS } from './limits.ts';
import { answersWithSecret, isMutation, procedureSchemas } from './procedure-schemas.ts';
import { appRouter } from './router.ts';
import { browserRequest } from '../web/browser.ts';
import { csrfGuard } from '../web/csrf.ts';
import { subdomainFromHost } from '../workspaces/host.ts';

/** Room for a 1 MB logo as base64 (workspace.updateIdentity); REST keeps 1 MiB. */
const BODY_BYTES = Math.max(MAX_BODY_BYTES, LOGO_BODY_BYTES);


const requestIdOf = (res: Response) => String(res.getHeader('x-request-id') ?? '');

/** A mutation that must not run: it throws `error` when it would begin, so tRPC answers it in its own shape. */
const refusedWith = (error: AppError): CallHooks => ({
  beforeCommit: () => {},
  begin: () => {
    throw error;
  },
  end: () => {},
});

/** The body as sent, up to the limit; null when it is larger (the limit's answer follows). */
function readBody(req: Request): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > BODY_BYTES ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

const parseJson = (text: string): { json: unknown } | { text: string } => {
  try {
    return { json: JSON.parse(text) as unknown };
  } catch {
    return { text };
  }
};

/** What tRPC answers for a mutation's output (no transformer): `{"result":{"data":…}}`, in an array for a batch. */
function trpcAnswer(batch: boolean): (procedure: string, output: unknown) => StoredAnswer {
  return (procedure, output) => {
    const schema = procedureSchemas(procedure).output;
    const data = schema ? schema.parse(output) : output;
    const item = { result: data === undefined ? {} : { data } };
    return { status: 200, contentType: 'application/json', body: JSON.stringify(batch ? [item] : item) };
  };
}

/**
 * The procedures a request calls, named exactly as tRPC's Express adapter and resolver name them:
 * the path's last segment, percent-decoded, split at commas for a batch (`?batch=1`). Read any
 * other way, `apiKeys%2Ecreate` or `/x/apiKeys.create` would pass for another name than the one
 * tRPC runs, and a key's stored answer could keep a secret shown once.
 */
function proceduresCalled(req: Request): string[] {
  const last = req.path.slice(req.path.lastIndexOf('/') + 1);
  let path: string;
  try {
    path = decodeURIComponent(last);
  } catch {
    // tRPC refuses it (400) before any procedure runs.
    return [last];
  }
  return req.query.batch === '1' ? path.split(',') : [path];
}

/**
 * Whether tRPC may answer this request as a stream (`httpBatchStreamLink`): it asks for
 * `application/jsonl` in `trpc-accept` or `Accept`. (tRPC lets `trpc-accept` decide when both are
 * sent; either one counts here, so no stream is ever missed.)
 */
function asksForStream(req: Request): boolean {
  const jsonl = (value: string | undefined) => (value ?? '').split(',').some((type) => type.trim() === 'application/jsonl');
  const trpcAccept = req.headers['trpc-accept'];
  return jsonl(Array.isArray(trpcAccept) ? trpcAccept.join(',') : trpcAccept) || jsonl(req.headers.accept);
}

/**
 * Whether a request's `Idempotency-Key` applies and, when it does, its claim (docs/idempotency.md);
 * null when the key is ignored. Throws the refusals: a malformed or busy key, a key on a batch of
 * several calls, on an answer that shows a secret once, or on a streamed answer.
 */
function claimOfRequest(ctx: Context, req: Request): IdempotentExchange | null {
  // A call without an API key (the web app's session cookie) does not take the header at all.
  if (ctx.apiKey === undefined) return null;
  const procedures = proceduresCalled(req);
  // Reads have nothing to protect: a request that calls no mutation (a POSTed query) ignores it.
  if (!procedures.some(isMutation)) return null;
  const key = idempotencyKeyOf(req.method, req.headers);
  if (key === null) return null;
  const auth = authenticate(ctx);
  // One mutation alone: a batch's answer would keep the other calls' answers (reads go stale).
  if (procedures.length !== 1) {
    throw new AppError('unprocessable', 'idempotency_key_batch', 'An Idempotency-Key covers one mutation: send it in a request of its own');
  }
  const procedure = procedures[0]!;
  if (answersWithSecret(procedure)) {
    throw new AppError(
      'unprocessable',
      'idempotency_key_not_accepted',
      `${procedure} answers with a secret that is shown once and never stored, so its answer cannot be kept for a retry: call it without an Idempotency-Key`,
    );
  }
  // A stream's status line (200) goes out before the mutation ends, so what it says cannot be the
  // answer a retry gets: a failure meant to be retried would be replayed as kept.
  if (asksForStream(req)) {
    throw new AppError(
      'unprocessable',
      'idempotency_key_not_accepted',
      'An answer streamed as application/jsonl (httpBatchStreamLink) cannot be kept for a retry: send a mutation with an Idempotency-Key without trpc-accept: application/jsonl (httpBatchLink or httpLink)',
    );
  }
  const claim = claimIdempotencyKey({ services: ctx.services, handle: auth.handle, principal: { kind: 'api_key', id: auth.keyId }, key, method: req.method, path: req.originalUrl });
  if (claim.kind === 'refused') throw claim.error;
  return claim.exchange;
}

/**
 * `Idempotency-Key` on tRPC's HTTP form (docs/idempotency.md): a request whose key applies claims
 * it on its headers, then its body is read here (and handed to tRPC as text) to match it with the
 * key's stored first answer: replayed, refused, or run with its answer kept. Refusals reach tRPC
 * through the context, so the mutation answers them in tRPC's own shape (in a stream too); a
 * refused caller is refused again by the procedure.
 */
async function idempotencyOfMutation(ctx: Context, req: Request, res: Response): Promise<'replayed' | 'continue'> {
  let exchange: IdempotentExchange | null;
  try {
    exchange = claimOfRequest(ctx, req);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    if (err.code.startsWith('idempotency_key_')) ctx.callHooks = refusedWith(err);
    return 'continue';
  }
  if (exchange === null) return 'continue';
  keepAnswer(res, exchange);
  const body = await readBody(req);
  if (body === null) {
    req.body = '';
    ctx.callHooks = refusedWith(new AppError('payload_too_large', 'payload_too_large', `The request body is larger than ${BODY_BYTES} bytes`));
    return 'continue';
  }
  const text = body.toString('utf8');
  req.body = text;
  const verdict = exchange.match(requestFingerprint(req.method, req.originalUrl, text === '' ? null : parseJson(text)));
  if (verdict.kind === 'replay') {
    sendStoredAnswer(res, verdict.answer);
    return 'replayed';
  }
  if (verdict.kind === 'refused') {
    ctx.callHooks = refusedWith(verdict.error);
    return 'continue';
  }
  exchange.render = trpcAnswer(req.query.batch !== undefined);
  ctx.callHooks = exchange.hooks;
  return 'continue';
}

/**
 * /trpc: the procedures for TypeScript clients, called with an API key (integrations, other
 * frontends through CORS_ORIGINS) or with the session cookie (the web app, behind the CSRF guard);
 * idempotency keys on mutations, `Retry-After` where an error asks for it, nothing cached.
 */
export function trpcHttp(services: AppServices): Router {
  const { config } = services;
  const subdomainOf = (host: string | undefined) => subdomainFromHost(host, config.baseDomain);
  // One context per request, made by whichever middleware needs it first.
  const contextOf = (req: Request, res: Response): Context =>
    ((res.locals.trpcContext as Context | undefined) ??= contextFor(services, req, requestIdOf(res), subdomainOf, browserRequest(req, res, config, services.clock)));
  const idempotency = (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'POST' || req.headers[IDEMPOTENCY_HEADER] === undefined) {
      next();
      return;
    }
    idempotencyOfMutation(contextOf(req, res), req, res).then((outcome) => {
      if (outcome === 'continue') next();
    }, next);
  };
  const router = express.Router();
  router.use(
    cors({ origin: config.corsOrigins.length > 0 ? config.corsOrigins : false }),
    csrfGuard(config),
    idempotency,
    createExpressMiddleware({
      router: appRouter,
      maxBodySize: BODY_BYTES,
      maxBatchSize: MAX_BATCH_CALLS,
      // A query whose input is too long for a URL (an invoice preview of many entries) may be POSTed;
      // it passes the CSRF guard like any POST and runs as the query it is (no write gate, no commit).
      allowMethodOverride: true,
      createContext: ({ req, res }) => contextOf(req, res),
      responseMeta,
      onError: ({ error, ctx }) => {
        if (toAppError(error).internal) services.logger.error({ err: error, request_id: ctx?.requestId }, 'unhandled error');
      },
    }),
  );
  return router;
}
