import { RefusedDestination, resolveDestination, type Destination } from './address.ts';
import { sendPinned, type PinnedPost, type SentResult } from './sender.ts';

/** An attempt takes at most this long, from DNS to the end of the answer we read. */
export const TIMEOUT_MS = 10_000;
/** Of an answer we keep (and read) only the first kilobyte. */
const KEEP_BYTES = 1024;

/** What an attempt came to: the answer's status and first 1 KB, or why there was none; when it started and how long it took. */
export type PostResult = SentResult;

export interface WebhookPost {
  url: string;
  headers: Record<string, string>;
  body: string;
}

const refused = (error: string): PostResult => ({ status: null, body: null, error, startedAfterMs: 0, durationMs: 0 });

/** Where a post goes: its host with the port (the Host header) and the name to resolve; '' when its URL does not parse. */
function targetOf(url: string): { host: string; hostname: string } {
  if (!URL.canParse(url)) return { host: '', hostname: '' };
  const { host, hostname } = new URL(url);
  return { host, hostname };
}

/** The checked address of each host (each resolved once), or why it is refused. */
async function destinationsOf(hosts: readonly string[], allowPrivate: boolean, timeoutMs: number): Promise<Map<string, Destination | string>> {
  const found = new Map<string, Destination | string>();
  await Promise.all(
    [...new Set(hosts)].map(async (host) => {
      let timer: NodeJS.Timeout | undefined;
      try {
        if (!host) throw new Error('not a URL');
        found.set(host, await Promise.race([resolveDestination(host, allowPrivate), new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timed out resolving the host')), timeoutMs)))]));
      } catch (err) {
        found.set(host, err instanceof RefusedDestination || err instanceof Error ? err.message : String(err));
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return found;
}

/**
 * POSTs webhooks: only to public addresses (unless allowed otherwise), each to the address checked
 * for its host (each host resolved once per call), within 10 s from the name's resolution to the
 * end of the answer read, without following redirects (a 3xx is a failure), reading at most 1 KB
 * of each answer, `parallel` at a time. The names are resolved and checked here; the POSTs are
 * made by the sender thread (sender.ts). Never throws: every failure is a result, in order.
 */
export async function postWebhooks(posts: readonly WebhookPost[], opts: { allowPrivate: boolean; timeoutMs?: number; parallel?: number }): Promise<PostResult[]> {
  const timeoutMs = opts.timeoutMs ?? TIMEOUT_MS;
  const started = performance.now();
  const targets = posts.map((p) => targetOf(p.url));
  const destinations = await destinationsOf(
    targets.map((t) => t.hostname),
    opts.allowPrivate,
    timeoutMs,
  );
  const pinned: PinnedPost[] = [];
  const sent: number[] = [];
  const results: PostResult[] = posts.map((post, i) => {
    const destination = destinations.get(targets[i]!.hostname)!;
    if (typeof destination === 'string') return refused(destination);
    sent.push(i);
    // As a raw list Node adds no header of its own, Host included.
    const headers = Object.entries(post.headers).flat();
    headers.push('host', targets[i]!.host, 'content-type', 'application/json', 'content-length', String(Buffer.byteLength(post.body)), 'user-agent', 'hourbook-webhooks/1');
    pinned.push([post.url, destination.address, destination.family, headers, post.body]);
    return refused('');
  });
  if (pinned.length > 0) {
    // What is left of each attempt's time once the names were resolved.
    const left = Math.max(1, Math.round(timeoutMs - (performance.now() - started)));
    const answers = await sendPinned(pinned, { parallel: opts.parallel ?? 1, timeoutMs: left, keepBytes: KEEP_BYTES });
    answers.forEach((result, n) => (results[sent[n]!] = result));
  }
  return results;
}

/** One webhook POST (see `postWebhooks`). */
export const postWebhook = async (url: string, headers: Record<string, string>, body: string, opts: { allowPrivate: boolean; timeoutMs?: number }): Promise<PostResult> =>
  (await postWebhooks([{ url, headers, body }], opts))[0]!;
