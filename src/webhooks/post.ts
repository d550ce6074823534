import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { RefusedDestination, resolveDestination, type Destination } from './address.ts';

/** An attempt takes at most this long, from DNS to the end of the answer we read. */
export const TIMEOUT_MS = 10_000;
/** Of an answer we keep (and read) only the first kilobyte. */
const KEEP_BYTES = 1024;

export interface PostResult {
  /** The answer's status, or null when none came. */
  status: number | null;
  /** The first 1 KB of the answer, or why there was none. */
  body: string | null;
  error: string | null;
}

/** Connects to the checked address whatever the name resolves to by then. */
const pinnedLookup =
  (to: Destination): LookupFunction =>
  (_hostname, options, callback) => {
    if (options.all) (callback as (err: null, addresses: { address: string; family: number }[]) => void)(null, [to]);
    else callback(null, to.address, to.family);
  };

function readStart(res: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => resolve(Buffer.concat(chunks).subarray(0, KEEP_BYTES).toString('utf8'));
    res.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= KEEP_BYTES) {
        res.destroy();
        done();
      }
    });
    res.on('end', done);
    res.on('error', done);
    res.on('close', done);
  });
}

/**
 * POSTs one webhook: only to a public address (unless allowed otherwise), to the address that was
 * checked, within 10 s, without following redirects (a 3xx is a failure), reading at most 1 KB of
 * the answer. Never throws: every failure is a result.
 */
export async function postWebhook(url: string, headers: Record<string, string>, body: string, opts: { allowPrivate: boolean; timeoutMs?: number }): Promise<PostResult> {
  const timeoutMs = opts.timeoutMs ?? TIMEOUT_MS;
  const target = new URL(url);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const destination = await Promise.race([
      resolveDestination(target.hostname, opts.allowPrivate),
      new Promise<never>((_, reject) => controller.signal.addEventListener('abort', () => reject(new Error('timed out resolving the host')))),
    ]);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const payload = Buffer.from(body, 'utf8');
    return await new Promise<PostResult>((resolve) => {
      const req = send(
        target,
        {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json', 'content-length': String(payload.length), 'user-agent': 'hourbook-webhooks/1' },
          lookup: pinnedLookup(destination),
          agent: false,
          signal: controller.signal,
        },
        (res) => {
          void readStart(res).then((text) => {
            const status = res.statusCode ?? 0;
            const redirect = status >= 300 && status < 400 ? `redirects are not followed (to ${res.headers.location ?? 'nowhere'})` : null;
            resolve({ status, body: text, error: redirect ?? (status >= 200 && status < 300 ? null : `answered ${status}`) });
          });
        },
      );
      req.on('error', (err) => resolve({ status: null, body: null, error: controller.signal.aborted ? `timed out after ${timeoutMs / 1000} s` : err.message }));
      req.end(payload);
    });
  } catch (err) {
    const message = err instanceof RefusedDestination || err instanceof Error ? err.message : String(err);
    return { status: null, body: null, error: message };
  } finally {
    clearTimeout(timer);
  }
}
