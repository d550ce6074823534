import { send, type HttpResponse } from './http.ts';

/** The answer of one tRPC call over HTTP: the data, or the product's error (code, status, details). */
export interface TrpcAnswer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  data: any;
  error: { code: string; message: string; details?: { path: string; message: string }[] } | null;
  response: HttpResponse;
}

export interface CallOptions {
  /** Send the app's CSRF header (default true). */
  csrf?: boolean;
  /** The Origin header; default the workspace's own origin, null for none. */
  origin?: string | null;
  headers?: Record<string, string>;
}

/**
 * A browser of one workspace host, as far as the server can tell: it keeps the session cookie the
 * server sets and sends it back, and sends the CSRF header and the page's Origin with changes.
 */
export class BrowserSession {
  cookie: string | null = null;
  lastSetCookie: string | undefined;

  constructor(
    readonly baseUrl: string,
    readonly host: string,
  ) {}

  get origin() {
    return `http://${this.host}`;
  }

  private async call(method: 'GET' | 'POST', path: string, input: unknown, opts: CallOptions): Promise<TrpcAnswer> {
    const headers: Record<string, string> = { ...opts.headers };
    if (this.cookie) headers.cookie = this.cookie;
    if (method === 'POST') {
      if (opts.csrf !== false) headers['x-hourbook-csrf'] = '1';
      const origin = opts.origin === undefined ? this.origin : opts.origin;
      if (origin !== null) headers.origin = origin;
    }
    const url = method === 'GET' ? `/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input ?? {}))}` : `/trpc/${path}`;
    const response = await send(this.baseUrl, method, url, { host: this.host, headers, ...(method === 'POST' ? { body: input ?? {} } : {}) });
    this.keepCookie(response);
    const body = response.body as { result?: { data: unknown }; error?: { message: string; data: { code: string; details?: [] } } } | { error: string; code: string };
    let error: TrpcAnswer['error'] = null;
    if (body && typeof body.error === 'string') error = { code: (body as { code: string }).code, message: body.error };
    else if (body && 'error' in body && body.error && typeof body.error === 'object') error = { code: body.error.data.code, message: body.error.message, details: body.error.data.details };
    return { status: response.status, data: body && 'result' in body ? body.result?.data : undefined, error, response };
  }

  private keepCookie(response: HttpResponse) {
    const set = response.headers['set-cookie'];
    const line = Array.isArray(set) ? set[set.length - 1] : set;
    if (!line) return;
    this.lastSetCookie = line;
    const pair = line.split(';')[0] ?? '';
    this.cookie = /max-age=0/i.test(line) || pair.endsWith('=') ? null : pair;
  }

  query(path: string, input?: unknown, opts: CallOptions = {}) {
    return this.call('GET', path, input, opts);
  }

  mutate(path: string, input?: unknown, opts: CallOptions = {}) {
    return this.call('POST', path, input, opts);
  }

  /** The same cookie, presented to another host (a replay). */
  on(host: string): BrowserSession {
    const other = new BrowserSession(this.baseUrl, host);
    other.cookie = this.cookie;
    return other;
  }
}

/** The token in a link such as `http://alpha.localhost:3000/set-password#token=...`. */
export const tokenOf = (link: string) => {
  const m = /#token=([A-Za-z0-9_-]+)/.exec(link);
  if (!m?.[1]) throw new Error(`no token in ${link}`);
  return m[1];
};
