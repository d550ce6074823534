import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config.ts';

const ALLOWED_HEADERS = 'X-Api-Key, Content-Type, Accept, Idempotency-Key, X-Request-Id';
const EXPOSED_HEADERS = 'X-Request-Id, Retry-After, Idempotent-Replayed, Allow';

/** Whether an Origin is one of this service's own hosts: the base domain or a workspace under it. */
function isOwnOrigin(origin: string, baseDomain: string): boolean {
  try {
    const { protocol, hostname } = new URL(origin);
    return (protocol === 'http:' || protocol === 'https:') && (hostname === baseDomain || hostname.endsWith(`.${baseDomain}`));
  } catch {
    return false;
  }
}

/**
 * CORS for the REST API, for the service's own pages only: the API reference at /docs on the bare
 * host (`localhost:3000/docs`) calls a workspace host (`demo.localhost:3000`), which is another
 * origin. Calls carry the API key in a header and never cookies (no credentials are allowed), so
 * this opens nothing a page could not already do with the key; other origins get no CORS headers.
 * True when this answered the request (a preflight).
 */
export function answerCors(config: Pick<Config, 'baseDomain'>, req: IncomingMessage, res: ServerResponse): boolean {
  const origin = req.headers.origin;
  if (!origin || !isOwnOrigin(origin, config.baseDomain)) return false;
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Vary', 'Origin');
  res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
  if (req.method !== 'OPTIONS' || !req.headers['access-control-request-method']) return false;
  res.setHeader('Access-Control-Allow-Methods', 'GET, POST, PUT, PATCH, DELETE');
  res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
  res.setHeader('Access-Control-Max-Age', '600');
  res.writeHead(204).end();
  return true;
}
