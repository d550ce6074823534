import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { recipients } from '../src/db/schema/index.ts';
import { makeClient, makeMember, makeRecipient } from './helpers/factories.ts';
import { startTestEnv, testClock, type TestEnv } from './helpers/env.ts';

let env: TestEnv;
const clock = testClock('2026-11-18T10:00:00.000Z');
const V1 = '/api/external/v1';
const V2 = '/api/external/v2';

beforeAll(async () => {
  env = await startTestEnv({ clock });
});
afterAll(() => env.close());
/** Moves the clock one hour on and returns the new time (never backwards: rate limits follow it). */
const tick = () => {
  clock.advance(3_600_000);
  return clock().toISOString();
};

const rowsOf = (clientId: string) =>
  env.alpha.handle.db.select().from(recipients).where(eq(recipients.clientId, clientId)).all();
const rowById = (id: string) => env.alpha.handle.db.select().from(recipients).where(eq(recipients.id, id)).get();

describe('POST v2 /clients/{client_id}/recipients (endpoint 7)', () => {
  let clientId: string;
  const path = (id = clientId) => `${V2}/clients/${id}/recipients`;
  const body = (recipient: unknown, email: unknown = env.alpha.ownerEmail) => ({ recipient, email });
  beforeEach(() => {
    clientId = makeClient(env.alpha.handle.db).id;
  });

  it('201 {notice_code} and stores a normalised e-mail with the acting user as creator', async () => {
    const now = tick();
    const res = await env.alpha.api.post(path(), body({ name: '  Jane Payer ', email: '  Jane.Payer@Example.COM ' }));
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ notice_code: 'recipient_created' });
    const [row] = rowsOf(clientId);
    expect(row).toMatchObject({
      clientId,
      creatorId: env.alpha.ownerId,
      name: 'Jane Payer',
      email: 'Jane.Payer@example.com',
      deleted: false,
      createdAt: now,
      updatedAt: now,
    });
    const read = await env.alpha.api.get(`${V1}/clients/${clientId}`);
    expect(read.body.recipients).toEqual([
      {
        id: row!.id,
        creator_id: env.alpha.ownerId,
        client_id: clientId,
        name: 'Jane Payer',
        email: 'Jane.Payer@example.com',
        deleted: false,
        created_at: now,
        updated_at: now,
      },
    ]);
  });

  it('an Admin may add recipients; the creator is that Admin', async () => {
    const admin = makeMember(env.alpha.handle.db, { organizationRole: 'Admin' });
    const res = await env.alpha.api.post(path(), body({ name: 'A', email: 'a@x.test' }, admin.email.toUpperCase()));
    expect(res.status).toBe(201);
    expect(rowsOf(clientId)[0]!.creatorId).toBe(admin.id);
  });

  it('403 forbidden for a Member, and nothing is stored', async () => {
    const member = makeMember(env.alpha.handle.db, { organizationRole: 'Member' });
    const res = await env.alpha.api.post(path(), body({ name: 'A', email: 'a@x.test' }, member.email));
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('forbidden');
    expect(rowsOf(clientId)).toEqual([]);
  });

  it('422 user_not_found for an unknown acting user, 403 user_inactive for an inactive one', async () => {
    const unknown = await env.alpha.api.post(path(), body({ name: 'A', email: 'a@x.test' }, 'nobody@alpha.test'));
    expect(unknown.status).toBe(422);
    expect(unknown.body.code).toBe('user_not_found');
    const inactive = makeMember(env.alpha.handle.db, { organizationRole: 'Admin', active: false });
    const res = await env.alpha.api.post(path(), body({ name: 'A', email: 'a@x.test' }, inactive.email));
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('user_inactive');
    expect(rowsOf(clientId)).toEqual([]);
  });

  it('422 when the acting user email is missing or not an e-mail', async () => {
    for (const email of [undefined, 'not-an-email', 5]) {
      const res = await env.alpha.api.post(path(), { recipient: { name: 'A', email: 'a@x.test' }, ...(email === undefined ? {} : { email }) });
      expect(res.status).toBe(422);
      expect(res.body.details.map((d: { path: string }) => d.path)).toContain('email');
    }
  });

  it('409 recipient_exists for the same address on the same client, ignoring case', async () => {
    expect((await env.alpha.api.post(path(), body({ name: 'A', email: 'pay@x.test' }))).status).toBe(201);
    const again = await env.alpha.api.post(path(), body({ name: 'B', email: ' PAY@X.TEST ' }));
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('recipient_exists');
    expect(rowsOf(clientId)).toHaveLength(1);
  });

  it('the same address may be a recipient of two clients, and again after it was deleted', async () => {
    const other = makeClient(env.alpha.handle.db).id;
    expect((await env.alpha.api.post(path(), body({ name: 'A', email: 'shared@x.test' }))).status).toBe(201);
    expect((await env.alpha.api.post(path(other), body({ name: 'A', email: 'shared@x.test' }))).status).toBe(201);
    const [row] = rowsOf(clientId);
    expect((await env.alpha.api.delete(`${V1}/clients/${clientId}/recipients/${row!.id}`)).status).toBe(200);
    expect((await env.alpha.api.post(path(), body({ name: 'A again', email: 'shared@x.test' }))).status).toBe(201);
    expect(rowsOf(clientId).map((r) => r.deleted).sort()).toEqual([false, true]);
  });

  it.each([
    ['no recipient', undefined, 'recipient'],
    ['a recipient that is not an object', 'jane@x.test', 'recipient'],
    ['no name', { email: 'a@x.test' }, 'recipient.name'],
    ['an empty name', { name: ' ', email: 'a@x.test' }, 'recipient.name'],
    ['no e-mail', { name: 'A' }, 'recipient.email'],
    ['an invalid e-mail', { name: 'A', email: 'not an email' }, 'recipient.email'],
    ['an e-mail without a domain', { name: 'A', email: 'a@' }, 'recipient.email'],
    ['an e-mail that is not a string', { name: 'A', email: 7 }, 'recipient.email'],
    ['a name over 200 characters', { name: 'x'.repeat(201), email: 'a@x.test' }, 'recipient.name'],
    ['a name with a line break inside', { name: 'Nul Byte\r\nBcc: evil@x.test', email: 'a@x.test' }, 'recipient.name'],
    ['a name with a NUL', { name: 'Nul\u0000Byte', email: 'a@x.test' }, 'recipient.name'],
  ])('422 for %s', async (_what, recipient, detailPath) => {
    const res = await env.alpha.api.post(path(), recipient === undefined ? { email: env.alpha.ownerEmail } : body(recipient));
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(detailPath);
    expect(rowsOf(clientId)).toEqual([]);
  });

  it('404 client_not_found for unknown and malformed client ids', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'nope']) {
      const res = await env.alpha.api.post(path(id), body({ name: 'A', email: 'a@x.test' }));
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('client_not_found');
    }
  });
});

describe('PUT v1 /clients/{client_id}/recipients/{recipient_id} (endpoint 8)', () => {
  let clientId: string;
  let recipientId: string;
  const path = (c = clientId, r = recipientId) => `${V1}/clients/${c}/recipients/${r}`;
  beforeEach(() => {
    clientId = makeClient(env.alpha.handle.db).id;
    recipientId = makeRecipient(env.alpha.handle.db, clientId, { name: 'Old Name', email: 'old@x.test', createdAt: '2026-01-01T00:00:00.000Z' }).id;
  });

  it('200 {notice_code}; changes the given fields and normalises the e-mail', async () => {
    const now = tick();
    const res = await env.alpha.api.put(path(), { recipient: { name: 'New Name', email: 'New@X.Test' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ notice_code: 'recipient_updated' });
    expect(rowById(recipientId)).toMatchObject({ name: 'New Name', email: 'New@x.test', createdAt: '2026-01-01T00:00:00.000Z', updatedAt: now });
  });

  it('a partial update keeps the other field', async () => {
    expect((await env.alpha.api.put(path(), { recipient: { name: 'Only Name' } })).status).toBe(200);
    expect(rowById(recipientId)).toMatchObject({ name: 'Only Name', email: 'old@x.test' });
    expect((await env.alpha.api.put(path(), { recipient: { email: 'only@x.test' } })).status).toBe(200);
    expect(rowById(recipientId)).toMatchObject({ name: 'Only Name', email: 'only@x.test' });
  });

  it('an empty recipient object changes nothing', async () => {
    const before = rowById(recipientId);
    const res = await env.alpha.api.put(path(), { recipient: {} });
    expect(res.status).toBe(200);
    expect(rowById(recipientId)).toEqual(before);
  });

  it('409 recipient_exists when the new address belongs to another live recipient of the client', async () => {
    makeRecipient(env.alpha.handle.db, clientId, { email: 'taken@x.test' });
    const res = await env.alpha.api.put(path(), { recipient: { email: 'TAKEN@x.test' } });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('recipient_exists');
    expect(rowById(recipientId)!.email).toBe('old@x.test');
  });

  it('may change only the case of its own address, and take the address of a deleted recipient', async () => {
    makeRecipient(env.alpha.handle.db, clientId, { email: 'former@x.test', deleted: true });
    expect((await env.alpha.api.put(path(), { recipient: { email: 'OLD@x.test' } })).status).toBe(200);
    expect(rowById(recipientId)!.email).toBe('OLD@x.test');
    expect((await env.alpha.api.put(path(), { recipient: { email: 'former@x.test' } })).status).toBe(200);
  });

  it.each([
    ['no recipient', {}, 'recipient'],
    ['a recipient that is not an object', { recipient: 'x' }, 'recipient'],
    ['an empty name', { recipient: { name: '' } }, 'recipient.name'],
    ['an invalid e-mail', { recipient: { email: 'nope' } }, 'recipient.email'],
  ])('422 for %s', async (_what, reqBody, detailPath) => {
    const res = await env.alpha.api.put(path(), reqBody);
    expect(res.status).toBe(422);
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(detailPath);
  });

  it('404 recipient_not_found for a recipient of another client, a deleted one, or unknown ids', async () => {
    const otherClient = makeClient(env.alpha.handle.db).id;
    const deleted = makeRecipient(env.alpha.handle.db, clientId, { deleted: true }).id;
    for (const p of [path(otherClient, recipientId), path(clientId, deleted), path(clientId, 'nope'), path(clientId, '00000000-0000-4000-8000-000000000000')]) {
      const res = await env.alpha.api.put(p, { recipient: { name: 'x' } });
      expect(res.status, p).toBe(404);
      expect(res.body.code, p).toBe('recipient_not_found');
    }
    expect(rowById(recipientId)!.name).toBe('Old Name');
  });

  it('404 client_not_found for an unknown client', async () => {
    const res = await env.alpha.api.put(path('nope'), { recipient: { name: 'x' } });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('client_not_found');
  });
});

describe('DELETE v1 /clients/{client_id}/recipients/{recipient_id} (endpoint 9)', () => {
  let clientId: string;
  let recipientId: string;
  const path = (c = clientId, r = recipientId) => `${V1}/clients/${c}/recipients/${r}`;
  beforeEach(() => {
    clientId = makeClient(env.alpha.handle.db).id;
    recipientId = makeRecipient(env.alpha.handle.db, clientId, {
      name: 'Doomed',
      email: 'doomed@x.test',
      creatorId: env.alpha.ownerId,
      createdAt: '2026-01-01T00:00:00.000Z',
    }).id;
  });

  it('200 with the deleted recipient record; the client read no longer lists it', async () => {
    const now = tick();
    const res = await env.alpha.api.delete(path());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      notice_code: 'recipient_deleted',
      recipient: {
        id: recipientId,
        client_id: clientId,
        creator_id: env.alpha.ownerId,
        name: 'Doomed',
        email: 'doomed@x.test',
        deleted: true,
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: now,
      },
    });
    expect(rowById(recipientId)!.deleted).toBe(true);
    const read = await env.alpha.api.get(`${V1}/clients/${clientId}`);
    expect(read.body.recipients).toEqual([]);
  });

  it('404 recipient_not_found when deleted twice', async () => {
    expect((await env.alpha.api.delete(path())).status).toBe(200);
    const again = await env.alpha.api.delete(path());
    expect(again.status).toBe(404);
    expect(again.body.code).toBe('recipient_not_found');
  });

  it('404 recipient_not_found for a recipient of another client, which stays live', async () => {
    const otherClient = makeClient(env.alpha.handle.db).id;
    const res = await env.alpha.api.delete(path(otherClient, recipientId));
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('recipient_not_found');
    expect(rowById(recipientId)!.deleted).toBe(false);
  });

  it('404 for unknown and malformed ids', async () => {
    for (const [p, code] of [
      [path(clientId, 'nope'), 'recipient_not_found'],
      [path('nope', recipientId), 'client_not_found'],
    ] as const) {
      const res = await env.alpha.api.delete(p);
      expect(res.status, p).toBe(404);
      expect(res.body.code, p).toBe(code);
    }
  });
});
