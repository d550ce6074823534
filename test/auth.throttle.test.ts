import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInFailures } from '../src/db/schema/index.ts';
import { issuePasswordLink } from '../src/domain/accounts/links.ts';
import { MAX_FAILURES_PER_ACCOUNT, MAX_FAILURES_PER_ADDRESS } from '../src/domain/accounts/throttle.ts';
import { startTestEnv, scopeOf, testClock, type TestEnv, type TestWorkspace } from './helpers/env.ts';
import { makeMember } from './helpers/factories.ts';
import { send } from './helpers/http.ts';
import { BrowserSession, tokenOf } from './helpers/session.ts';

// The sign-in throttle against guesses that arrive together (in parallel, or in one tRPC batch),
// and against a client naming its own address through an appending proxy.

const PASSWORD = 'correct horse battery';
const WINDOW = 15 * 60_000;

let env: TestEnv;
const clock = testClock('2026-11-18T10:00:00.000Z');

beforeAll(async () => {
  env = await startTestEnv({ clock });
});
afterAll(() => env.close());

const browser = (ws: TestWorkspace, baseUrl = env.url) => new BrowserSession(baseUrl, ws.host);

/** A new member of `ws` with PASSWORD, set through a one-time link. */
async function memberWithPassword(ws: TestWorkspace, baseUrl = env.url, services = env.services): Promise<string> {
  const m = makeMember(ws.handle.db);
  const token = tokenOf(issuePasswordLink(scopeOf(services, ws.handle), { email: m.email }).link);
  expect((await browser(ws, baseUrl).mutate('auth.setPassword', { token, password: PASSWORD })).status).toBe(200);
  return m.email;
}

const codesOf = (answers: { status: number; error: { code: string } | null }[]) => {
  const counts: Record<string, number> = {};
  for (const a of answers) {
    const key = `${a.status} ${a.error?.code ?? 'ok'}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
};

describe('guesses sent together', () => {
  it('parallel wrong passwords: only the limit is checked, the rest are 429, and the right one sent after them does not get in', async () => {
    clock.advance(WINDOW);
    const email = await memberWithPassword(env.alpha);
    const wrong = Array.from({ length: 20 }, (_, i) => browser(env.alpha).mutate('auth.signIn', { email, password: `wrong password ${i}` }));
    // Sent once the wrong ones are on their way, and long before their scrypt (tens of ms) ends.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const right = await browser(env.alpha).mutate('auth.signIn', { email, password: PASSWORD });
    const answers = await Promise.all(wrong);
    expect(codesOf(answers)).toEqual({ '401 invalid_credentials': MAX_FAILURES_PER_ACCOUNT, '429 sign_in_throttled': 20 - MAX_FAILURES_PER_ACCOUNT });
    expect(right.status).toBe(429);
    expect(right.error?.code).toBe('sign_in_throttled');
    expect(right.response.headers['set-cookie']).toBeUndefined();
  });

  it('a tRPC batch of guesses is throttled call by call; the right password at its end does not get in', async () => {
    clock.advance(WINDOW);
    const email = await memberWithPassword(env.alpha);
    const n = 12;
    const body: Record<number, unknown> = {};
    for (let i = 0; i < n; i++) body[i] = { email, password: i === n - 1 ? PASSWORD : `wrong password ${i}` };
    const res = await send(env.url, 'POST', `/trpc/${Array<string>(n).fill('auth.signIn').join(',')}?batch=1`, {
      host: env.alpha.host,
      body,
      headers: { 'x-hourbook-csrf': '1', origin: `http://${env.alpha.host}` },
    });
    const calls = res.body as { result?: unknown; error?: { data: { code: string } } }[];
    const codes = calls.map((c) => c.error?.data.code ?? 'ok');
    expect(codes.filter((c) => c === 'invalid_credentials')).toHaveLength(MAX_FAILURES_PER_ACCOUNT);
    expect(codes.filter((c) => c === 'sign_in_throttled')).toHaveLength(n - MAX_FAILURES_PER_ACCOUNT);
    expect(codes[n - 1]).toBe('sign_in_throttled');
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('refuses a batch of more than 20 calls before running any of them (422)', async () => {
    clock.advance(WINDOW);
    const before = env.alpha.handle.db.select().from(signInFailures).all().length;
    const n = 21;
    const body: Record<number, unknown> = {};
    for (let i = 0; i < n; i++) body[i] = { email: `batch${i}@alpha.test`, password: 'wrong password' };
    const res = await send(env.url, 'POST', `/trpc/${Array<string>(n).fill('auth.signIn').join(',')}?batch=1`, {
      host: env.alpha.host,
      body,
      headers: { 'x-hourbook-csrf': '1', origin: `http://${env.alpha.host}` },
    });
    // tRPC's BAD_REQUEST, in the product's vocabulary (src/trpc/errors.ts).
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body)).toContain('Batch call exceeds maximum size');
    expect(env.alpha.handle.db.select().from(signInFailures).all()).toHaveLength(before);
  });

  it('parallel wrong current passwords on auth.changePassword: only the limit is checked', async () => {
    clock.advance(WINDOW);
    const email = await memberWithPassword(env.beta);
    const b = browser(env.beta);
    expect((await b.mutate('auth.signIn', { email, password: PASSWORD })).status).toBe(200);
    const tries = Array.from({ length: 12 }, (_, i) => b.mutate('auth.changePassword', { current_password: `wrong password ${i}`, new_password: 'a new password 42' }));
    const answers = await Promise.all(tries);
    expect(codesOf(answers)).toEqual({ '422 invalid_credentials': MAX_FAILURES_PER_ACCOUNT, '429 sign_in_throttled': 12 - MAX_FAILURES_PER_ACCOUNT });
  });
});

describe('behind a trusted proxy that appends X-Forwarded-For', () => {
  it('counts failures against the address the proxy wrote (the last entry), whatever the client put before it', async () => {
    const proxied = await startTestEnv({ clock, env: { TRUST_PROXY: '1' } });
    try {
      // What nginx's $proxy_add_x_forwarded_for forwards: the client's own header, then the peer.
      const via = (i: number) => ({ headers: { 'x-forwarded-for': `10.9.${i}.1, 203.0.113.7` } });
      for (let i = 0; i < MAX_FAILURES_PER_ADDRESS; i++) {
        const res = await browser(proxied.alpha, proxied.url).mutate('auth.signIn', { email: `guess${i}@alpha.test`, password: 'wrong password' }, via(i));
        expect(res.status).toBe(401);
      }
      const blocked = await browser(proxied.alpha, proxied.url).mutate('auth.signIn', { email: 'another@alpha.test', password: 'wrong password' }, via(999));
      expect(blocked.status).toBe(429);
      expect(blocked.error?.code).toBe('sign_in_throttled');
      const addresses = new Set(proxied.alpha.handle.db.select().from(signInFailures).all().map((row) => row.address));
      expect([...addresses]).toEqual(['203.0.113.7']);
    } finally {
      await proxied.close();
    }
  });
});
