import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHourbookClient, isHourbookError, type HourbookClientError } from '../src/client.ts';
import { MAX_BATCH_CALLS } from '../src/trpc/limits.ts';
import { startTestEnv, type TestEnv } from './helpers/env.ts';
import { send } from './helpers/http.ts';

let env: TestEnv;
let port: string;

beforeAll(async () => {
  env = await startTestEnv();
  port = new URL(env.url).port;
});
afterAll(() => env.close());

/** Runs a call that must fail and hands back the typed error. */
async function failure(call: () => Promise<unknown>): Promise<HourbookClientError> {
  try {
    await call();
  } catch (err) {
    if (isHourbookError(err)) return err;
    throw err;
  }
  throw new Error('the call succeeded');
}

describe('createHourbookClient against a running server', () => {
  it('reaches the workspace by a *.localhost host (Node has no resolver for it), creates and lists', async () => {
    const hourbook = createHourbookClient({ baseUrl: `http://alpha.localhost:${port}`, apiKey: env.alpha.key });
    const created = await hourbook.clients.create.mutate({ email: env.alpha.ownerEmail, name: 'Typed Client GmbH', currency: 'EUR' });
    expect(created.client.name).toBe('Typed Client GmbH');
    expect(created.client.currency).toBe('EUR');

    const listed = await hourbook.clients.list.query({ search: 'typed client' });
    expect(listed.items.map((c) => c.id)).toEqual([created.client.id]);

    // Batched: two queries in one HTTP request, each with its own typed result.
    const [members, one] = await Promise.all([hourbook.teamMembers.list.query({}), hourbook.clients.get.query({ client_id: created.client.id })]);
    expect(members.items.map((m) => m.email)).toContain(env.alpha.ownerEmail);
    expect(one.client.id).toBe(created.client.id);
  });

  it(`splits more calls at once than a request may batch (${MAX_BATCH_CALLS}), which the server refuses in one`, async () => {
    const hourbook = createHourbookClient({ baseUrl: `http://alpha.localhost:${port}`, apiKey: env.alpha.key });
    const many = await Promise.all(Array.from({ length: MAX_BATCH_CALLS * 2 + 1 }, () => hourbook.teamMembers.list.query({})));
    expect(many.every((page) => page.items.some((m) => m.email === env.alpha.ownerEmail))).toBe(true);
    const calls = Array.from({ length: MAX_BATCH_CALLS + 1 }, () => 'teamMembers.list').join(',');
    const input = encodeURIComponent(JSON.stringify(Object.fromEntries(Array.from({ length: MAX_BATCH_CALLS + 1 }, (_, i) => [i, {}]))));
    const refused = await send(env.url, 'GET', `/trpc/${calls}?batch=1&input=${input}`, { host: env.alpha.host, key: env.alpha.key });
    expect(refused.status).toBe(422);
  });

  it('sends an explicit workspaceHost when the server is reached by address', async () => {
    const hourbook = createHourbookClient({ baseUrl: env.url, apiKey: env.beta.key, workspaceHost: `beta.localhost:${port}` });
    const members = await hourbook.teamMembers.list.query({});
    expect(members.items.map((m) => m.email)).toEqual([env.beta.ownerEmail]);
  });

  it('uses fetch for hosts Node resolves itself (here the bare base domain, which is no workspace)', async () => {
    const seen: string[] = [];
    const hourbook = createHourbookClient({
      baseUrl: `http://localhost:${port}`,
      apiKey: env.alpha.key,
      fetch: (input, init) => {
        seen.push(String(input));
        return fetch(input, init);
      },
    });
    const err = await failure(() => hourbook.teamMembers.list.query({}));
    expect(err.data?.code).toBe('workspace_not_found');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatch(new RegExp(`^http://localhost:${port}/trpc/teamMembers\\.list\\?`));
  });

  it("never opens a workspace with another workspace's key", async () => {
    const hourbook = createHourbookClient({ baseUrl: `http://alpha.localhost:${port}`, apiKey: env.beta.key });
    const err = await failure(() => hourbook.teamMembers.list.query({}));
    expect(err.data?.code).toBe('unauthorized');
    expect(err.data?.httpStatus).toBe(401);
    expect(err.message).toBe('Could not authenticate, invalid API Key');
  });
});

describe('errors over tRPC carry the REST code and details', () => {
  it('a validation failure: validation_failed with the offending fields', async () => {
    const hourbook = createHourbookClient({ baseUrl: `http://alpha.localhost:${port}`, apiKey: env.alpha.key });
    const err = await failure(() => hourbook.clients.create.mutate({ email: env.alpha.ownerEmail, name: '   ', currency: 'XXQ' }));
    expect(err.data?.code).toBe('validation_failed');
    expect(err.data?.httpStatus).toBe(422);
    expect(err.data?.details?.map((d) => d.path).sort()).toEqual(['currency', 'name']);
  });

  it('an unknown id: <resource>_not_found, as REST answers it', async () => {
    const hourbook = createHourbookClient({ baseUrl: `http://alpha.localhost:${port}`, apiKey: env.alpha.key });
    const err = await failure(() => hourbook.clients.get.query({ client_id: '00000000-0000-4000-8000-000000000000' }));
    expect(err.data?.code).toBe('client_not_found');
    expect(err.data?.httpStatus).toBe(404);
    expect(err.data?.details).toBeUndefined();

    const rest = await env.alpha.api.get('/api/external/v1/clients/00000000-0000-4000-8000-000000000000');
    expect(rest.body.code).toBe(err.data?.code);
    expect(rest.status).toBe(err.data?.httpStatus);
  });

  it('an unknown workspace: workspace_not_found', async () => {
    const hourbook = createHourbookClient({ baseUrl: `http://nowhere.localhost:${port}`, apiKey: env.alpha.key });
    const err = await failure(() => hourbook.teamMembers.list.query({}));
    expect(err.data?.code).toBe('workspace_not_found');
  });
});

describe('CORS for /trpc', () => {
  const preflight = (url: string, origin: string) =>
    send(url, 'OPTIONS', '/trpc/teamMembers.list', {
      host: `alpha.localhost:${new URL(url).port}`,
      headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key' },
    });

  it('is off by default: no Access-Control-Allow-Origin for any origin', async () => {
    const res = await preflight(env.url, 'http://app.example');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const get = await send(env.url, 'GET', '/trpc/teamMembers.list?input=%7B%7D', {
      host: env.alpha.host,
      key: env.alpha.key,
      headers: { origin: 'http://app.example' },
    });
    expect(get.status).toBe(200);
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('allows exactly the origins in CORS_ORIGINS', async () => {
    const corsEnv = await startTestEnv({ env: { CORS_ORIGINS: 'http://app.example, https://admin.example' } });
    try {
      const allowed = await preflight(corsEnv.url, 'http://app.example');
      expect(allowed.status).toBe(204);
      expect(allowed.headers['access-control-allow-origin']).toBe('http://app.example');
      expect(String(allowed.headers['access-control-allow-headers']).toLowerCase()).toContain('x-api-key');

      const other = await preflight(corsEnv.url, 'http://evil.example');
      expect(other.headers['access-control-allow-origin']).toBeUndefined();

      const get = await send(corsEnv.url, 'GET', '/trpc/teamMembers.list?input=%7B%7D', {
        host: corsEnv.alpha.host,
        key: corsEnv.alpha.key,
        headers: { origin: 'https://admin.example' },
      });
      expect(get.status).toBe(200);
      expect(get.headers['access-control-allow-origin']).toBe('https://admin.example');
    } finally {
      await corsEnv.close();
    }
  });
});
