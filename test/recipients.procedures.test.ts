import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clients, recipients } from '../src/db/schema/index.ts';
import { seedRecipients } from '../src/demo/recipients.ts';
import { seedTeamAndClients } from '../src/demo/team-and-clients.ts';
import { makeClient, makeMember, makeRecipient } from './helpers/factories.ts';
import { asOwner } from '../src/demo/owner.ts';
import { scopeOf, startTestEnv, testClock, type TestEnv } from './helpers/env.ts';

let env: TestEnv;
const clock = testClock('2026-11-18T10:00:00.000Z');

beforeAll(async () => {
  env = await startTestEnv({ clock });
});
afterAll(() => env.close());

const ms = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, 0, i)).toISOString();

describe('recipients.list', () => {
  let clientId: string;
  let ids: string[];
  beforeAll(() => {
    const db = env.alpha.handle.db;
    clientId = makeClient(db).id;
    ids = [0, 1, 2, 3, 4].map((i) => makeRecipient(db, clientId, { createdAt: ms(i), updatedAt: ms(i), deleted: i === 2 }).id);
    makeRecipient(db, makeClient(db).id, { createdAt: ms(9) });
  });

  const all = async (input: Omit<Parameters<typeof env.alpha.caller.recipients.list>[0], 'client_id'>) => {
    const out: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await env.alpha.caller.recipients.list({ client_id: clientId, ...input, cursor });
      out.push(...page.items.map((r) => r.id));
      if (!page.next_cursor) return out;
      cursor = page.next_cursor;
    }
  };

  it("pages through the client's live recipients in creation order", async () => {
    const live = [ids[0], ids[1], ids[3], ids[4]];
    expect(await all({ limit: 1 })).toEqual(live);
    expect(await all({})).toEqual(live);
    const page = await env.alpha.caller.recipients.list({ client_id: clientId, limit: 2 });
    expect(page.items).toHaveLength(2);
    expect(page.items[0]).toMatchObject({ id: ids[0], client_id: clientId, deleted: false });
  });

  it('with include_deleted and updated_since, a synchronising client learns about deletions', async () => {
    expect(await all({ include_deleted: true, limit: 2 })).toEqual(ids);
    expect(await all({ include_deleted: true, updated_since: ms(1) })).toEqual(ids.slice(2));
    expect(await all({ updated_since: ms(1) })).toEqual(ids.slice(3));
  });

  it('404 client_not_found for unknown, malformed and other-workspace clients', async () => {
    const beta = makeClient(env.beta.handle.db).id;
    for (const client_id of [beta, 'nope']) {
      await expect(env.alpha.caller.recipients.list({ client_id })).rejects.toMatchObject({ code: 'NOT_FOUND', cause: { code: 'client_not_found' } });
    }
  });

  it('422 for a cursor it did not issue', async () => {
    await expect(env.alpha.caller.recipients.list({ client_id: clientId, cursor: 'xyz' })).rejects.toMatchObject({ cause: { code: 'validation_failed' } });
  });
});

describe('recipient writes through tRPC', () => {
  it('create returns the record beside the notice; update and delete too', async () => {
    const clientId = makeClient(env.alpha.handle.db).id;
    const created = await env.alpha.caller.recipients.create({ email: env.alpha.ownerEmail, client_id: clientId, recipient: { name: 'T', email: 't@EXAMPLE.org' } });
    expect(created).toEqual({
      notice_code: 'recipient_created',
      recipient: {
        id: expect.any(String),
        creator_id: env.alpha.ownerId,
        client_id: clientId,
        name: 'T',
        email: 't@example.org',
        deleted: false,
        created_at: clock().toISOString(),
        updated_at: clock().toISOString(),
      },
    });
    const ref = { client_id: clientId, recipient_id: created.recipient.id };
    clock.advance(60_000);
    const updated = await env.alpha.caller.recipients.update({ ...ref, recipient: { name: 'T2' } });
    expect(updated.recipient).toMatchObject({ name: 'T2', email: 't@example.org', updated_at: clock().toISOString() });
    const deleted = await env.alpha.caller.recipients.delete(ref);
    expect(deleted).toMatchObject({ notice_code: 'recipient_deleted', recipient: { deleted: true } });
    await expect(env.alpha.caller.recipients.delete(ref)).rejects.toMatchObject({ code: 'NOT_FOUND', cause: { code: 'recipient_not_found' } });
  });

  it('a Member may not create recipients', async () => {
    const clientId = makeClient(env.alpha.handle.db).id;
    const member = makeMember(env.alpha.handle.db);
    await expect(
      env.alpha.caller.recipients.create({ email: member.email, client_id: clientId, recipient: { name: 'T', email: 't@x.test' } }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN', cause: { code: 'forbidden' } });
  });
});

describe('demo recipients', () => {
  it('adds one or two recipients per demo client, by the Owner, once', () => {
    const ws = env.workspace('demo');
    const db = ws.handle.db;
    const now = clock();
    seedTeamAndClients(scopeOf(env.services, ws.handle, now));
    seedRecipients(asOwner(scopeOf(env.services, ws.handle, now))!);
    const all = db.select().from(recipients).all();
    const perClient = db.select({ id: clients.id }).from(clients).all().map((c) => all.filter((r) => r.clientId === c.id).length);
    expect(perClient.length).toBeGreaterThan(0);
    for (const n of perClient) expect([1, 2]).toContain(n);
    expect(new Set(all.map((r) => r.creatorId))).toEqual(new Set([ws.ownerId]));

    seedRecipients(asOwner(scopeOf(env.services, ws.handle, now))!);
    expect(db.select({ n: count() }).from(recipients).get()!.n).toBe(all.length);
  });

  it('does nothing when the workspace already has recipients', () => {
    const ws = env.workspace('demo2');
    const db = ws.handle.db;
    const client = makeClient(db);
    makeRecipient(db, client.id);
    makeClient(db);
    seedRecipients(asOwner(scopeOf(env.services, ws.handle, clock()))!);
    expect(db.select({ n: count() }).from(recipients).get()!.n).toBe(1);
  });

  it('gives a client without a prepared list a billing address', () => {
    const ws = env.workspace('demo3');
    const client = makeClient(ws.handle.db, { name: 'Someone Else', identifier: 'SOME' });
    seedRecipients(asOwner(scopeOf(env.services, ws.handle, clock()))!);
    const rows = ws.handle.db.select().from(recipients).where(eq(recipients.clientId, client.id)).all();
    expect(rows.map((r) => r.email)).toEqual(['billing@some.example']);
  });
});
