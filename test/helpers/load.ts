import { request } from 'node:http';
import BetterSqlite3 from 'better-sqlite3';

/**
 * A steady load of writes to one workspace, as integrators would send it, through both doors:
 * tRPC `clients.create` and REST `POST /v2/clients/{id}/recipients`, alternately, each write
 * naming a new row. A 503 (a paused or moving workspace) is retried, as docs/operations.md tells
 * clients to; anything else that is not a success is a failure. Every acknowledged write is kept
 * with the time it was acknowledged, so a test can prove each one is stored.
 */

export interface Target {
  /** `http://host:port` of the server or the proxy. */
  url: string;
  /** The workspace's host name (`acme.localhost`). */
  host: string;
  key: string;
  /** An Owner's e-mail: the acting user of both writes. */
  ownerEmail: string;
}

export interface Ack {
  name: string;
  at: number;
}

export interface Writer {
  acked: Ack[];
  /** Writes answered with neither success nor 503, or lost to a connection error. */
  failures: string[];
  retries: number;
  /** Stops after the writes in flight are answered. */
  stop: () => Promise<void>;
}

function post(target: Target, path: string, body: unknown): Promise<{ status: number; text: string }> {
  const url = new URL(path, target.url);
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request(
      {
        hostname: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { host: target.host, 'x-api-key': target.key, 'content-type': 'application/json', accept: 'application/json', 'content-length': payload.length },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Creates the client the REST writes add recipients to; returns its id. */
export async function prepareTarget(target: Target): Promise<string> {
  const res = await post(target, '/trpc/clients.create', { email: target.ownerEmail, name: 'Load target', currency: 'EUR' });
  if (res.status !== 200) throw new Error(`could not create the load's client: ${res.status} ${res.text}`);
  return (JSON.parse(res.text) as { result: { data: { client: { id: string } } } }).result.data.client.id;
}

export function startWriter(target: Target, clientId: string, opts: { prefix: string; concurrency?: number; retryMs?: number; toleratesConnectionErrors?: boolean }): Writer {
  const writer: Writer = { acked: [], failures: [], retries: 0, stop: async () => {} };
  let running = true;
  let n = 0;
  const one = async (): Promise<void> => {
    const name = `${opts.prefix}-${n++}`;
    const viaRest = n % 2 === 0;
    for (;;) {
      let res: { status: number; text: string };
      try {
        res = viaRest
          ? await post(target, `/api/external/v2/clients/${clientId}/recipients`, { email: target.ownerEmail, recipient: { name, email: `${name}@load.test` } })
          : await post(target, '/trpc/clients.create', { email: target.ownerEmail, name, currency: 'EUR' });
      } catch (err) {
        if (!opts.toleratesConnectionErrors) writer.failures.push(`${name}: ${(err as Error).message}`);
        return;
      }
      if (res.status === 503 && running) {
        writer.retries++;
        await new Promise((r) => setTimeout(r, opts.retryMs ?? 50));
        continue;
      }
      if (res.status === 200 || res.status === 201) writer.acked.push({ name, at: Date.now() });
      else if (res.status !== 503) writer.failures.push(`${name}: ${res.status} ${res.text.slice(0, 200)}`);
      return;
    }
  };
  const loops = Array.from({ length: opts.concurrency ?? 2 }, async () => {
    while (running) await one();
  });
  writer.stop = async () => {
    running = false;
    await Promise.all(loops);
  };
  return writer;
}

/** Every client and recipient name stored in a workspace file. */
export function storedNames(file: string): Set<string> {
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    const rows = db.prepare('SELECT name FROM clients UNION ALL SELECT name FROM recipients').all() as { name: string }[];
    return new Set(rows.map((r) => r.name));
  } finally {
    db.close();
  }
}
