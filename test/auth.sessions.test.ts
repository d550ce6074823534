import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outbox, sessions, signInFailures, teamMembers } from '../src/db/schema/index.ts';
import { issuePasswordLink } from '../src/domain/accounts/links.ts';
import { outboxJob } from '../src/jobs/outbox.ts';
import { runJobOnce } from '../src/jobs/runner.ts';
import { startTestEnv, scopeOf, testClock, type TestEnv, type TestWorkspace } from './helpers/env.ts';
import { makeMember, makeProjectSetup, makeProjectUser } from './helpers/factories.ts';
import { send } from './helpers/http.ts';
import { BrowserSession, tokenOf } from './helpers/session.ts';

const PASSWORD = 'correct horse battery';
const DAY = 24 * 3_600_000;

let env: TestEnv;
const clock = testClock('2026-11-18T10:00:00.000Z');

beforeAll(async () => {
  env = await startTestEnv({ clock });
});
afterAll(() => env.close());

const browser = (ws: TestWorkspace) => new BrowserSession(env.url, ws.host);
const linkFor = (ws: TestWorkspace, email?: string) => tokenOf(issuePasswordLink(scopeOf(env.services, ws.handle), { email }).link);

/** A member of `ws` with a password, signed in in a fresh browser. */
async function signedIn(ws: TestWorkspace, email: string) {
  const b = browser(ws);
  const res = await b.mutate('auth.setPassword', { token: linkFor(ws, email), password: PASSWORD });
  expect(res.status).toBe(200);
  return b;
}

/** The link in the newest queued mail to `address`. */
function mailedToken(ws: TestWorkspace, address: string): string {
  const rows = ws.handle.db.select().from(outbox).where(eq(outbox.toAddress, address)).all();
  const last = rows[rows.length - 1];
  if (!last) throw new Error(`no mail to ${address}`);
  return tokenOf(last.text);
}

describe('setting a password from a one-time link', () => {
  it('signs the Owner in with a host-only HttpOnly SameSite=Lax cookie; only a hash is stored', async () => {
    const b = browser(env.alpha);
    const token = linkFor(env.alpha);
    const check = await b.query('auth.checkLink', { token });
    expect(check.data).toMatchObject({ purpose: 'set_password', email: env.alpha.ownerEmail });

    const res = await b.mutate('auth.setPassword', { token, password: PASSWORD });
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({ member: { email: env.alpha.ownerEmail, organization_role: 'Owner' }, is_admin: true });
    const cookie = b.lastSetCookie ?? '';
    expect(cookie).toMatch(/^hourbook_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).not.toMatch(/Domain=/i);
    expect(cookie).not.toMatch(/Secure/);
    expect(JSON.stringify(res.response.body)).not.toContain(b.cookie!.split('=')[1]);

    const stored = env.alpha.handle.db.select().from(sessions).all();
    expect(stored.map((s) => s.id)).not.toContain(b.cookie!.split('=')[1]);
    expect((await b.query('auth.me')).data.member.email).toBe(env.alpha.ownerEmail);
  });

  it('a link works once', async () => {
    const token = linkFor(env.alpha);
    expect((await browser(env.alpha).mutate('auth.setPassword', { token, password: PASSWORD })).status).toBe(200);
    const again = await browser(env.alpha).mutate('auth.setPassword', { token, password: 'another password 123' });
    expect(again.status).toBe(422);
    expect(again.error?.code).toBe('link_invalid');
    expect((await browser(env.alpha).query('auth.checkLink', { token })).error?.code).toBe('link_invalid');
  });

  it('refuses a short password next to the field', async () => {
    const res = await browser(env.alpha).mutate('auth.setPassword', { token: linkFor(env.alpha), password: 'short' });
    expect(res.status).toBe(422);
    expect(res.error?.details?.[0]?.path).toBe('password');
  });

  it('marks the cookie Secure (with the __Host- prefix) behind a trusted HTTPS proxy', async () => {
    const proxied = await startTestEnv({ env: { TRUST_PROXY: '1' } });
    try {
      const b = new BrowserSession(proxied.url, proxied.alpha.host);
      const token = tokenOf(issuePasswordLink(scopeOf(proxied.services, proxied.alpha.handle), {}).link);
      const res = await b.mutate('auth.setPassword', { token, password: PASSWORD }, { origin: `https://${proxied.alpha.host}`, headers: { 'x-forwarded-proto': 'https' } });
      expect(res.status).toBe(200);
      expect(b.lastSetCookie).toMatch(/^__Host-hourbook_session=.*; Secure/);
      // What the proxy wrote is the last entry: a client's own "https" before it counts for nothing.
      const plain = new BrowserSession(proxied.url, proxied.alpha.host);
      const again = tokenOf(issuePasswordLink(scopeOf(proxied.services, proxied.alpha.handle), {}).link);
      const overHttp = await plain.mutate('auth.setPassword', { token: again, password: PASSWORD }, { origin: `http://${proxied.alpha.host}`, headers: { 'x-forwarded-proto': 'https, http' } });
      expect(overHttp.status).toBe(200);
      expect(plain.lastSetCookie).toMatch(/^hourbook_session=/);
      expect(plain.lastSetCookie).not.toMatch(/Secure/);
    } finally {
      await proxied.close();
    }
  });
});

describe('invites', () => {
  it('an Owner invites a member: one mail with a link that sets the password and signs in', async () => {
    const owner = await signedIn(env.alpha, env.alpha.ownerEmail);
    const res = await owner.mutate('accounts.invite', { email: 'new.hire@alpha.test', first_name: 'New', last_name: 'Hire' });
    expect(res.status).toBe(200);
    expect(res.data.team_member).toMatchObject({ email: 'new.hire@alpha.test', organization_role: 'Member', active: true });
    const mail = env.alpha.handle.db.select().from(outbox).where(eq(outbox.toAddress, 'new.hire@alpha.test')).all();
    expect(mail).toHaveLength(1);
    expect(mail[0]!.kind).toBe('invite');
    expect(mail[0]!.text).toContain(`${env.config.publicUrl.replace('{subdomain}', 'alpha')}/set-password#token=`);
    const token = mailedToken(env.alpha, 'new.hire@alpha.test');
    const hire = browser(env.alpha);
    expect((await hire.query('auth.checkLink', { token })).data).toMatchObject({ purpose: 'invite', first_name: 'New' });
    expect((await hire.mutate('auth.setPassword', { token, password: PASSWORD })).data.member.email).toBe('new.hire@alpha.test');
    expect((await browser(env.alpha).mutate('auth.setPassword', { token, password: PASSWORD })).error?.code).toBe('link_invalid');
  });

  it('once the invite is delivered, the outbox keeps its text without the token; the link in the mailbox works', async () => {
    const owner = await signedIn(env.alpha, env.alpha.ownerEmail);
    await owner.mutate('accounts.invite', { email: 'kept@alpha.test', first_name: 'Kept', last_name: 'Out' });
    const [row] = env.alpha.handle.db.select().from(outbox).where(eq(outbox.toAddress, 'kept@alpha.test')).all();
    await runJobOnce(outboxJob, env.services);
    const delivered = await simpleParser(readFileSync(join(env.dataDir, 'mail', 'alpha', `${row!.id}.eml`)));
    const token = tokenOf(delivered.text ?? '');
    const kept = env.alpha.handle.db.select().from(outbox).where(eq(outbox.id, row!.id)).get()!;
    expect(kept.status).toBe('sent');
    expect(kept.text).not.toContain(token);
    expect(kept.text).toContain('/set-password#token=(removed once delivered)');
    expect((await browser(env.alpha).mutate('auth.setPassword', { token, password: PASSWORD })).status).toBe(200);
  });

  it('an invite link expires after 7 days; sending a new one withdraws the old', async () => {
    const owner = await signedIn(env.alpha, env.alpha.ownerEmail);
    const invited = await owner.mutate('accounts.invite', { email: 'late@alpha.test', first_name: 'Late', last_name: 'Comer' });
    const first = mailedToken(env.alpha, 'late@alpha.test');
    clock.advance(7 * DAY + 1000);
    try {
      expect((await browser(env.alpha).query('auth.checkLink', { token: first })).error?.code).toBe('link_invalid');
      const owner2 = await signedIn(env.alpha, env.alpha.ownerEmail);
      const resent = await owner2.mutate('accounts.sendLink', { team_member_id: invited.data.team_member.id });
      expect(resent.data).toMatchObject({ notice_code: 'link_sent', purpose: 'invite' });
      const second = mailedToken(env.alpha, 'late@alpha.test');
      expect(second).not.toBe(first);
      expect((await browser(env.alpha).query('auth.checkLink', { token: second })).status).toBe(200);
    } finally {
      clock.set('2026-11-18T10:00:00.000Z');
    }
  });

  it("correcting a member's e-mail withdraws the links mailed to the old address", async () => {
    const owner = await signedIn(env.alpha, env.alpha.ownerEmail);
    const invited = await owner.mutate('accounts.invite', { email: 'bob@wrong.test', first_name: 'Bob', last_name: 'Typo', organization_role: 'Admin', current_password: PASSWORD });
    const link = mailedToken(env.alpha, 'bob@wrong.test');
    const fixed = await owner.mutate('teamMembers.update', { team_member_id: invited.data.team_member.id, email: 'bob@right.test', current_password: PASSWORD });
    expect(fixed.data.team_member.email).toBe('bob@right.test');
    // Whoever reads bob@wrong.test cannot become Bob with it.
    expect((await browser(env.alpha).query('auth.checkLink', { token: link })).error?.code).toBe('link_invalid');
    expect((await browser(env.alpha).mutate('auth.setPassword', { token: link, password: PASSWORD })).error?.code).toBe('link_invalid');
    // A new invitation goes to the right address and works.
    await owner.mutate('accounts.sendLink', { team_member_id: invited.data.team_member.id });
    expect((await browser(env.alpha).mutate('auth.setPassword', { token: mailedToken(env.alpha, 'bob@right.test'), password: PASSWORD })).status).toBe(200);
    // The same for a reset link once a member with a password changes address; a change of case only keeps it.
    const carol = makeMember(env.alpha.handle.db, { email: 'carol@old.test' });
    await signedIn(env.alpha, carol.email);
    await browser(env.alpha).mutate('auth.requestReset', { email: carol.email });
    const reset = mailedToken(env.alpha, 'carol@old.test');
    await owner.mutate('teamMembers.update', { team_member_id: carol.id, email: 'Carol@old.test' });
    expect((await browser(env.alpha).query('auth.checkLink', { token: reset })).status).toBe(200);
    await owner.mutate('teamMembers.update', { team_member_id: carol.id, email: 'carol@new.test', current_password: PASSWORD });
    expect((await browser(env.alpha).query('auth.checkLink', { token: reset })).error?.code).toBe('link_invalid');
  });

  it('a Member cannot invite', async () => {
    const m = makeMember(env.alpha.handle.db);
    const b = await signedIn(env.alpha, m.email);
    const res = await b.mutate('accounts.invite', { email: 'x@alpha.test', first_name: 'X', last_name: 'Y' });
    expect(res.status).toBe(403);
  });
});

describe('signing in', () => {
  it('signs in with the right password; unknown e-mails and wrong passwords get the same answer', async () => {
    const m = makeMember(env.alpha.handle.db);
    await signedIn(env.alpha, m.email);
    const ok = await browser(env.alpha).mutate('auth.signIn', { email: m.email.toUpperCase(), password: PASSWORD });
    expect(ok.status).toBe(200);
    const wrong = await browser(env.alpha).mutate('auth.signIn', { email: m.email, password: 'not the password' });
    const unknown = await browser(env.alpha).mutate('auth.signIn', { email: 'nobody@alpha.test', password: 'not the password' });
    const noPassword = await browser(env.alpha).mutate('auth.signIn', { email: makeMember(env.alpha.handle.db).email, password: 'whatever123' });
    for (const res of [wrong, unknown, noPassword]) {
      expect(res.status).toBe(401);
      expect(res.error).toEqual({ code: 'invalid_credentials', message: 'The e-mail address or the password is not right' });
    }
  });

  it('throttles an account after 5 failures (429 with Retry-After), until the window has passed', async () => {
    const m = makeMember(env.alpha.handle.db);
    await signedIn(env.alpha, m.email);
    for (let i = 0; i < 5; i++) expect((await browser(env.alpha).mutate('auth.signIn', { email: m.email, password: `wrong ${i}` })).status).toBe(401);
    const blocked = await browser(env.alpha).mutate('auth.signIn', { email: m.email, password: PASSWORD });
    expect(blocked.status).toBe(429);
    expect(blocked.error?.code).toBe('sign_in_throttled');
    expect(Number(blocked.response.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(blocked.response.headers['retry-after'])).toBeLessThanOrEqual(15 * 60);
    clock.advance(15 * 60_000 + 1000);
    expect((await browser(env.alpha).mutate('auth.signIn', { email: m.email, password: PASSWORD })).status).toBe(200);
  });

  it('throttles a client address after 30 failures, whatever e-mails it tries', async () => {
    const fromOne = { headers: {} };
    const tries = Array.from({ length: 30 }, (_, i) => browser(env.beta).mutate('auth.signIn', { email: `guess${i}@beta.test`, password: 'x' }, fromOne));
    expect((await Promise.all(tries)).every((r) => r.status === 401)).toBe(true);
    const blocked = await browser(env.beta).mutate('auth.signIn', { email: 'someone.else@beta.test', password: 'x' });
    expect(blocked.status).toBe(429);
    expect(blocked.response.headers['retry-after']).toBeDefined();
    clock.advance(15 * 60_000 + 1000);
  });

  it("counts an IPv6 client's whole /64 as one address, and an IPv4-mapped address as its IPv4 one", async () => {
    const proxied = await startTestEnv({ env: { TRUST_PROXY: '1' } });
    try {
      const from = (address: string) => ({ headers: { 'x-forwarded-for': address } });
      const guess = (i: number, address: string) => new BrowserSession(proxied.url, proxied.beta.host).mutate('auth.signIn', { email: `guess${i}@beta.test`, password: 'x' }, from(address));
      // A fresh address of the same /64 for every guess: 30 failures all the same.
      const tries = await Promise.all(Array.from({ length: 30 }, (_, i) => guess(i, `2001:db8:1:2::${(i + 1).toString(16)}`)));
      expect(tries.every((r) => r.status === 401)).toBe(true);
      expect((await guess(31, '2001:db8:1:2:ffff:ffff:ffff:ffff')).status).toBe(429);
      // Another /64 is another client.
      expect((await guess(32, '2001:db8:1:3::1')).status).toBe(401);

      const mapped = await Promise.all(Array.from({ length: 30 }, (_, i) => guess(100 + i, i % 2 ? '::ffff:198.51.100.7' : '198.51.100.7')));
      expect(mapped.every((r) => r.status === 401)).toBe(true);
      expect((await guess(200, '198.51.100.7')).status).toBe(429);
    } finally {
      await proxied.close();
    }
  });

  it('refuses a deactivated member even with the right password', async () => {
    const m = makeMember(env.alpha.handle.db);
    await signedIn(env.alpha, m.email);
    env.alpha.handle.db.update(teamMembers).set({ active: false }).where(eq(teamMembers.id, m.id)).run();
    const res = await browser(env.alpha).mutate('auth.signIn', { email: m.email, password: PASSWORD });
    expect(res.status).toBe(403);
    expect(res.error?.code).toBe('user_inactive');
  });
});

describe('sessions', () => {
  it('end after 7 idle days, and 30 days after sign-in however active', async () => {
    const m = makeMember(env.alpha.handle.db);
    const idle = await signedIn(env.alpha, m.email);
    clock.advance(7 * DAY);
    const ended = await idle.query('auth.me');
    expect(ended.status).toBe(401);
    expect(ended.error?.code).toBe('session_expired');
    expect(idle.cookie).toBeNull();

    const busy = await signedIn(env.alpha, m.email);
    for (let day = 1; day < 30; day++) {
      clock.advance(DAY);
      expect((await busy.query('auth.me')).status).toBe(200);
    }
    clock.advance(DAY);
    expect((await busy.query('auth.me')).status).toBe(401);
  });

  it('sign-out ends this session; a replayed cookie finds nothing', async () => {
    const m = makeMember(env.alpha.handle.db);
    const b = await signedIn(env.alpha, m.email);
    const stolen = b.cookie;
    expect((await b.mutate('auth.signOut')).status).toBe(200);
    expect(b.cookie).toBeNull();
    const replay = new BrowserSession(env.url, env.alpha.host);
    replay.cookie = stolen;
    expect((await replay.query('auth.me')).status).toBe(401);
  });

  it('sign-out everywhere ends every session of the member', async () => {
    const m = makeMember(env.alpha.handle.db);
    const one = await signedIn(env.alpha, m.email);
    const two = browser(env.alpha);
    await two.mutate('auth.signIn', { email: m.email, password: PASSWORD });
    // A reset link asked for meanwhile (by whoever had the other session, say) stops working too.
    await browser(env.alpha).mutate('auth.requestReset', { email: m.email });
    const reset = mailedToken(env.alpha, m.email);
    expect((await one.mutate('auth.signOutEverywhere')).data).toEqual({ notice_code: 'signed_out_everywhere', sessions_ended: 2, keys_revoked: 0 });
    expect((await two.query('auth.me')).status).toBe(401);
    expect((await browser(env.alpha).query('auth.checkLink', { token: reset })).error?.code).toBe('link_invalid');
  });

  it('making an API key from a session takes the password; a personal key makes none', async () => {
    const s = makeProjectSetup(env.alpha.handle.db);
    const b = await signedIn(env.alpha, s.member.email);
    const bare = await b.mutate('apiKeys.create', { label: 'stolen cookie', personal: true });
    expect([bare.status, bare.error?.details?.[0]?.path]).toEqual([422, 'current_password']);
    const wrong = await b.mutate('apiKeys.create', { label: 'stolen cookie', personal: true, current_password: 'a guess' });
    expect([wrong.status, wrong.error?.code]).toEqual([422, 'invalid_credentials']);
    // A wrong password counts as a failed sign-in, as on the sign-in form.
    expect(env.alpha.handle.db.select().from(signInFailures).all().some((f) => f.email === s.member.email.toLowerCase())).toBe(true);
    const made = await b.mutate('apiKeys.create', { label: 'script', personal: true, current_password: PASSWORD });
    expect(made.status).toBe(200);
    const viaKey = await send(env.url, 'POST', '/trpc/apiKeys.create', { host: env.alpha.host, key: made.data.api_key, body: { label: 'another', personal: true } });
    expect([viaKey.status, viaKey.body.error.data.code]).toEqual([403, 'session_required']);
  });

  it("signing out everywhere and a password reset revoke the member's personal keys", async () => {
    const s = makeProjectSetup(env.alpha.handle.db);
    const b = await signedIn(env.alpha, s.member.email);
    const reaches = async (key: string) => (await send(env.url, 'GET', '/trpc/apiKeys.list', { host: env.alpha.host, key })).status;
    const first = (await b.mutate('apiKeys.create', { label: 'one', personal: true, current_password: PASSWORD })).data.api_key as string;
    expect(await reaches(first)).toBe(200);
    expect((await b.mutate('auth.signOutEverywhere')).data).toMatchObject({ sessions_ended: 1, keys_revoked: 1 });
    expect(await reaches(first)).toBe(401);

    const again = await signedIn(env.alpha, s.member.email);
    const second = (await again.mutate('apiKeys.create', { label: 'two', personal: true, current_password: PASSWORD })).data.api_key as string;
    expect(await reaches(second)).toBe(200);
    const reset = browser(env.alpha);
    expect((await reset.mutate('auth.setPassword', { token: linkFor(env.alpha, s.member.email), password: 'a brand new password' })).status).toBe(200);
    expect(await reaches(second)).toBe(401);
  });

  it('deactivating a member ends their sessions at once', async () => {
    const m = makeMember(env.alpha.handle.db);
    const member = await signedIn(env.alpha, m.email);
    const owner = await signedIn(env.alpha, env.alpha.ownerEmail);
    expect((await owner.mutate('teamMembers.update', { team_member_id: m.id, active: false })).status).toBe(200);
    expect(env.alpha.handle.db.select().from(sessions).where(eq(sessions.memberId, m.id)).all()).toHaveLength(0);
    expect((await member.query('auth.me')).status).toBe(401);
  });

  it('changing the password ends the other sessions and needs the current password', async () => {
    const m = makeMember(env.alpha.handle.db);
    const here = await signedIn(env.alpha, m.email);
    const elsewhere = browser(env.alpha);
    await elsewhere.mutate('auth.signIn', { email: m.email, password: PASSWORD });
    await browser(env.alpha).mutate('auth.requestReset', { email: m.email });
    const reset = mailedToken(env.alpha, m.email);
    const wrong = await here.mutate('auth.changePassword', { current_password: 'nope', new_password: 'a new password 42' });
    expect(wrong.status).toBe(422);
    expect(wrong.error?.details?.[0]?.path).toBe('current_password');
    expect((await here.mutate('auth.changePassword', { current_password: PASSWORD, new_password: 'a new password 42' })).status).toBe(200);
    expect((await here.query('auth.me')).status).toBe(200);
    expect((await elsewhere.query('auth.me')).status).toBe(401);
    expect((await browser(env.alpha).mutate('auth.signIn', { email: m.email, password: 'a new password 42' })).status).toBe(200);
    // The reset link from before the change would set the password again: it is withdrawn.
    expect((await browser(env.alpha).query('auth.checkLink', { token: reset })).error?.code).toBe('link_invalid');
  });

  it("a cookie of one workspace is worth nothing on another", async () => {
    const owner = await signedIn(env.alpha, env.alpha.ownerEmail);
    const replayed = owner.on(env.beta.host);
    const me = await replayed.query('auth.me');
    expect(me.status).toBe(401);
    const list = await replayed.query('teamMembers.list', {});
    expect(list.status).toBe(401);
  });
});

describe('CSRF', () => {
  it('refuses a change without the header, from another origin, or as a cross-site form', async () => {
    const owner = await signedIn(env.alpha, env.alpha.ownerEmail);
    const input = { email: 'csrf@alpha.test', first_name: 'C', last_name: 'S' };
    const noHeader = await owner.mutate('accounts.invite', input, { csrf: false });
    expect(noHeader.status).toBe(403);
    expect(noHeader.error?.code).toBe('csrf_rejected');
    expect((await owner.mutate('accounts.invite', input, { origin: 'http://evil.test' })).status).toBe(403);
    expect((await owner.mutate('accounts.invite', input, { origin: `http://${env.beta.host}` })).status).toBe(403);
    expect((await owner.mutate('accounts.invite', input, { origin: null })).status).toBe(403);
    const form = await send(env.url, 'POST', '/trpc/accounts.invite', {
      host: env.alpha.host,
      body: 'email=csrf%40alpha.test&first_name=C&last_name=S',
      headers: { cookie: owner.cookie!, origin: 'http://evil.test', 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(403);
    expect(env.alpha.handle.db.select().from(teamMembers).where(eq(teamMembers.email, 'csrf@alpha.test')).all()).toHaveLength(0);
    // The Referer stands in for a missing Origin.
    const viaReferer = await owner.mutate('accounts.invite', input, { origin: null, headers: { referer: `http://${env.alpha.host}/team` } });
    expect(viaReferer.status).toBe(200);
  });

  it('guards sign-in too (login CSRF), and leaves API-key calls alone', async () => {
    expect((await browser(env.alpha).mutate('auth.signIn', { email: env.alpha.ownerEmail, password: PASSWORD }, { csrf: false })).status).toBe(403);
    const withKey = await send(env.url, 'POST', '/trpc/clients.create', { host: env.alpha.host, key: env.alpha.key, body: { email: env.alpha.ownerEmail, name: 'Keyed' } });
    expect(withKey.status).toBe(200);
  });
});

describe('password reset', () => {
  it('answers the same for any e-mail, mails a 1-hour link to a real member, and the link ends old sessions', async () => {
    const m = makeMember(env.alpha.handle.db);
    const old = await signedIn(env.alpha, m.email);
    const known = await browser(env.alpha).mutate('auth.requestReset', { email: m.email });
    const unknown = await browser(env.alpha).mutate('auth.requestReset', { email: 'ghost@alpha.test' });
    expect(known.data).toEqual(unknown.data);
    expect(known.status).toBe(unknown.status);
    expect(env.alpha.handle.db.select().from(outbox).where(eq(outbox.toAddress, 'ghost@alpha.test')).all()).toHaveLength(0);
    const mail = env.alpha.handle.db.select().from(outbox).where(eq(outbox.toAddress, m.email)).all();
    expect(mail.at(-1)!.kind).toBe('password_reset');
    const token = mailedToken(env.alpha, m.email);
    const b = browser(env.alpha);
    expect((await b.mutate('auth.setPassword', { token, password: 'brand new secret' })).status).toBe(200);
    expect((await old.query('auth.me')).status).toBe(401);
    expect((await browser(env.alpha).mutate('auth.signIn', { email: m.email, password: 'brand new secret' })).status).toBe(200);
  });

  it('a reset link expires after an hour', async () => {
    const m = makeMember(env.alpha.handle.db);
    await browser(env.alpha).mutate('auth.requestReset', { email: m.email });
    const token = mailedToken(env.alpha, m.email);
    clock.advance(3_600_000);
    expect((await browser(env.alpha).mutate('auth.setPassword', { token, password: 'brand new secret' })).error?.code).toBe('link_invalid');
  });
});

describe('one authorization model', () => {
  it("a Member's session cannot call an Owner's procedure nor read what is not theirs", async () => {
    const m = makeMember(env.alpha.handle.db);
    const b = await signedIn(env.alpha, m.email);
    for (const [path, input] of [
      ['invoices.list', {}],
      ['clients.list', {}],
      ['invoices.nextNumber', {}],
      ['projects.list', {}],
    ] as const) {
      const res = await b.query(path, input);
      if (path === 'projects.list') expect(res.data.items, path).toEqual([]);
      else expect(res.status, path).toBe(403);
    }
    // A member lists only their own personal keys.
    expect((await b.query('apiKeys.list', {})).data.items).toEqual([]);
    expect((await b.mutate('teamMembers.update', { team_member_id: m.id, organization_role: 'Owner' })).status).toBe(403);
    expect((await b.mutate('clients.create', { name: 'Mine now' })).status).toBe(403);
    expect((await b.mutate('apiKeys.create', { label: 'sneaky' })).status).toBe(403);
  });

  it('a session acts as its member: naming someone else is refused', async () => {
    const s = makeProjectSetup(env.alpha.handle.db);
    const b = await signedIn(env.alpha, s.member.email);
    const res = await b.mutate('clients.create', { email: env.alpha.ownerEmail, name: 'As the owner' });
    expect(res.status).toBe(403);
    expect(res.error?.code).toBe('acting_user_mismatch');
  });

  it('time for someone else: only a manager of the project (or an Owner/Admin) may record it', async () => {
    const db = env.alpha.handle.db;
    const s = makeProjectSetup(db);
    const colleague = makeMember(db);
    makeProjectUser(db, s.project.id, colleague.id);
    const entry = { client_id: s.client.id, project_id: s.project.id, task_id: s.task.id, recorded_on: '2026-11-17', hours: '1:30' };

    const member = await signedIn(env.alpha, s.member.email);
    expect((await member.mutate('timeEntries.create', { ...entry })).data).toMatchObject({ user_email: s.member.email, hours: 1.5 });
    const forOther = await member.mutate('timeEntries.create', { ...entry, email: colleague.email });
    expect(forOther.status).toBe(403);

    const manager = makeMember(db);
    makeProjectUser(db, s.project.id, manager.id, { role: 'project_manager' });
    const pm = await signedIn(env.alpha, manager.email);
    expect((await pm.mutate('timeEntries.create', { ...entry, email: colleague.email })).data).toMatchObject({ user_email: colleague.email });
    // A member sees their own entries, a manager those of the project.
    expect((await member.query('timeEntries.list', {})).data.items.every((e: { user_id: string }) => e.user_id === s.member.id)).toBe(true);
    expect((await pm.query('timeEntries.list', { project_id: s.project.id })).data.items).toHaveLength(2);
  });

  it('a personal API key acts as its member through REST and cannot name another', async () => {
    const db = env.alpha.handle.db;
    const s = makeProjectSetup(db);
    const b = await signedIn(env.alpha, s.member.email);
    const created = await b.mutate('apiKeys.create', { label: 'my script', personal: true, current_password: PASSWORD });
    expect(created.data.key.member.email).toBe(s.member.email);
    const key = created.data.api_key as string;
    const entry = { client_id: s.client.id, project_id: s.project.id, task_id: s.task.id, recorded_on: '2026-11-17', hours: '1' };
    const own = await send(env.url, 'POST', '/api/external/v2/time-entries', { host: env.alpha.host, key, body: { ...entry, email: s.member.email } });
    expect(own.status).toBe(201);
    const asOwner = await send(env.url, 'POST', '/api/external/v2/time-entries', { host: env.alpha.host, key, body: { ...entry, email: env.alpha.ownerEmail } });
    expect(asOwner.status).toBe(403);
    const listed = await b.query('apiKeys.list', {});
    expect(listed.data.items.map((k: { id: string }) => k.id)).toEqual([created.data.key.id]);
    expect((await b.mutate('apiKeys.revoke', { key_id: created.data.key.id })).status).toBe(200);
    expect((await send(env.url, 'GET', '/api/external/v2/team-members', { host: env.alpha.host, key, headers: { accept: 'application/json' } })).status).toBe(401);
  });
});
