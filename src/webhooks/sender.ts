import { WorkerCalls } from '../worker-calls.ts';

/**
 * The HTTP side of a webhook attempt, on a worker thread: one POST of prepared bytes to an address
 * the caller already checked (`resolveDestination`), without following redirects, reading at most
 * the first bytes of the answer, within a time limit. Node's HTTP client cost about 40 µs of CPU
 * per POST here, as much as the rest of a delivery; on the event loop that came out of every
 * request's share, so a server with an endpoint for every event answered a third fewer requests.
 *
 * Connections are kept open between attempts (a new TCP connection per POST cost more than the
 * POST) and closed after 5 s unused. A kept connection goes to an address that was checked when it
 * was opened, and every attempt is checked again before it gets here, so a name that now resolves
 * to a private address is refused whatever is kept.
 *
 * Plain CommonJS on Node's own modules, run with `eval`: the same source works from `src/` under
 * tsx, from the server bundle and from an installed package (as the checkpointer's worker).
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const http = require('node:http');
const https = require('node:https');
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 10, timeout: 5000 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 10, timeout: 5000 }),
};
function post([url, address, family, headers, body], timeoutMs, limitMs, keepBytes) {
  return new Promise((resolve) => {
    let settled = false;
    let req = null;
    const finish = (result) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const timer = setTimeout(() => {
      finish({ status: null, body: null, error: 'timed out after ' + limitMs / 1000 + ' s' });
      if (req) req.destroy();
    }, timeoutMs);
    try {
      const target = new URL(url);
      const send = target.protocol === 'https:' ? https.request : http.request;
      // Connects to the checked address whatever the name resolves to by now.
      const lookup = (_host, options, callback) => (options.all ? callback(null, [{ address, family }]) : callback(null, address, family));
      req = send(target, { method: 'POST', headers, lookup, agent: agents[target.protocol] }, (res) => {
        const chunks = [];
        let size = 0;
        const done = () => {
          const status = res.statusCode || 0;
          const text = Buffer.concat(chunks).subarray(0, keepBytes).toString('utf8');
          const redirect = status >= 300 && status < 400 ? 'redirects are not followed (to ' + (res.headers.location || 'nowhere') + ')' : null;
          finish({ status, body: text, error: redirect || (status >= 200 && status < 300 ? null : 'answered ' + status) });
        };
        res.on('data', (chunk) => {
          chunks.push(chunk);
          size += chunk.length;
          if (size >= keepBytes) {
            res.destroy();
            done();
          }
        });
        res.on('end', done);
        res.on('error', done);
        res.on('close', done);
      });
      req.on('error', (err) => finish({ status: null, body: null, error: err.message }));
      req.end(body);
    } catch (err) {
      finish({ status: null, body: null, error: String((err && err.message) || err) });
    }
  });
}
// A batch: its posts, \`parallel\` at a time; one answer with every result, in order, each with when
// it started (ms after the batch arrived) and how long it took.
parentPort.on('message', async ({ job, posts, parallel, timeoutMs, limitMs, keepBytes }) => {
  const arrived = performance.now();
  const results = new Array(posts.length);
  let next = 0;
  const lane = async () => {
    while (next < posts.length) {
      const i = next++;
      const started = performance.now();
      const result = await post(posts[i], timeoutMs, limitMs, keepBytes);
      results[i] = { ...result, startedAfterMs: Math.round(started - arrived), durationMs: Math.round(performance.now() - started) };
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, posts.length) }, lane));
  parentPort.postMessage({ job, result: results });
});
`;

export interface SendResult {
  /** The answer's status, or null when none came. */
  status: number | null;
  /** The first bytes of the answer, or null when none came. */
  body: string | null;
  error: string | null;
}

/** A result as the thread reports it: also when the POST started (ms after the batch was handed over) and how long it took. */
export type SentResult = SendResult & { startedAfterMs: number; durationMs: number };

/** An attempt that got no answer, for `error` (a refused address, an unreadable secret, a lost thread). */
export const noAnswer = (error: string): SentResult => ({ status: null, body: null, error, startedAfterMs: 0, durationMs: 0 });

/**
 * One POST: the URL, the checked address to connect to and its family, the headers as Node's raw
 * list (name, value, name, value, …), the body. A tuple: a batch crosses to the thread as one
 * structured clone, and flat arrays of strings clone fastest.
 */
export type PinnedPost = [url: string, address: string, family: 4 | 6, headers: string[], body: string];

/** What holds for every POST of a batch. */
export interface BatchLimits {
  /** How many POSTs run at once. */
  parallel: number;
  /** Each POST's time limit: what is left of `limitMs` once the host's name was resolved. */
  timeoutMs: number;
  /** The attempt's whole time limit, as a timeout's error says it ("timed out after 10 s"). */
  limitMs: number;
  /** How much of each answer is read and kept. */
  keepBytes: number;
}

/** The process's one sender thread. Each attempt is a few objects: a small heap keeps its memory small beside the server's. */
const sender = new WorkerCalls<{ posts: PinnedPost[] } & BatchLimits, SentResult[]>('the sending thread', WORKER_SOURCE, {
  maxOldGenerationSizeMb: 32,
  maxYoungGenerationSizeMb: 4,
});

/**
 * POSTs a batch through the sender thread; never throws, every failure is a result (a thread that
 * stopped fails the batch's attempts, which are retried as any failure).
 */
export const sendPinned = (posts: PinnedPost[], limits: BatchLimits): Promise<SentResult[]> =>
  sender.call({ posts, ...limits }).catch((err: Error) => posts.map(() => noAnswer(err.message)));
