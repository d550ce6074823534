import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outbox, signInFailures, teamMembers, webhookEndpoints } from '../src/db/schema/index.ts';
import { issuePasswordLink } from '../src/domain/accounts/links.ts';
import { CARD_SECRET_KEY, CARD_WEBHOOK_SECRET } from './helpers/card.ts';
import { startTestEnv, scopeOf, testClock, type TestEnv } from './helpers/env.ts';
import { makeMember } from './helpers/factories.ts';
import { BrowserSession, tokenOf } from './helpers/session.ts';

/**
 * What a stolen session must not do with the cookie alone (src/trpc/step-up.ts): whatever would
 * outlive the session or hand the account, the workspace's money or its events to someone else
 * takes the member's password as well. API keys are never asked.
 */

const PASSWORD = 'correct horse battery';
const clock = testClock('2026-11-18T10:00:00.000Z');
let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv({ clock });
});
afterAll(() => env.close());

/** A member of workspace alpha with a password, signed in in a fresh browser. */
async function signedIn(email: string) {
  const b = new BrowserSession(env.url, env.alpha.host);
  const token = tokenOf(issuePasswordLink(scopeOf(env.services, env.alpha.handle), { email }).link);
  expect((await b.mutate('auth.setPassword', { token, password: PASSWORD })).status).toBe(200);
  return b;
}

/** How a call from a session is answered: missing the password, with a wrong one, with the right one. */
async function answers(b: BrowserSession, path: string, input: Record<string, unknown>) {
  const missing = await b.mutate(path, input);
  const wrong = await b.mutate(path, { ...input, current_password: 'not the password' });
  const right = await b.mutate(path, { ...input, current_password: PASSWORD });
  return {
    missing: [missing.status, missing.error?.code, missing.error?.details?.[0]?.path],
    wrong: [wrong.status, wrong.error?.code],
    right: right.status,
    data: right.data,
  };
}

const ASKED = { missing: [422, 'validation_failed', 'current_password'], wrong: [422, 'invalid_credentials'], right: 200 };

describe('a session needs the password as well', () => {
  it("to change a member's e-mail address: a stolen cookie cannot move the Owner's account to the thief's mailbox", async () => {
    const owner = await signedIn(env.alpha.ownerEmail);
    const me = (await owner.query('auth.me')).data.member as { id: string };
    const missing = await owner.mutate('teamMembers.update', { team_member_id: me.id, email: 'mallory@attacker.example' });
    expect([missing.status, missing.error?.details?.[0]]).toEqual([422, { path: 'current_password', message: "is required to change a member's e-mail address or make them an Owner or Admin" }]);
    expect(env.alpha.handle.db.select({ email: teamMembers.email }).from(teamMembers).where(eq(teamMembers.id, me.id)).get()?.email).toBe(env.alpha.ownerEmail);

    const member = makeMember(env.alpha.handle.db, { email: 'erin@alpha.test' });
    expect(await answers(owner, 'teamMembers.update', { team_member_id: member.id, email: 'erin@elsewhere.test' })).toMatchObject(ASKED);
    // A name, a time zone or a change of case only: nothing more than the session.
    expect((await owner.mutate('teamMembers.update', { team_member_id: member.id, first_name: 'Erin', time_zone: 'Europe/Berlin', email: 'Erin@Elsewhere.test' })).status).toBe(200);
  });

  it('to make a member an Owner or Admin, by invitation or by a change of role; not to invite a Member', async () => {
    const owner = await signedIn(env.alpha.ownerEmail);
    expect(await answers(owner, 'accounts.invite', { email: 'new.admin@alpha.test', first_name: 'New', last_name: 'Admin', organization_role: 'Admin' })).toMatchObject(ASKED);
    expect(env.alpha.handle.db.select().from(teamMembers).where(eq(teamMembers.email, 'new.admin@alpha.test')).all()).toHaveLength(1);
    expect((await owner.mutate('accounts.invite', { email: 'new.member@alpha.test', first_name: 'New', last_name: 'Member' })).status).toBe(200);
    // The bulk door too: an Admin added without an invitation would be one `accounts.sendLink` away.
    const admins = (n: number) => ({ members: [{ email: `bulk${n}@alpha.test`, first_name: 'Bulk', last_name: 'Member' }, { email: `bulk.admin${n}@alpha.test`, first_name: 'Bulk', last_name: 'Admin', organization_role: 'Admin' }] });
    const missing = await owner.mutate('teamMembers.create', admins(1));
    expect([missing.status, missing.error?.details?.[0]?.path]).toEqual([422, 'current_password']);
    expect(env.alpha.handle.db.select().from(teamMembers).where(eq(teamMembers.email, 'bulk1@alpha.test')).all()).toHaveLength(0);
    expect((await owner.mutate('teamMembers.create', { ...admins(2), current_password: PASSWORD })).status).toBe(200);
    expect((await owner.mutate('teamMembers.create', { members: [{ email: 'bulk3@alpha.test', first_name: 'Bulk', last_name: 'Member' }] })).status).toBe(200);

    const member = makeMember(env.alpha.handle.db);
    expect(await answers(owner, 'teamMembers.update', { team_member_id: member.id, organization_role: 'Owner' })).toMatchObject(ASKED);
    // Back to Member, and an Owner's role given again unchanged: not asked.
    expect((await owner.mutate('teamMembers.update', { team_member_id: member.id, organization_role: 'Member' })).status).toBe(200);
    expect((await owner.mutate('teamMembers.update', { team_member_id: (await owner.query('auth.me')).data.member.id, organization_role: 'Owner' })).status).toBe(200);
  });

  it('to add a webhook endpoint, point one elsewhere or rotate its secret; not to turn one off', async () => {
    const owner = await signedIn(env.alpha.ownerEmail);
    const created = await answers(owner, 'webhooks.create', { url: 'https://hooks.example.com/a' });
    expect(created).toMatchObject(ASKED);
    const id = (created.data as { endpoint: { id: string } }).endpoint.id;
    expect(env.alpha.handle.db.select().from(webhookEndpoints).all().map((e) => e.url)).toEqual(['https://hooks.example.com/a']);
    expect(await answers(owner, 'webhooks.update', { endpoint_id: id, url: 'https://attacker.example/hook' })).toMatchObject(ASKED);
    expect(await answers(owner, 'webhooks.rotateSecret', { endpoint_id: id })).toMatchObject(ASKED);
    expect((await owner.mutate('webhooks.update', { endpoint_id: id, enabled: false, description: 'Paused', url: 'https://attacker.example/hook' })).status).toBe(200);
  });

  it("to set the card processor's keys", async () => {
    const owner = await signedIn(env.alpha.ownerEmail);
    expect(await answers(owner, 'workspace.updatePaymentProcessor', { secret_key: CARD_SECRET_KEY, webhook_secret: CARD_WEBHOOK_SECRET })).toMatchObject(ASKED);
  });

  it('wrong passwords count as failed sign-ins: the sixth try in the window is refused even with the right one', async () => {
    const admin = makeMember(env.alpha.handle.db, { organizationRole: 'Admin' });
    const b = await signedIn(admin.email);
    for (let i = 0; i < 5; i++) expect((await b.mutate('webhooks.create', { url: 'https://hooks.example.com/b', current_password: `guess ${i}` })).error?.code).toBe('invalid_credentials');
    expect(env.alpha.handle.db.select().from(signInFailures).where(eq(signInFailures.email, admin.email)).all()).toHaveLength(5);
    const blocked = await b.mutate('webhooks.create', { url: 'https://hooks.example.com/b', current_password: PASSWORD });
    expect([blocked.status, blocked.error?.code]).toEqual([429, 'sign_in_throttled']);
    clock.advance(15 * 60_000 + 1000);
  });
});

describe('who is not asked', () => {
  it('a Member hears 403 before any question of a password', async () => {
    const member = makeMember(env.alpha.handle.db);
    const b = await signedIn(member.email);
    for (const [path, input] of [
      ['accounts.invite', { email: 'x@alpha.test', first_name: 'X', last_name: 'Y', organization_role: 'Admin' }],
      ['teamMembers.update', { team_member_id: member.id, organization_role: 'Admin' }],
      ['webhooks.create', { url: 'https://hooks.example.com/c' }],
      ['workspace.updatePaymentProcessor', { secret_key: CARD_SECRET_KEY, webhook_secret: CARD_WEBHOOK_SECRET }],
    ] as const) {
      expect((await b.mutate(path, input)).status, path).toBe(403);
    }
  });

  it('the workspace API key, over REST and tRPC: a key is a credential of its own', async () => {
    const member = makeMember(env.alpha.handle.db);
    const rest = await env.alpha.api.patch(`/api/external/v1/team_members/${member.id}`, { email: 'moved@alpha.test', organization_role: 'Admin' }, { headers: { accept: 'application/json' } });
    expect(rest.status).toBe(200);
    const invited = await env.alpha.caller.accounts.invite({ email: 'keyed.owner@alpha.test', first_name: 'K', last_name: 'O', organization_role: 'Owner' });
    expect(invited.team_member.organization_role).toBe('Owner');
    expect(env.alpha.handle.db.select().from(outbox).where(eq(outbox.toAddress, 'keyed.owner@alpha.test')).all()).toHaveLength(1);
  });
});
