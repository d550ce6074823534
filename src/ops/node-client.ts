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

function send(address: NodeAddress, method: string, path: string, body?: unknown, timeoutMs?: number): Promise<IncomingMessage> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (payload !== undefined) headers['content-type'] = 'application/json';
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
  const data = await readJson(res);
  const status = res.statusCode ?? 0;
  if (status < 200 || status >= 300) {
    throw new NodeRequestError(typeof data.error === 'string' ? data.error : `HTTP ${status}`, status, typeof data.code === 'string' ? data.code : undefined);
  }
  return data as T;
}

/** A snapshot's length, a header of the answer, and its SHA-256, a trailer (the sender hashes it as it sends it). */
export const SNAPSHOT_BYTES = 'X-Hourbook-Bytes';
export const SNAPSHOT_SHA256 = 'X-Hourbook-Sha256';

/**
 * Downloads a workspace snapshot into `target`, hashing it on the way; rejects unless the bytes
 * received are exactly what the sender announced (length and SHA-256).
 */
export async function downloadSnapshot(address: NodeAddress, subdomain: string, target: string): Promise<{ bytes: number; sha256: string }> {
  const res = await send(address, 'GET', `/workspaces/${subdomain}/snapshot`);
  if (res.statusCode !== 200) {
    const data = await readJson(res);
    throw new NodeRequestError(typeof data.error === 'string' ? data.error : `HTTP ${res.statusCode}`, res.statusCode ?? 0, typeof data.code === 'string' ? data.code : undefined);
  }
  const announcedBytes = Number(res.headers[SNAPSHOT_BYTES.toLowerCase()] ?? -1);
  const hash = createHash('sha256');
  let bytes = 0;
  res.on('data', (chunk: Buffer) => {
    hash.update(chunk);
    bytes += chunk.length;
  });
  try {
    await pipeline(res, createWriteStream(target, { flags: 'wx' }));
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
