import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hourbook, spawnHourbook, type Spawned } from './helpers/processes.ts';
import { freePort } from './helpers/ports.ts';

/**
 * A command run beside a serving process tells it what its writes gave the jobs to do: an event
 * recorded by `client create` reaches a webhook receiver at once, not at the jobs' next visit of
 * the workspace (hours later).
 */
const dataDir = mkdtempSync(join(tmpdir(), 'hourbook-cli-wake-'));
const env = { DATA_DIR: dataDir, WEBHOOK_ALLOW_PRIVATE: '1' };
const received: string[] = [];
let receiver: Server;
let server: Spawned;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      received.push((JSON.parse(body) as { type: string }).type);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/in`;
  expect((await hourbook(env, 'workspace', 'create', 'wake', '--owner-email', 'o@wake.test')).code).toBe(0);
  expect((await hourbook(env, 'webhook', 'add', 'wake', '--url', url, '--events', 'client.created')).code).toBe(0);
  server = await spawnHourbook({ ...env, PORT: String(await freePort()) }, ['serve']);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  receiver?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a command beside a running server', () => {
  it("wakes the server's jobs for the workspace it wrote to: the event is delivered within seconds", async () => {
    const made = await hourbook(env, 'client', 'create', 'wake', '--name', 'Woken Ltd');
    expect(made.code, made.stderr).toBe(0);
    const started = Date.now();
    while (!received.includes('client.created') && Date.now() - started < 10_000) await new Promise((r) => setTimeout(r, 50));
    expect(received).toContain('client.created');
  }, 30_000);
});
