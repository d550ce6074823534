import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadSnapshot, SNAPSHOT_BYTES, SNAPSHOT_SHA256 } from '../src/ops/node-client.ts';

/**
 * The receiving side of a move, against senders that misbehave: a snapshot is kept only when its
 * bytes are exactly the announced length and SHA-256 (a trailer, sent after the body).
 */
const dir = mkdtempSync(join(tmpdir(), 'hourbook-snapshot-'));
const body = Buffer.alloc(3 * 1024 * 1024 + 17, 'x');
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** How the fake node answers `GET /_cluster/workspaces/<how>/snapshot`. */
const senders: Record<string, (res: ServerResponse) => void> = {
  good: (res) => {
    res.writeHead(200, { [SNAPSHOT_BYTES]: String(body.length), Trailer: SNAPSHOT_SHA256 });
    res.write(body);
    res.addTrailers({ [SNAPSHOT_SHA256]: sha256(body) });
    res.end();
  },
  // one byte changed on the way, the trailer computed before the change
  altered: (res) => {
    const changed = Buffer.from(body);
    changed[1000] = 0x79;
    res.writeHead(200, { [SNAPSHOT_BYTES]: String(body.length), Trailer: SNAPSHOT_SHA256 });
    res.write(changed);
    res.addTrailers({ [SNAPSHOT_SHA256]: sha256(body) });
    res.end();
  },
  // the sender failed half way: the body ends early, with no trailer
  cut: (res) => {
    res.writeHead(200, { [SNAPSHOT_BYTES]: String(body.length), Trailer: SNAPSHOT_SHA256 });
    res.end(body.subarray(0, 1024 * 1024));
  },
  // an older node: the hash as a header, no trailer; not trusted (nothing proves what arrived)
  headerOnly: (res) => {
    res.writeHead(200, { [SNAPSHOT_BYTES]: String(body.length), [SNAPSHOT_SHA256]: sha256(body) });
    res.end(body);
  },
};

let server: Server;
let url = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    const send = senders[/workspaces\/(\w+)\/snapshot/.exec(req.url ?? '')?.[1] ?? ''];
    if (send) send(res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());

describe('downloadSnapshot', () => {
  it('keeps a snapshot whose length and SHA-256 match what the sender announced', async () => {
    const target = join(dir, 'good.sqlite');
    await expect(downloadSnapshot({ url, secret: 's' }, 'good', target)).resolves.toEqual({ bytes: body.length, sha256: sha256(body) });
    expect(readFileSync(target).equals(body)).toBe(true);
  });

  it.each(['altered', 'cut', 'headerOnly'])('refuses a snapshot that is %s, and leaves no file', async (how) => {
    const target = join(dir, `${how}.sqlite`);
    await expect(downloadSnapshot({ url, secret: 's' }, how, target)).rejects.toThrow(/arrived damaged/);
    expect(existsSync(target)).toBe(false);
  });
});
