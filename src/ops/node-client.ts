import { createHash } from 'node:crypto';
import { createWriteStream, rmSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { pipeline } from 'node:stream/promises';

/** Where the admin endpoints of a hourbook process answer: a node's URL (with the cluster secret) or its local control socket. */
export type NodeAddress = { url: string; secret: string } | { socketPath: string };

/** The admin endpoints' prefix, on the TCP port and on the control socket alike. */
export const ADMIN_PREFIX = '/_cluster';

export class NodeRequestError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

/** A request to a node: a JSON body, or bytes (`Buffer`, sent as application/octet-stream) with `extraHeaders`. */
function send(address: NodeAddress, method: string, path: string, body?: unknown, timeoutMs?: number, extraHeaders: Record<string, string> = {}): Promise<IncomingMessage> {
  const payload = body === undefined ? undefined : Buffer.isBuffer(body) ? body : JSON.stringify(body);
  const headers: Record<string, string> = { accept: 'application/json', ...extraHeaders };
  if (payload !== undefined) headers['content-type'] = Buffer.isBuffer(body) ? 'application/octet-stream' : 'application/json';
  let options: RequestOptions;
  let request = httpRequest;
  if ('socketPath' in address) {
    options = { socketPath: address.socketPath, path: ADMIN_PREFIX + path, method, headers };
  } else {
    const url = new URL(ADMIN_PREFIX + path, address.url);
    if (url.protocol === 'https:') request = httpsRequest;
    options = { hostname: url.hostname, port: url.port, path: url.pathname, method, headers: { ...headers, authorization: `Bearer ${address.secret}` } };
  }
  return new Promise((resolve, reject) => {
    const req = request(options, resolve);
    req.on('error', reject);
    if (timeoutMs !== undefined) req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.end(payload);
  });
}

async function readJson(res: IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of res) text += String(chunk);
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { error: text.slice(0, 200) || `HTTP ${res.statusCode}` };
  }
}

/** One admin call; its JSON answer, or a NodeRequestError carrying the node's message and code. */
export async function adminCall<T = Record<string, unknown>>(address: NodeAddress, method: 'GET' | 'POST', path: string, body?: unknown, opts: { timeoutMs?: number } = {}): Promise<T> {
  const res = await send(address, method, path, body, opts.timeoutMs);
  const status = res.statusCode ?? 0;
  if (status < 200 || status >= 300) throw await refusal(res);
  return (await readJson(res)) as T;
}

/** The node's error answer as a NodeRequestError. */
async function refusal(res: IncomingMessage): Promise<NodeRequestError> {
  const data = await readJson(res);
  return new NodeRequestError(typeof data.error === 'string' ? data.error : `HTTP ${res.statusCode}`, res.statusCode ?? 0, typeof data.code === 'string' ? data.code : undefined);
}

/**
 * Asks `address` for the pages of its workspace file that differ from ours, given as our page
 * hashes (src/ops/page-diff.ts); the answer streams, to be read by `applyChangedPages`.
 */
export async function requestChangedPages(address: NodeAddress, subdomain: string, hashes: Buffer, pageSize: number, operation?: string): Promise<IncomingMessage> {
  const headers = { [PAGE_SIZE_HEADER]: String(pageSize), ...(operation ? { [OPERATION_HEADER]: operation } : {}) };
  const res = await send(address, 'POST', `/workspaces/${subdomain}/changes`, hashes, TRANSFER_STALL_MS, headers);
  if (res.statusCode !== 200) throw await refusal(res);
  return res;
}

/**
 * How long a transfer may go without a byte from the other node before it is given up (a source
 * hashes its pages before it answers `changes`: about 1 s per GB here).
 */
const TRANSFER_STALL_MS = 120_000;

/** The move whose pause the source's pages are asked under (`requestChangedPages`). */
export const OPERATION_HEADER = 'X-Hourbook-Operation';

/** The page size of the hashes a target sends with `requestChangedPages`. */
export const PAGE_SIZE_HEADER = 'X-Hourbook-Page-Size';

/** A snapshot's length, a header of the answer, and its SHA-256, a trailer (the sender hashes it as it sends it). */
export const SNAPSHOT_BYTES = 'X-Hourbook-Bytes';
export const SNAPSHOT_SHA256 = 'X-Hourbook-Sha256';

/**
 * Downloads a workspace snapshot into `target`, hashing it on the way; rejects unless the bytes
 * received are exactly what the sender announced (length and SHA-256).
 */
export async function downloadSnapshot(address: NodeAddress, subdomain: string, target: string): Promise<{ bytes: number; sha256: string }> {
  const res = await send(address, 'GET', `/workspaces/${subdomain}/snapshot`, undefined, TRANSFER_STALL_MS);
  if (res.statusCode !== 200) throw await refusal(res);
  const announcedBytes = Number(res.headers[SNAPSHOT_BYTES.toLowerCase()] ?? -1);
  const hash = createHash('sha256');
  let bytes = 0;
  res.on('data', (chunk: Buffer) => {
    hash.update(chunk);
    bytes += chunk.length;
  });
  try {
    // Writes of 1 MiB: with the default 16 KiB, each chunk waited for its own write and a 1 GB
    // snapshot took 5-9 s to arrive here against 2 s for curl (npm run bench, section shipping).
    await pipeline(res, createWriteStream(target, { flags: 'wx', highWaterMark: 1 << 20 }));
  } catch (err) {
    rmSync(target, { force: true });
    throw err;
  }
  const sha256 = hash.digest('hex');
  // Read once the body has ended; absent when the sender stopped before the end.
  const announced = { sha256: String(res.trailers[SNAPSHOT_SHA256.toLowerCase()] ?? ''), bytes: announcedBytes };
  if (sha256 !== announced.sha256 || bytes !== announced.bytes) {
    rmSync(target, { force: true });
    throw new Error(`the snapshot of ${subdomain} arrived damaged (${bytes} of ${announced.bytes} bytes, sha256 ${sha256.slice(0, 12)} ≠ ${announced.sha256.slice(0, 12)})`);
  }
  return { bytes, sha256 };
}
