import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { AppError, validationError } from '../errors.ts';
import { isDecodablePath } from '../http-edge.ts';
import { OPENAPI_PATH } from '../openapi/http.ts';
import { logRequest } from '../request-log.ts';
import type { AppServices } from '../services.ts';
import { contextFor, type Context } from '../trpc/context.ts';
import { authenticate } from '../trpc/init.ts';
import { createCaller } from '../trpc/router.ts';
import { subdomainFromHost } from '../workspaces/host.ts';
import { readJsonBody } from './body.ts';
import { answerCors } from './cors.ts';
import { answeredByKey, claimKey } from './idempotency.ts';
import { sendError, sendJson } from './respond.ts';
import { takesBody, type RestRequestParts, type RestRoute } from './types.ts';

export const REST_PREFIX = '/api/external';

/**
 * `Accept` must list application/json itself (the spec requires it for endpoints 16-18), with a
 * quality above zero (`q=0` means "not this").
 */
const acceptsJson = (req: IncomingMessage) =>
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

/** One row of the table, matched against a path below the prefix: `/v2/clients/{client_id}`. */
interface CompiledRoute {
  route: RestRoute;
  pattern: RegExp;
  /** The names of the `{param}` segments, in order. */
  names: string[];
}

/** Literal segments win over parameters: `/clients/update_status` before `/clients/{client_id}`. */
const specificity = (route: RestRoute) => (route.path.match(/\{/g) ?? []).length;

/** Case-sensitive, one segment per parameter, a trailing slash allowed (as Express's router matched). */
function compile(route: RestRoute): CompiledRoute {
  const names: string[] = [];
  const source = `/${route.version}${route.path}`
    .split(/(\{\w+\})/)
    .map((part) => {
      const param = /^\{(\w+)\}$/.exec(part);
      if (!param) return part.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
      names.push(param[1]!);
      return '([^/]+)';
    })
    .join('');
  return { route, pattern: new RegExp(`^${source}/?$`), names };
}

type Match = { route: RestRoute; params: Record<string, string> } | { allow: string[] };

/** The row for a method and path; else the methods the path has (405; HEAD beside GET, since it is answered), or none (404). */
function matcher(routes: RestRoute[]): (method: string, path: string) => Match {
  const compiled = [...routes].sort((a, b) => specificity(a) - specificity(b)).map(compile);
  return (method, path) => {
    const allow = new Set<string>();
    for (const c of compiled) {
      const found = c.pattern.exec(path);
      if (!found) continue;
      // HEAD is answered as GET without the body (Node leaves the body out).
      if (c.route.method === method || (method === 'HEAD' && c.route.method === 'GET')) {
        return { route: c.route, params: Object.fromEntries(c.names.map((name, i) => [name, decodeURIComponent(found[i + 1]!)])) };
      }
      allow.add(c.route.method);
      if (c.route.method === 'GET') allow.add('HEAD');
    }
    return { allow: [...allow] };
  };
}

/**
 * The path and query string of a request target, as sent (not normalised: `..` segments and
 * escapes stay as they are, as for the Express app and the log line). An absolute-form target
 * (from a proxy) loses its scheme and authority; anything else is not a path.
 */
function targetOf(url: string): { path: string; query: string } | null {
  const target = url.startsWith('/') ? url : /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*(.*)$/i.exec(url)?.[1];
  if (target === undefined) return null;
  const at = target.indexOf('?');
  const path = at < 0 ? target : target.slice(0, at);
  return { path: path || '/', query: at < 0 ? '' : target.slice(at + 1) };
}

/**
 * Under the prefix (matched without regard to case, as Express mounted it; the rows themselves
 * are matched exactly), except a read of the OpenAPI document, which the Express app serves
 * (src/openapi/http.ts).
 */
function isRestRequest(method: string, path: string): boolean {
  const head = path.slice(0, REST_PREFIX.length).toLowerCase();
  if (head !== REST_PREFIX || (path.length > REST_PREFIX.length && path[REST_PREFIX.length] !== '/')) return false;
  const document = path === OPENAPI_PATH || path.startsWith(`${OPENAPI_PATH}/`);
  return !(document && (method === 'GET' || method === 'HEAD'));
}

/**
 * The REST door: every request under /api/external, straight on Node's HTTP server. Each row of
 * the route table is called the same way: parse the request into the procedure's input, call it
 * through `createCaller` (so auth and acting-user middleware always run), write the result with the
 * row's status. Its steps are, in order: the request id and log line, the path check, CORS for the
 * service's own pages, the row (404 `route_not_found`, 405 `method_not_allowed`: a request that is
 * no operation hears that first, whatever its body or headers), its Accept rule, the idempotency
 * key's claim, the JSON body, the key's stored answer, the query.
 *
 * Not an Express router: Express's per-request work (its request and response objects, the layer
 * walk, `res.json`) cost as much CPU as the whole procedure on the write path (the bench's
 * "Express 5 alone" figure, scripts/bench-time-entries.ts). The other doors (the web app, /trpc,
 * exports, public pages) stay on Express.
 */
export function restDoor(services: AppServices, routes: RestRoute[]): (req: IncomingMessage, res: ServerResponse) => boolean {
  const subdomainOf = (host: string | undefined) => subdomainFromHost(host, services.config.baseDomain);
  const match = matcher(routes);

  async function serve(req: IncomingMessage, res: ServerResponse, requestId: string, target: { path: string; query: string }): Promise<void> {
    if (!isDecodablePath(target.path)) throw new AppError('bad_request', 'invalid_path', 'The request path is not valid percent-encoded UTF-8');
    if (answerCors(services.config, req, res)) return;
    const path = target.path.slice(REST_PREFIX.length) || '/';
    const method = req.method ?? 'GET';
    // The row first: neither the key nor the body of a request that is no operation is looked at.
    const found = match(method, path);
    if ('allow' in found) {
      if (found.allow.length === 0) throw new AppError('not_found', 'route_not_found', `No operation ${method} ${REST_PREFIX}${path}`);
      throw new AppError('method_not_allowed', 'method_not_allowed', `${method} is not allowed here; use ${found.allow.filter((m) => m !== 'HEAD').join(' or ')}`, { extra: { allow: found.allow } });
    }
    const ctx = contextFor(services, req, requestId, subdomainOf);
    if (found.route.requireJsonAccept && !acceptsJson(req)) {
      authenticate(ctx); // who may not call at all hears 404/401 before being told about Accept
      // Before the key is claimed: a 406 is about the request's headers, which the key's fingerprint
      // does not see, so it is never kept for the key, and a stored answer is never replayed to a
      // request that does not accept it.
      throw new AppError('not_acceptable', 'not_acceptable', 'This endpoint answers JSON only: send Accept: application/json');
    }
    const exchange = claimKey(services, req, res, ctx);
    const body = takesBody(method) ? await readJsonBody(req, res) : undefined;
    await call(req, res, ctx, { route: found.route, params: found.params, query: target.query, body, exchange });
  }

  async function call(
    req: IncomingMessage,
    res: ServerResponse,
    ctx: Context,
    request: { route: RestRoute; params: Record<string, string>; query: string; body: unknown; exchange: ReturnType<typeof claimKey> },
  ): Promise<void> {
    const { route } = request;
    if (request.exchange && answeredByKey(request.exchange, ctx, req, request.body, res, route)) return;
    let query: Record<string, unknown> = {};
    if (route.query) {
      const parsed = route.query.safeParse(parseQuery(request.query));
      if (!parsed.success) throw validationError(parsed.error.issues);
      query = parsed.data;
    }
    const input = (route.toInput ?? defaultInput)({ params: request.params, query, body: request.body });
    const output = await procedureOf(createCaller(ctx) as unknown as AnyCaller, route.procedure)(input);
    if (route.status === 204) res.writeHead(204).end();
    else sendJson(res, route.status, route.toBody ? route.toBody(output as never) : output);
  }

  return (req, res) => {
    const target = targetOf(req.url ?? '/');
    if (!target || !isRestRequest(req.method ?? 'GET', target.path)) return false;
    const requestId = logRequest(services, req, res);
    // Every answer is one workspace's data for one key: no cache on the way keeps it (errors too).
    res.setHeader('Cache-Control', 'no-store');
    serve(req, res, requestId, target).catch((err: unknown) => sendError(res, err, services.logger, requestId));
    return true;
  };
}
