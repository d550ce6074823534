import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

/**
 * DNS rebinding: a name that answers a public address when it is checked and a loopback one when
 * it is connected to. Here the check's resolver (node:dns/promises, mocked) says `localhost` is
 * 8.8.8.8 while the system resolver still says loopback: a delivery that resolved the name again
 * to connect would reach the receiver on this machine. It must connect to what it checked.
 */
const checked: string[] = [];
vi.mock('node:dns/promises', async (original) => ({
  ...(await original<typeof import('node:dns/promises')>()),
  lookup: async (host: string) => {
    checked.push(host);
    return [{ address: '8.8.8.8', family: 4 }];
  },
}));

const { postWebhook } = await import('../src/webhooks/post.ts');

let hits = 0;
const receiver = createServer((_req, res) => {
  hits++;
  res.writeHead(204).end();
});
// Both loopback addresses, whichever the system resolver gives for localhost.
beforeAll(() => new Promise<void>((resolve) => receiver.listen({ port: 0, host: '::', ipv6Only: false }, resolve)));
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

describe('delivery and DNS', () => {
  it('connects to the address it checked, not to what the name resolves to by then', async () => {
    const { port } = receiver.address() as AddressInfo;
    const result = await postWebhook(`http://localhost:${port}/hooks`, {}, '{}', { allowPrivate: false, timeoutMs: 500 });
    expect(checked).toEqual(['localhost']);
    expect(hits).toBe(0);
    expect(result.status).toBeNull();
    expect(result.error).not.toMatch(/refused:/);
  });
});
