import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { createServices } from '../src/services.ts';
import { startServer } from '../src/server.ts';
import { createApiKey, revokeApiKey } from '../src/workspaces/keys.ts';
import { provisionWorkspace } from '../src/domain/workspace/provision.ts';
import { makeMember } from './helpers/factories.ts';
import { callerFor, startTestEnv, testClock, type TestEnv } from './helpers/env.ts';
import { send } from './helpers/http.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TRPCError } from '@trpc/server';

const clock = testClock('2026-11-21T12:00:00.000Z');
let env: TestEnv;
const TEAM = '/api/external/v2/team-members';
const accept = { accept: 'application/json' };

beforeAll(async () => {
  env = await startTestEnv({ clock });
});
afterAll(() => env.close());

describe('authentication over HTTP', () => {
  it('refuses a revoked key with the exact 401 body', async () => {
    const key = createApiKey(env.alpha.handle.db, { label: 'r', now: clock() });
    expect((await send(env.url, 'GET', TEAM, { host: env.alpha.host, key: key.apiKey, headers: accept })).status).toBe(200);
    revokeApiKey(env.alpha.handle.db, key.id, clock());
    const res = await send(env.url, 'GET', TEAM, { host: env.alpha.host, key: key.apiKey, headers: accept });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Could not authenticate, invalid API Key', code: 'unauthorized' });
  });

  it('refuses an expired key', async () => {
    const key = createApiKey(env.alpha.handle.db, { label: 'e', expiresAt: '2026-11-22T00:00:00.000Z', now: clock() });
    expect((await send(env.url, 'GET', TEAM, { host: env.alpha.host, key: key.apiKey, headers: accept })).status).toBe(200);
    clock.set('2026-11-22T00:00:01.000Z');
    const res = await send(env.url, 'GET', TEAM, { host: env.alpha.host, key: key.apiKey, headers: accept });
    clock.set('2026-11-21T12:00:00.000Z');
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('unauthorized');
  });

  it.each(['..', 'a_b.localhost', 'x.evil.com', '..localhost', 'alpha.localhost.evil.com', 'localhost:3000'])('host %j is workspace_not_found', async (host) => {
    const res = await send(env.url, 'GET', TEAM, { host, key: env.alpha.key, headers: accept });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('workspace_not_found');
  });

  it('selects the workspace by host, ignoring the port and case', async () => {
    const res = await send(env.url, 'GET', TEAM, { host: 'ALPHA.localhost:8080', key: env.alpha.key, headers: accept });
    expect(res.status).toBe(200);
  });
});

describe('the server', () => {
  it('/healthz answers without authentication', async () => {
    const res = await send(env.url, 'GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('echoes a safe X-Request-Id and makes one otherwise', async () => {
    const mine = await send(env.url, 'GET', '/healthz', { headers: { 'x-request-id': 'abc-123' } });
    expect(mine.headers['x-request-id']).toBe('abc-123');
    const unsafe = await send(env.url, 'GET', '/healthz', { headers: { 'x-request-id': 'bad id\twith spaces' } });
    expect(unsafe.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('marks every REST answer, success or error, as one no cache may keep', async () => {
    const listed = await env.alpha.api.get('/api/external/v2/team-members', { headers: { accept: 'application/json' } });
    const missing = await env.alpha.api.get('/api/external/v2/nothing-here');
    const unauthorised = await send(env.url, 'GET', '/api/external/v2/team-members', { host: env.alpha.host, headers: { accept: 'application/json' } });
    expect([listed.status, missing.status, unauthorised.status]).toEqual([200, 404, 401]);
    for (const res of [listed, missing, unauthorised]) expect(res.headers['cache-control']).toBe('no-store');
  });

  it('answers unknown routes 404 and known paths with another method 405', async () => {
    const unknown = await env.alpha.api.get('/api/external/v2/nothing-here');
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('route_not_found');
    const wrongMethod = await env.alpha.api.request('DELETE', TEAM);
    expect(wrongMethod.status).toBe(405);
    // HEAD is answered wherever GET is, so Allow names it too (RFC 9110 §10.2.1).
    expect(wrongMethod.headers.allow).toBe('GET, HEAD');
    const head = await send(env.url, 'HEAD', TEAM, { host: env.alpha.host, key: env.alpha.key, headers: accept });
    expect(head.status).toBe(200);
    const outside = await send(env.url, 'GET', '/nope');
    expect(outside.status).toBe(404);
  });
});

describe('request logs', () => {
  it('log one line per request with method, path, status, ms, workspace and request id, never the key', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        cb();
      },
    });
    const dataDir = mkdtempSync(join(tmpdir(), 'hourbook-log-'));
    const services = createServices(loadConfig({ DATA_DIR: dataDir }), { logger: pino({ level: 'info' }, sink) });
    const { apiKey } = provisionWorkspace(services.registry, { subdomain: 'logs', timeZone: 'UTC', owner: { email: 'o@l.test', firstName: 'O', lastName: 'L' } }, new Date());
    const server = await startServer(services, { port: 0, host: '127.0.0.1', jobs: false });
    try {
      await send(server.url, 'PATCH', '/api/external/v1/team_members/nope?secret=1', {
        host: 'logs.localhost',
        key: apiKey,
        headers: { ...accept, 'x-request-id': 'req-1' },
        body: { first_name: 'Sensitive Body Value' },
      });
      // A public invoice's token is its reader's key: not logged either.
      await send(server.url, 'GET', '/invoices/SecretPublicToken123/pdf', { host: 'logs.localhost' });
    } finally {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
    const requestLines = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request');
    expect(requestLines).toHaveLength(2);
    expect(requestLines[0]).toMatchObject({ method: 'PATCH', path: '/api/external/v1/team_members/nope', status: 404, workspace: 'logs', request_id: 'req-1' });
    expect(requestLines[1]).toMatchObject({ method: 'GET', path: '/invoices/:token/pdf', status: 404, workspace: 'logs' });
    expect(typeof requestLines[0].ms).toBe('number');
    const all = lines.join('\n');
    expect(all).not.toContain(apiKey);
    expect(all).not.toContain('Sensitive Body Value');
    expect(all).not.toContain('SecretPublicToken123');
  });
});

describe('the tRPC door', () => {
  it('serves procedures at /trpc with the same key rules', async () => {
    makeMember(env.alpha.handle.db);
    const ok = await send(env.url, 'GET', `/trpc/teamMembers.list?input=${encodeURIComponent(JSON.stringify({ limit: 1 }))}`, {
      host: env.alpha.host,
      key: env.alpha.key,
    });
    expect(ok.status).toBe(200);
    expect(ok.body.result.data.items).toHaveLength(1);
    expect(ok.body.result.data.next_cursor).toEqual(expect.any(String));
    const denied = await send(env.url, 'GET', `/trpc/teamMembers.list?input=${encodeURIComponent('{}')}`, { host: env.alpha.host, key: env.beta.key });
    expect(denied.status).toBe(401);
    expect(denied.body.error.data.code).toBe('unauthorized');
  });

  it('pages team members by cursor and filters by updated_since', async () => {
    const db = env.beta.handle.db;
    const made = [1, 2, 3, 4, 5].map((i) => makeMember(db, { createdAt: `2026-01-0${i}T00:00:00.000Z`, updatedAt: `2026-0${i}-15T00:00:00.000Z` }));
    const caller = env.beta.caller;
    const first = await caller.teamMembers.list({ limit: 4 });
    expect(first.items).toHaveLength(4);
    const second = await caller.teamMembers.list({ limit: 4, cursor: first.next_cursor! });
    expect(second.items).toHaveLength(2); // 5 made + the owner
    expect(second.next_cursor).toBeNull();
    expect(new Set([...first.items, ...second.items].map((m) => m.id)).size).toBe(6);
    const recent = await caller.teamMembers.list({ updated_since: '2026-03-01T00:00:00Z' });
    // March, April and May changes, and the owner (created at the test clock's time)
    expect(recent.items.map((m) => m.email).sort()).toEqual([...made.slice(2).map((m) => m.email), 'owner@beta.test'].sort());
    await expect(caller.teamMembers.list({ cursor: 'garbage' })).rejects.toMatchObject({ code: 'UNPROCESSABLE_CONTENT' });
  });

  it('maps errors to the same codes as REST', async () => {
    const noKey = callerFor(env.services, 'alpha', undefined);
    await expect(noKey.teamMembers.list({})).rejects.toSatisfy((e: unknown) => e instanceof TRPCError && e.code === 'UNAUTHORIZED');
    await expect(env.alpha.caller.teamMembers.update({ team_member_id: 'nope' })).rejects.toMatchObject({ code: 'NOT_FOUND', cause: { code: 'team_member_not_found' } });
  });
});

describe('listing 10,000 members', () => {
  it('pages correctly through a large workspace', async () => {
    const ws = env.workspace('large');
    const insert = ws.handle.sqlite.prepare(
      "insert into team_members (id, email, first_name, last_name, time_zone, organization_role, created_at, updated_at) values (?, ?, 'F', 'L', 'UTC', 'Member', ?, ?)",
    );
    ws.handle.sqlite.transaction(() => {
      for (let i = 0; i < 9_999; i++) {
        const at = new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString();
        insert.run(`00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, `m${i}@large.test`, at, at);
      }
    })();
    const res = await ws.api.get(`${TEAM}?page_number=334&page_size=30`, { headers: accept });
    expect(res.body.pagination).toEqual({ total_records: 10_000, total_pages: 334, current_page: 334, page_size: 30 });
    expect(res.body.team_members).toHaveLength(10);
    const all = await ws.api.get(TEAM, { headers: accept });
    expect(all.body.team_members).toHaveLength(10_000);
  });
});
