import express, { type Request, type Router } from 'express';
import type { Config } from '../config.ts';
import { forwarded, hostOf } from '../trpc/context.ts';
import { subdomainFromHost } from '../workspaces/host.ts';
import type { OpenApiDocument } from './document.ts';

export const OPENAPI_PATH = '/api/external/openapi.json';

/** Distinct hosts whose tailored document is kept (anything beyond is built again on demand). */
const CACHED_HOSTS = 50;

type Server = OpenApiDocument['servers'][number];

/**
 * The servers a reader on `host` should try first, before the configured one. On a workspace host
 * (`acme.localhost:3000`): that workspace, by a relative URL, so "Try it out" on /docs is a
 * same-origin request. On the bare host (`localhost:3000`, the address the demo prints): any
 * workspace of that same host and port by its `{subdomain}` (default `demo`); those requests are
 * cross-origin and the REST API allows its own origins (src/rest/cors.ts).
 */
function serversFor(req: Request, config: Pick<Config, 'baseDomain' | 'trustProxy'>): Server[] {
  const host = hostOf(req, config.trustProxy)?.trim().toLowerCase();
  if (!host) return [];
  if (subdomainFromHost(host, config.baseDomain)) return [{ url: '/api/external', description: 'This workspace (the host this document was read from)' }];
  const [name, port] = host.split(/:(?=\d+$)/);
  if (name !== config.baseDomain) return [];
  const scheme = config.trustProxy && forwarded(req, 'x-forwarded-proto') === 'https' ? 'https' : req.protocol;
  return [
    {
      url: `${scheme}://{subdomain}.${name}${port ? `:${port}` : ''}/api/external`,
      description: 'A workspace of this host, by its subdomain',
      variables: { subdomain: { default: 'demo', description: 'The workspace subdomain' } },
    },
  ];
}

/**
 * Serves the document, built once at the first request (building it converts every schema, a
 * noticeable share of start-up otherwise), its server list headed by the address the reader is
 * on. No key is needed: the contract is public, and any origin may read it so integrators' tools
 * (editors, code generators) can load it by URL.
 */
/** Mounted at OPENAPI_PATH. */
export function openApiRouter(build: () => OpenApiDocument, config: Pick<Config, 'baseDomain' | 'trustProxy'>): Router {
  const router = express.Router();
  const bodies = new Map<string, string>();
  let document: OpenApiDocument | undefined;
  router.get('/', (req, res) => {
    const first = serversFor(req, config);
    const key = JSON.stringify(first);
    let body = bodies.get(key);
    if (body === undefined) {
      document ??= build();
      body = JSON.stringify({ ...document, servers: [...first, ...document.servers] });
      if (bodies.size >= CACHED_HOSTS) bodies.delete(bodies.keys().next().value as string);
      bodies.set(key, body);
    }
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.type('application/json').send(body);
  });
  return router;
}
