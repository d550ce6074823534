import express, { type Request, type Response, type Router } from 'express';
import { AppError, validationError } from '../errors.ts';
import type { AppServices } from '../services.ts';
import { authenticate } from '../trpc/init.ts';
import { createCaller } from '../trpc/router.ts';
import { subdomainFromHost } from '../workspaces/host.ts';
import { jsonBody } from './body.ts';
import { ownOriginsCors } from './cors.ts';
import { answeredByKey, claimKey, restContextOf } from './idempotency.ts';
import { sendError } from './respond.ts';
import type { RestRequestParts, RestRoute } from './types.ts';

export const REST_PREFIX = '/api/external';

const expressPath = (route: RestRoute) => `/${route.version}${route.path.replace(/\{(\w+)\}/g, ':$1')}`;
const pathPattern = (route: RestRoute) =>
  new RegExp(`^/${route.version}${route.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{\w+\\?\}/g, '[^/]+')}/?$`);

/**
 * `Accept` must list application/json itself (the spec requires it for endpoints 16-18), with a
 * quality above zero (`q=0` means "not this").
 */
const acceptsJson = (req: Request) =>
  (req.headers.accept ?? '').split(',').some((part) => {
    const [type, ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    return type === 'application/json' && (q === undefined || Number(q.slice(2)) > 0);
  });

function defaultInput({ params, query, body }: RestRequestParts): unknown {
  if (body === undefined) return { ...query, ...params };
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError('unprocessable', 'validation_failed', 'The request body must be a JSON object', {
      details: [{ path: '(body)', message: 'must be a JSON object' }],
    });
  }
  return { ...body, ...query, ...params };
}

type AnyCaller = Record<string, unknown>;

/** Walks `timeEntries.create` down the caller, so every REST call runs the procedure's middleware. */
function procedureOf(caller: AnyCaller, path: string): (input: unknown) => Promise<unknown> {
  let node: unknown = caller;
  for (const key of path.split('.')) node = (node as AnyCaller)[key];
  if (typeof node !== 'function') throw new Error(`REST route names unknown procedure ${path}`);
  return node as (input: unknown) => Promise<unknown>;
}

/** Literal segments win over parameters: `/clients/update_status` before `/clients/{client_id}`. */
const specificity = (route: RestRoute) => (route.path.match(/\{/g) ?? []).length;

/**
 * The one piece of code that runs the route table: for each row, parse the request into the
 * procedure's input, call it through `createCaller` (so auth and acting-user middleware always
 * run), and write the result with the row's status.
 */
export function restRouter(services: AppServices, routes: RestRoute[]): Router {
  const router = express.Router({ strict: false, caseSensitive: true });
  const subdomainOf = (host: string | undefined) => subdomainFromHost(host, services.config.baseDomain);
  router.use(ownOriginsCors(services.config));
  router.use(claimKey(services, subdomainOf));
  router.use(jsonBody);

  for (const route of [...routes].sort((a, b) => specificity(a) - specificity(b))) {
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    router[method](expressPath(route), async (req: Request, res: Response) => {
      const requestId = String(res.getHeader('x-request-id') ?? '');
      const ctx = restContextOf(services, req, res, subdomainOf);
      try {
        if (answeredByKey(ctx, req, res, route)) return;
        if (route.requireJsonAccept && !acceptsJson(req)) {
          authenticate(ctx); // who may not call at all hears 404/401 before being told about Accept
          throw new AppError('not_acceptable', 'not_acceptable', 'This endpoint answers JSON only: send Accept: application/json');
        }
        let query: Record<string, unknown> = {};
        if (route.query) {
          const parsed = route.query.safeParse(req.query);
          if (!parsed.success) throw validationError(parsed.error.issues);
          query = parsed.data;
        }
        const parts = { params: req.params as Record<string, string>, query, body: req.body as unknown };
        const input = (route.toInput ?? defaultInput)(parts);
        const output = await procedureOf(createCaller(ctx) as unknown as AnyCaller, route.procedure)(input);
        if (route.status === 204) {
          res.status(204).end();
          return;
        }
        res.status(route.status).json(route.toBody ? route.toBody(output as never) : output);
      } catch (err) {
        sendError(res, err, services.logger, requestId);
      }
    });
  }

  const patterns = routes.map((route) => ({ route, pattern: pathPattern(route) }));
  // Nothing matched: 405 when the path exists with other methods, else 404.
  router.use((req: Request) => {
    const allow = [...new Set(patterns.filter((p) => p.pattern.test(req.path)).map((p) => p.route.method))];
    if (allow.length > 0) {
      throw new AppError('method_not_allowed', 'method_not_allowed', `${req.method} is not allowed here; use ${allow.join(' or ')}`, {
        extra: { allow },
      });
    }
    throw new AppError('not_found', 'route_not_found', `No operation ${req.method} ${REST_PREFIX}${req.path}`);
  });
  router.use((err: unknown, _req: Request, res: Response, _next: express.NextFunction) => {
    sendError(res, err, services.logger, String(res.getHeader('x-request-id') ?? ''));
  });
  return router;
}
