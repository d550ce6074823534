import { RefusedDestination, resolveDestination, type Destination } from './address.ts';
import { noAnswer, sendPinned, type PinnedPost, type SentResult } from './sender.ts';

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

/** Where a post goes: its host with the port (the Host header) and the name to resolve; '' when its URL does not parse. */
function targetOf(url: string): { host: string; hostname: string } {
  if (!URL.canParse(url)) return { host: '', hostname: '' };
  const { host, hostname } = new URL(url);
  return { host, hostname };
}

/** The checked address of a host, or why it is refused (within `timeoutMs`). */
async function destinationOf(hostname: string, allowPrivate: boolean, timeoutMs: number): Promise<Destination | string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    if (!hostname) throw new Error('not a URL');
    return await Promise.race([
      resolveDestination(hostname, allowPrivate),
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timed out resolving the host')), timeoutMs))),
    ]);
  } catch (err) {
    return err instanceof RefusedDestination || err instanceof Error ? err.message : String(err);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * POSTs webhooks: only to public addresses (unless allowed otherwise), each to the address checked
 * for its host, within 10 s from the name's resolution to the end of the answer read, without
 * following redirects (a 3xx is a failure), reading at most 1 KB of each answer, `parallel` at a
 * time per host. Each host is resolved once per call, and its posts leave as soon as it is: a
 * name slow to resolve holds back (and takes the time of) only its own posts. The POSTs are made
 * by the sender thread (sender.ts). Never throws: every failure is a result, in order.
 */
export async function postWebhooks(posts: readonly WebhookPost[], opts: { allowPrivate: boolean; timeoutMs?: number; parallel?: number }): Promise<PostResult[]> {
  const timeoutMs = opts.timeoutMs ?? TIMEOUT_MS;
  const results: PostResult[] = [];
  const byHost = new Map<string, { host: string; at: number[] }>();
  posts.forEach((post, i) => {
    const { host, hostname } = targetOf(post.url);
    const group = byHost.get(hostname) ?? { host, at: [] };
    group.at.push(i);
    byHost.set(hostname, group);
  });
  await Promise.all(
    [...byHost].map(async ([hostname, { host, at }]) => {
      const started = performance.now();
      const destination = await destinationOf(hostname, opts.allowPrivate, timeoutMs);
      if (typeof destination === 'string') {
        for (const i of at) results[i] = noAnswer(destination);
        return;
      }
      const pinned = at.map((i): PinnedPost => {
        const post = posts[i]!;
        // As a raw list Node adds no header of its own, Host included.
        const headers = Object.entries(post.headers).flat();
        headers.push('host', host, 'content-type', 'application/json', 'content-length', String(Buffer.byteLength(post.body)), 'user-agent', 'hourbook-webhooks/1');
        return [post.url, destination.address, destination.family, headers, post.body];
      });
      // What is left of the attempts' time once their host's name was resolved.
      const left = Math.max(1, Math.round(timeoutMs - (performance.now() - started)));
      const answers = await sendPinned(pinned, { parallel: opts.parallel ?? 1, timeoutMs: left, limitMs: timeoutMs, keepBytes: KEEP_BYTES });
      answers.forEach((result, n) => (results[at[n]!] = result));
    }),
  );
  return results;
}

/** One webhook POST (see `postWebhooks`). */
export const postWebhook = async (url: string, headers: Record<string, string>, body: string, opts: { allowPrivate: boolean; timeoutMs?: number }): Promise<PostResult> =>
  (await postWebhooks([{ url, headers, body }], opts))[0]!;
