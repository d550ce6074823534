import { createTRPCClient, httpBatchLink, TRPCClientError } from '@trpc/client';
import { MAX_BATCH_CALLS } from './trpc/limits.ts';
import type { AppRouter } from './trpc/router.ts';

export type { AppRouter };

export interface HourbookClientOptions {
  /**
   * The workspace's address, e.g. `https://acme.hourbook.example.com` or `http://acme.localhost:3000`;
   * the workspace is chosen by its host. tRPC is served under `/trpc` there.
   */
  baseUrl: string;
  /** A key of that workspace, sent as `X-Api-Key`. */
  apiKey: string;
  /**
   * Send this `Host` instead of the one in `baseUrl`, e.g. `acme.localhost:3000` while `baseUrl`
   * is `http://127.0.0.1:3000` (a server reached by address, a tunnel). Node.js only.
   */
  workspaceHost?: string;
  /** A fetch to use instead of the global one (ignored when `workspaceHost` is given). */
  fetch?: typeof globalThis.fetch;
}

export type HourbookClient = ReturnType<typeof createTRPCClient<AppRouter>>;

/** An error of a call: `error.data.code` is the same snake_case code REST answers, `details` too. */
export type HourbookClientError = TRPCClientError<AppRouter>;

export const isHourbookError = (err: unknown): err is HourbookClientError => err instanceof TRPCClientError;

/**
 * A typed client for the tRPC door of one workspace.
 *
 * ```ts
 * const hourbook = createHourbookClient({ baseUrl: 'https://acme.hourbook.example.com', apiKey });
 * const { items } = await hourbook.teamMembers.list.query({ limit: 20 });
 * ```
 */
export function createHourbookClient(options: HourbookClientOptions): HourbookClient {
  const base = new URL(options.baseUrl);
  const isNode = typeof process !== 'undefined' && typeof process.versions?.node === 'string';
  // Browsers resolve `*.localhost` to loopback (RFC 6761); Node's resolver does not, and fetch
  // cannot set `Host`, so in Node those hosts (and an explicit workspaceHost) go through node:http.
  const hostOverride = options.workspaceHost ?? (isNode && base.hostname.endsWith('.localhost') ? base.host : undefined);
  const fetchImpl = hostOverride !== undefined ? hostFetch(hostOverride, base.hostname.endsWith('.localhost') ? 'localhost' : base.hostname) : options.fetch;

  return createTRPCClient<AppRouter>({
    links: [
      httpBatchLink({
        url: `${options.baseUrl.replace(/\/+$/, '')}/trpc`,
        headers: { 'X-Api-Key': options.apiKey },
        maxItems: MAX_BATCH_CALLS,
        ...(fetchImpl ? { fetch: fetchImpl } : {}),
      }),
    ],
  });
}

/** A fetch over node:http/https that connects to `connectTo` and sends `host` as the Host header. */
function hostFetch(host: string, connectTo: string): typeof globalThis.fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const { request } = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, key) => {
      headers[key] = value;
    });
    headers.host = host;
    const body = init?.body === undefined || init.body === null ? undefined : String(init.body);
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    return new Promise<Response>((resolve, reject) => {
      const req = request(
        {
          hostname: connectTo,
          port: url.port,
          path: url.pathname + url.search,
          method: init?.method ?? 'GET',
          headers,
          servername: host.split(':')[0],
          signal: init?.signal ?? undefined,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const responseHeaders = new Headers();
            for (const [key, value] of Object.entries(res.headers)) {
              if (value === undefined) continue;
              for (const v of Array.isArray(value) ? value : [value]) responseHeaders.append(key, v);
            }
            const status = res.statusCode ?? 500;
            const payload = status === 204 || status === 304 ? null : Buffer.concat(chunks);
            resolve(new Response(payload, { status, statusText: res.statusMessage ?? '', headers: responseHeaders }));
          });
        },
      );
      req.on('error', reject);
      if (body !== undefined) req.write(body);
      req.end();
    });
  };
}
