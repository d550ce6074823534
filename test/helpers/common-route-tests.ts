import { expect, it } from 'vitest';
import type { HttpMethod } from '../../src/rest/types.ts';
import { send } from './http.ts';
import type { TestEnv } from './env.ts';

export interface CommonRouteCase {
  method: HttpMethod;
  /** A path that succeeds for `alpha` (ids of alpha's data), e.g. `/api/external/v1/clients/<id>`. */
  path: () => string;
  /** The same operation aimed at ids of `beta`'s data, sent with alpha's key: must be a 404. */
  otherWorkspacePath?: () => string;
  /** A valid body for `path` (for routes with a body). */
  body?: () => unknown;
  /** The spec's Accept requirement (endpoints 16-18). */
  accept?: string;
  /** The 404 code for ids of another workspace, e.g. `client_not_found`. */
  notFoundCode?: string;
}

const NO_KEY = { error: 'Could not authenticate, invalid API Key', code: 'unauthorized' };

/**
 * The cases every route must pass (docs/design.md §3-4): missing key, another workspace's key, unknown
 * workspace, ids of another workspace, and malformed bodies. Call inside a describe block.
 */
export function runCommonRouteTests(getEnv: () => TestEnv, c: CommonRouteCase): void {
  const headers = () => (c.accept ? { accept: c.accept } : undefined);
  const req = (opts: { host?: string; key?: string | null; body?: unknown; headers?: Record<string, string>; path?: string }) => {
    const env = getEnv();
    return send(env.url, c.method, opts.path ?? c.path(), {
      host: opts.host ?? env.alpha.host,
      key: opts.key === undefined ? env.alpha.key : opts.key,
      body: opts.body ?? c.body?.(),
      headers: { ...headers(), ...opts.headers },
    });
  };

  it('401 without an API key, with the exact body', async () => {
    const res = await req({ key: null });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(NO_KEY);
  });

  it('401 with an unknown API key', async () => {
    const res = await req({ key: 'hb_not-a-real-key' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(NO_KEY);
  });

  it("401 with another workspace's key", async () => {
    const res = await req({ key: getEnv().beta.key });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(NO_KEY);
  });

  it('404 workspace_not_found for an unknown workspace or a host outside the base domain', async () => {
    for (const host of ['nowhere.localhost', 'alpha.evil.com', 'a_b.localhost', 'localhost']) {
      const res = await req({ host });
      expect(res.status, host).toBe(404);
      expect(res.body.code, host).toBe('workspace_not_found');
    }
  });

  if (c.otherWorkspacePath) {
    it("404 for ids of another workspace, with alpha's key", async () => {
      const res = await req({ path: c.otherWorkspacePath!() });
      expect(res.status).toBe(404);
      if (c.notFoundCode) expect(res.body.code).toBe(c.notFoundCode);
    });
  }

  if (c.method !== 'GET' && c.method !== 'DELETE') {
    it('400 invalid_json for a body that does not parse', async () => {
      const res = await req({ body: '{"broken": ', headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_json');
    });

    it('415 for a body that is not JSON', async () => {
      const res = await req({ body: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(res.status).toBe(415);
      expect(res.body.code).toBe('unsupported_media_type');
    });

    it('413 for a body over 1 MiB', async () => {
      const res = await req({ body: JSON.stringify({ pad: 'x'.repeat(1024 * 1024 + 10) }), headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(413);
      expect(res.body.code).toBe('payload_too_large');
    });

    it.each(['[1, 2, 3]', '"text"', '42', 'null'])('422 validation_failed with details for the JSON body %s', async (raw) => {
      const res = await req({ body: raw, headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('validation_failed');
      expect(Array.isArray(res.body.details)).toBe(true);
    });
  }
}
