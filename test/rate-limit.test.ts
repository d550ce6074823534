import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimiter } from '../src/workspaces/rate-limit.ts';
import { startTestEnv, type TestEnv } from './helpers/env.ts';

describe('RateLimiter', () => {
  it('allows a burst of perMinute, then refills at perMinute/60 a second', () => {
    const limiter = new RateLimiter(60);
    for (let i = 0; i < 60; i++) limiter.take('k', 0);
    expect(() => limiter.take('k', 0)).toThrow(expect.objectContaining({ code: 'rate_limited', extra: { retry_after: 1 } }));
    limiter.take('k', 1000); // one token back after a second
    expect(() => limiter.take('k', 1000)).toThrow();
    limiter.take('other', 0); // buckets are per key
  });

  it('is off at 0', () => {
    const limiter = new RateLimiter(0);
    for (let i = 0; i < 10_000; i++) limiter.take('k', 0);
  });
});

describe('429 over HTTP', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await startTestEnv({ env: { RATE_LIMIT_PER_MINUTE: '3' } });
  });
  afterAll(() => env.close());

  it('answers 429 rate_limited with Retry-After once a key has used its burst', async () => {
    const get = () => env.alpha.api.get('/api/external/v2/team-members', { headers: { accept: 'application/json' } });
    for (let i = 0; i < 3; i++) expect((await get()).status).toBe(200);
    const limited = await get();
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // another workspace's key has its own bucket
    expect((await env.beta.api.get('/api/external/v2/team-members', { headers: { accept: 'application/json' } })).status).toBe(200);
  });
});
