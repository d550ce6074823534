import { request as httpRequest } from 'node:http';
import { contractChecker } from './openapi-validate.ts';

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The raw body bytes, for byte-level checks (a 204 has none). */
  raw: Buffer;
  text: string;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface RequestOptions {
  host?: string;
  key?: string | null;
  /** A value to send as JSON, or a string/Buffer to send as it is. */
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * HTTP through node:http, because fetch may not set the Host header and the workspace is chosen by
 * it.
 */
export function send(baseUrl: string, method: string, path: string, opts: RequestOptions = {}): Promise<HttpResponse> {
  const url = new URL(path, baseUrl);
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.host) headers.host = opts.host;
  if (opts.key) headers['x-api-key'] = opts.key;
  let payload: Buffer | undefined;
  if (opts.body !== undefined) {
    if (typeof opts.body === 'string' || Buffer.isBuffer(opts.body)) payload = Buffer.from(opts.body);
    else {
      payload = Buffer.from(JSON.stringify(opts.body));
      headers['content-type'] ??= 'application/json';
    }
    headers['content-length'] = String(payload.length);
  }
  return new Promise((resolve, reject) => {
    // A connection per request: a kept-alive socket that the server closed while the test's event
    // loop was busy (rendering a PDF) would otherwise fail the next request with ECONNRESET.
    const req = httpRequest({ hostname: url.hostname, port: url.port, path: url.pathname + url.search, method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        const text = raw.toString('utf8');
        let body: unknown;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          body = undefined;
        }
        const response = { status: res.statusCode ?? 0, headers: res.headers, raw, text, body };
        // Every REST exchange is checked against the OpenAPI document, so the two cannot drift.
        try {
          contractChecker().check({ method, path, requestHeaders: headers, requestBody: payload, status: response.status, responseHeaders: res.headers, raw, body });
        } catch (err) {
          reject(err as Error);
          return;
        }
        resolve(response);
      });
    });
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

/** A client bound to one server and one workspace. */
export interface Api {
  host: string;
  key: string;
  get(path: string, opts?: RequestOptions): Promise<HttpResponse>;
  post(path: string, body?: unknown, opts?: RequestOptions): Promise<HttpResponse>;
  put(path: string, body?: unknown, opts?: RequestOptions): Promise<HttpResponse>;
  patch(path: string, body?: unknown, opts?: RequestOptions): Promise<HttpResponse>;
  delete(path: string, opts?: RequestOptions): Promise<HttpResponse>;
  request(method: string, path: string, opts?: RequestOptions): Promise<HttpResponse>;
}

export function apiFor(baseUrl: string, host: string, key: string): Api {
  const request = (method: string, path: string, opts: RequestOptions = {}) => send(baseUrl, method, path, { host, key, ...opts });
  return {
    host,
    key,
    request,
    get: (path, opts) => request('GET', path, opts),
    post: (path, body, opts) => request('POST', path, { body, ...opts }),
    put: (path, body, opts) => request('PUT', path, { body, ...opts }),
    patch: (path, body, opts) => request('PATCH', path, { body, ...opts }),
    delete: (path, opts) => request('DELETE', path, opts),
  };
}
