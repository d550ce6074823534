import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runJobOnce, type Job } from '../src/jobs/runner.ts';
import { startTestEnv, type TestEnv } from './helpers/env.ts';
import { send } from './helpers/http.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv({ env: { CLUSTER_SECRET: 's'.repeat(40) } });
});
afterAll(() => env.close());

const rename = (first_name: string, ws = env.alpha) =>
  ws.api.patch(`/api/external/v1/team_members/${ws.ownerId}`, { first_name }, { headers: { accept: 'application/json' } });
const members = (ws = env.alpha) => ws.api.get('/api/external/v2/team-members', { headers: { accept: 'application/json' } });

describe('a paused workspace', () => {
  it('refuses writes through REST with 503 workspace_paused and Retry-After, changes nothing, and keeps answering reads', async () => {
    await env.services.registry.gate.hold('alpha', 'writes', 'test copy');
    try {
      const res = await rename('During');
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('1');
      expect(res.body).toMatchObject({ code: 'workspace_paused', retry_after: 1 });
      const read = await members();
      expect(read.status).toBe(200);
      expect(read.body.team_members[0].first_name).toBe('Owner');
      // another workspace is not affected
      expect((await rename('Beta', env.beta)).status).toBe(200);
    } finally {
      env.services.registry.gate.release('alpha');
    }
    expect((await rename('After')).status).toBe(200);
    expect((await members()).body.team_members[0].first_name).toBe('After');
  });

  it('refuses tRPC mutations the same way, with Retry-After', async () => {
    await env.services.registry.gate.hold('alpha', 'writes', 'test copy');
    try {
      const res = await send(env.url, 'POST', '/trpc/clients.create', {
        host: env.alpha.host,
        key: env.alpha.key,
        body: { email: env.alpha.ownerEmail, name: 'Paused Ltd', currency: 'EUR' },
      });
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('1');
      expect(res.body.error.data.code).toBe('workspace_paused');
      const list = await send(env.url, 'GET', `/trpc/clients.list?input=${encodeURIComponent('{}')}`, { host: env.alpha.host, key: env.alpha.key });
      expect(list.status).toBe(200);
      expect(list.body.result.data.items).toEqual([]);
    } finally {
      env.services.registry.gate.release('alpha');
    }
  });

  it('hold() resolves only once the writes already running have finished', async () => {
    const gate = env.services.registry.gate;
    const leave = gate.enterWrite('alpha');
    let held = false;
    const holding = gate.hold('alpha', 'writes', 'test').then(() => (held = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(held).toBe(false);
    expect(() => gate.enterWrite('alpha')).toThrow(expect.objectContaining({ code: 'workspace_paused' }));
    leave();
    await holding;
    expect(held).toBe(true);
    gate.release('alpha');
  });

  it('is left alone by the jobs until it resumes', async () => {
    const visited: string[] = [];
    const job: Job = { name: 'probe', run: (handle) => (visited.push(handle.subdomain), Infinity) };
    await env.services.registry.gate.hold('alpha', 'writes', 'test');
    await runJobOnce(job, env.services);
    expect(visited).toEqual(['beta']);
    env.services.registry.gate.release('alpha');
    await runJobOnce(job, env.services);
    expect(visited).toEqual(['beta', 'alpha', 'beta']);
  });

  it('once handed over, answers every request with 503 workspace_moved until it resumes', async () => {
    await env.services.registry.handOver('alpha', 'test');
    const read = await members();
    expect(read.status).toBe(503);
    expect(read.body.code).toBe('workspace_moved');
    expect(read.headers['retry-after']).toBe('1');
    env.services.registry.resume('alpha');
    expect((await members()).status).toBe(200);
  });
});

describe('the cluster endpoints', () => {
  const status = (authorization?: string) => send(env.url, 'GET', '/_cluster/status', { headers: authorization ? { authorization } : {} });

  it('answer only with the cluster secret', async () => {
    expect((await status()).status).toBe(401);
    expect((await status(`Bearer ${'x'.repeat(40)}`)).status).toBe(401);
    expect((await status('s'.repeat(40))).status).toBe(401);
    const ok = await status(`Bearer ${'s'.repeat(40)}`);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ pid: process.pid, status: 'ready', holds: {} });
  });

  it('give a hold to the operation that took it: another cannot take, widen or lift it (409 workspace_busy); its own resume lifts it; a resume naming none lifts any', async () => {
    const admin = (path: string, body: unknown) => send(env.url, 'POST', `/_cluster/workspaces/alpha/${path}`, { headers: { authorization: `Bearer ${'s'.repeat(40)}` }, body });
    expect((await admin('pause', { reason: 'moving to node2', operation: 'move-a' })).status).toBe(200);
    for (const [path, body] of [
      ['pause', { reason: 'a second move', operation: 'move-b' }],
      ['hand-over', { reason: 'a restore', operation: 'restore-c' }],
      ['pause', { reason: 'no operation named' }],
    ] as const) {
      const res = await admin(path, body);
      expect(res.status, path).toBe(409);
      expect(res.body).toMatchObject({ code: 'workspace_busy', reason: 'moving to node2', since: expect.any(String) });
      expect(res.body.error).toMatch(/^alpha is held by another operation \(moving to node2, since /);
    }
    const other = await admin('resume', { operation: 'move-b' });
    expect(other.body).toMatchObject({ released: false, hold: { hold: 'writes', reason: 'moving to node2', operation: 'move-a' } });
    expect((await rename('Still held')).status).toBe(503);
    // The same operation may widen its pause to a hand-over, and lift it.
    expect((await admin('hand-over', { reason: 'moved to node2', operation: 'move-a' })).body.hold).toMatchObject({ hold: 'all', operation: 'move-a' });
    expect((await admin('resume', { operation: 'move-a' })).body).toMatchObject({ released: true, hold: null });
    expect((await rename('Free')).status).toBe(200);
    // An operator's resume names no operation and lifts whatever holds it.
    await admin('pause', { reason: 'left behind', operation: 'move-d' });
    expect((await admin('resume', {})).body).toMatchObject({ released: true, hold: null });
    const bad = await admin('pause', { operation: 42 });
    expect(bad.status).toBe(422);
    expect(bad.body).toMatchObject({ code: 'validation_failed', details: [{ path: 'operation' }] });
    expect(env.services.registry.gate.isHeld('alpha')).toBe(false);
  });

  it('do not exist without CLUSTER_SECRET', async () => {
    const plain = await startTestEnv();
    try {
      const res = await send(plain.url, 'GET', '/_cluster/status', { headers: { authorization: `Bearer ${'s'.repeat(40)}` } });
      expect(res.status).toBe(404);
    } finally {
      await plain.close();
    }
  });
});

describe('/readyz', () => {
  it('is 200 once the start-up pass is done and 503 stopping once shutdown began', async () => {
    const other = await startTestEnv();
    const ready = async () => (await send(other.url, 'GET', '/readyz')).body.status;
    for (let i = 0; i < 100 && (await ready()) !== 'ready'; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await ready()).toBe('ready');
    // A request whose headers are still arriving when shutdown begins is answered, and says so.
    const { connect } = await import('node:net');
    const socket = connect(Number(new URL(other.url).port), '127.0.0.1');
    await new Promise<void>((r) => socket.once('connect', () => r()));
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    socket.write('GET /readyz HTTP/1.1\r\nHost: localhost\r\n');
    await new Promise((r) => setTimeout(r, 100));
    const closing = other.close();
    socket.write('Connection: close\r\n\r\n');
    await new Promise<void>((r) => socket.once('close', () => r()));
    await closing;
    expect(answer).toMatch(/^HTTP\/1\.1 503/);
    expect(answer).toContain('"status":"stopping"');
  });
});
