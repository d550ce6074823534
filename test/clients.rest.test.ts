import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { clients, workspace } from '../src/db/schema/index.ts';
import { makeClient, makeProject, makeRecipient } from './helpers/factories.ts';
import { startTestEnv, testClock, type TestEnv } from './helpers/env.ts';

let env: TestEnv;
const clock = testClock('2026-11-18T10:00:00.000Z');
const V1 = '/api/external/v1';

beforeAll(async () => {
  env = await startTestEnv({ clock });
});
afterAll(() => env.close());
/** Moves the clock one hour on and returns the new time (never backwards: rate limits follow it). */
const tick = () => {
  clock.advance(3_600_000);
  return clock().toISOString();
};

const clientRow = (id: string) => env.alpha.handle.db.select().from(clients).where(eq(clients.id, id)).get();
const workspaceId = () => env.alpha.handle.db.select({ id: workspace.id }).from(workspace).get()!.id;

describe('GET v1 /clients/{client_id} (endpoint 13)', () => {
  let clientId: string;
  beforeAll(() => {
    clientId = makeClient(env.alpha.handle.db, {
      name: 'Read Me Ltd',
      identifier: 'READ',
      secondaryName: 'RML',
      internalNotes: 'pays late',
      currency: 'EUR',
      defaultInvoiceDueInDays: 14,
      fullAddress: '1 Main St, Springfield',
      createdAt: '2026-01-01T00:00:00.000Z',
    }).id;
  });

  it('returns every field of the Client record, with the stored address', async () => {
    const res = await env.alpha.api.get(`${V1}/clients/${clientId}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['client', 'recipients']);
    expect(res.body.client).toEqual({
      id: clientId,
      organization_id: workspaceId(),
      name: 'Read Me Ltd',
      identifier: 'READ',
      internal_notes: 'pays late',
      currency: 'EUR',
      secondary_name: 'RML',
      last_invoice_interval: null,
      status: 'active',
      logo: null,
      default_invoice_due_in_days: 14,
      include_hours_by_person_in_invoice: false,
      address: '1 Main St, Springfield',
      tax_id: '',
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    });
    expect(res.body.recipients).toEqual([]);
  });

  it('lists only live recipients, in creation order, as Recipient records', async () => {
    const db = env.alpha.handle.db;
    const id = makeClient(db).id;
    const other = makeClient(db).id;
    const second = makeRecipient(db, id, { name: 'Second', email: 'second@x.test', creatorId: env.alpha.ownerId, createdAt: '2026-02-02T00:00:00.000Z' });
    const first = makeRecipient(db, id, { name: 'First', email: 'first@x.test', createdAt: '2026-02-01T00:00:00.000Z' });
    makeRecipient(db, id, { email: 'gone@x.test', deleted: true, createdAt: '2026-02-03T00:00:00.000Z' });
    makeRecipient(db, other, { email: 'elsewhere@x.test' });
    const res = await env.alpha.api.get(`${V1}/clients/${id}`);
    expect(res.status).toBe(200);
    expect(res.body.recipients).toEqual([
      { id: first.id, creator_id: null, client_id: id, name: 'First', email: 'first@x.test', deleted: false, created_at: first.createdAt, updated_at: first.updatedAt },
      {
        id: second.id,
        creator_id: env.alpha.ownerId,
        client_id: id,
        name: 'Second',
        email: 'second@x.test',
        deleted: false,
        created_at: second.createdAt,
        updated_at: second.updatedAt,
      },
    ]);
  });

  it.each(['00000000-0000-4000-8000-000000000000', 'not-a-uuid', "x' OR '1'='1", '%25'])('404 client_not_found for id %s', async (id) => {
    const res = await env.alpha.api.get(`${V1}/clients/${encodeURIComponent(id)}`);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('client_not_found');
  });
});

describe('PUT v1 /clients/{client_id} (endpoint 14)', () => {
  let clientId: string;
  const path = () => `${V1}/clients/${clientId}`;
  beforeEach(() => {
    clientId = makeClient(env.alpha.handle.db, {
      name: 'Before',
      secondaryName: 'B',
      internalNotes: 'notes',
      currency: 'USD',
      defaultInvoiceDueInDays: 30,
      fullAddress: 'Old address',
      createdAt: '2026-01-01T00:00:00.000Z',
    }).id;
  });

  it('updates every field and answers {notice_code, client_id}', async () => {
    const now = tick();
    const res = await env.alpha.api.put(path(), {
      client: {
        name: '  After GmbH ',
        secondary_name: 'AG',
        internal_notes: 'new notes',
        currency: 'eur',
        default_invoice_due_in_days: '45',
        status: 'archived',
        tax_id: ' DE123456789 ',
        address_attributes: { full_address: 'Neue Straße 1, Berlin' },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ notice_code: 'client_updated', client_id: clientId });
    const read = await env.alpha.api.get(path());
    expect(read.body.client).toMatchObject({
      name: 'After GmbH',
      secondary_name: 'AG',
      internal_notes: 'new notes',
      currency: 'EUR',
      default_invoice_due_in_days: 45,
      status: 'archived',
      address: 'Neue Straße 1, Berlin',
      tax_id: 'DE123456789',
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: now,
    });
  });

  it('keeps the currency once the client has a project: 422 currency_locked', async () => {
    const client = makeClient(env.alpha.handle.db, { currency: 'USD' });
    const free = await env.alpha.api.put(`${V1}/clients/${client.id}`, { client: { currency: 'EUR' } });
    expect(free.status).toBe(200);
    makeProject(env.alpha.handle.db, client.id, { currency: 'EUR' });
    const locked = await env.alpha.api.put(`${V1}/clients/${client.id}`, { client: { currency: 'JPY' } });
    expect(locked.status).toBe(422);
    expect(locked.body.code).toBe('currency_locked');
    expect(locked.body.details).toEqual([{ path: 'client.currency', message: expect.any(String) }]);
    // the same currency again is no change
    const same = await env.alpha.api.put(`${V1}/clients/${client.id}`, { client: { currency: 'eur', name: 'Still EUR' } });
    expect(same.status).toBe(200);
  });

  it('changes only the fields given', async () => {
    const before = clientRow(clientId)!;
    const res = await env.alpha.api.put(path(), { client: { internal_notes: 'only this' } });
    expect(res.status).toBe(200);
    const after = clientRow(clientId)!;
    expect(after).toEqual({ ...before, internalNotes: 'only this', updatedAt: clock().toISOString() });
  });

  it('keeps the identifier when the name changes', async () => {
    const before = clientRow(clientId)!;
    await env.alpha.api.put(path(), { client: { name: 'Totally Different' } });
    expect(clientRow(clientId)!.identifier).toBe(before.identifier);
  });

  it('clears optional text with null or an empty string', async () => {
    const res = await env.alpha.api.put(path(), { client: { secondary_name: null, internal_notes: '', address_attributes: { full_address: null } } });
    expect(res.status).toBe(200);
    expect(clientRow(clientId)).toMatchObject({ secondaryName: '', internalNotes: '', fullAddress: '' });
  });

  it('ignores unknown keys (a read record can be sent back) and changes nothing for an empty client', async () => {
    const before = clientRow(clientId)!;
    tick();
    const read = await env.alpha.api.get(path());
    const roundTrip = await env.alpha.api.put(path(), { client: { ...read.body.client, identifier: 'HACKED', id: 'x', default_invoice_due_in_days: '30' } });
    expect(roundTrip.status).toBe(200);
    expect(clientRow(clientId)!.identifier).toBe(before.identifier);
    const afterRoundTrip = clientRow(clientId)!;
    tick();
    const empty = await env.alpha.api.put(path(), { client: {} });
    expect(empty.status).toBe(200);
    expect(clientRow(clientId)).toEqual(afterRoundTrip);
  });

  it('leaves updated_at alone when no known field is given', async () => {
    const before = clientRow(clientId)!;
    tick();
    const res = await env.alpha.api.put(path(), { client: { unknown_field: 1 } });
    expect(res.status).toBe(200);
    expect(clientRow(clientId)).toEqual(before);
  });

  it.each([
    ['a JSON number', 30],
    ['letters', '3x'],
    ['a decimal', '1.5'],
    ['a negative number', '-1'],
    ['an empty string', ''],
    ['more than ten years', '3651'],
    ['digits with spaces around', ' 7 '],
    ['digits with a tab and a newline', '\t8\n'],
    ['null', null],
  ])('422 when default_invoice_due_in_days is %s', async (_what, value) => {
    const res = await env.alpha.api.put(path(), { client: { default_invoice_due_in_days: value } });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.details[0].path).toBe('client.default_invoice_due_in_days');
    expect(clientRow(clientId)!.defaultInvoiceDueInDays).toBe(30);
  });

  it('accepts "0" (due on receipt) and leading zeros', async () => {
    expect((await env.alpha.api.put(path(), { client: { default_invoice_due_in_days: '0' } })).status).toBe(200);
    expect(clientRow(clientId)!.defaultInvoiceDueInDays).toBe(0);
    expect((await env.alpha.api.put(path(), { client: { default_invoice_due_in_days: '007' } })).status).toBe(200);
    expect(clientRow(clientId)!.defaultInvoiceDueInDays).toBe(7);
  });

  it.each([
    ['an empty name', { name: '' }, 'client.name'],
    ['a blank name', { name: '   ' }, 'client.name'],
    ['a name that is not a string', { name: 5 }, 'client.name'],
    ['an unknown currency', { currency: 'XYZ' }, 'client.currency'],
    ['a currency that is not a code', { currency: 'dollars' }, 'client.currency'],
    ['an unknown status', { status: 'deleted' }, 'client.status'],
    ['a status in the wrong case', { status: 'Active' }, 'client.status'],
    ['address_attributes that is not an object', { address_attributes: 'Main St' }, 'client.address_attributes'],
    ['a full_address that is not a string', { address_attributes: { full_address: 12 } }, 'client.address_attributes.full_address'],
  ])('422 for %s, and nothing changes', async (_what, client, detailPath) => {
    const before = clientRow(clientId)!;
    const res = await env.alpha.api.put(path(), { client: { internal_notes: 'would change', ...client } });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(detailPath);
    expect(clientRow(clientId)).toEqual(before);
  });

  it.each([
    ['no client object', { name: 'x' }],
    ['a client that is not an object', { client: 'x' }],
    ['a client that is an array', { client: [] }],
  ])('422 for %s', async (_what, body) => {
    const res = await env.alpha.api.put(path(), body);
    expect(res.status).toBe(422);
    expect(res.body.details[0].path).toBe('client');
  });

  it('404 client_not_found for unknown and malformed ids', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'nope']) {
      const res = await env.alpha.api.put(`${V1}/clients/${id}`, { client: { name: 'x' } });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('client_not_found');
    }
  });
});

describe('POST v1 /clients/update_status (endpoint 15)', () => {
  const path = `${V1}/clients/update_status`;
  let ids: string[];
  let betaClientId: string;
  beforeEach(() => {
    const db = env.alpha.handle.db;
    ids = [makeClient(db).id, makeClient(db).id, makeClient(db, { status: 'archived', updatedAt: '2026-01-01T00:00:00.000Z' }).id];
    betaClientId = makeClient(env.beta.handle.db).id;
  });

  it("404 naming the other workspace's id, with alpha's key", async () => {
    const res = await env.alpha.api.post(path, { client_ids: [betaClientId], status: 'archived' });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'client_not_found', missing_ids: [betaClientId] });
  });

  it('204 with no body and no Content-Type, and every listed client moves', async () => {
    const now = tick();
    const res = await env.alpha.api.post(path, { client_ids: ids, status: 'archived' });
    expect(res.status).toBe(204);
    expect(res.raw.length).toBe(0);
    expect(res.headers['content-type']).toBeUndefined();
    expect(res.headers['content-length'] ?? '0').toBe('0');
    expect(ids.map((id) => clientRow(id)!.status)).toEqual(['archived', 'archived', 'archived']);
    // the client that was archived already keeps its updated_at
    expect(ids.map((id) => clientRow(id)!.updatedAt)).toEqual([now, now, '2026-01-01T00:00:00.000Z']);
  });

  it('reactivates, and the read shows the new status', async () => {
    const res = await env.alpha.api.post(path, { client_ids: [ids[2]], status: 'active' });
    expect(res.status).toBe(204);
    const read = await env.alpha.api.get(`${V1}/clients/${ids[2]}`);
    expect(read.body.client.status).toBe('active');
  });

  it('accepts a repeated id', async () => {
    const res = await env.alpha.api.post(path, { client_ids: [ids[0], ids[0]], status: 'archived' });
    expect(res.status).toBe(204);
    expect(clientRow(ids[0]!)!.status).toBe('archived');
  });

  it('404 naming every missing id, and nothing changes', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    const res = await env.alpha.api.post(path, { client_ids: [ids[0], unknown, 'garbage', betaClientId, ids[1]], status: 'archived' });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('client_not_found');
    expect(res.body.missing_ids).toEqual([unknown, 'garbage', betaClientId]);
    expect(res.body.error).toContain(unknown);
    expect(clientRow(ids[0]!)!.status).toBe('active');
    expect(clientRow(ids[1]!)!.status).toBe('active');
  });

  it.each([
    ['an empty client_ids', { client_ids: [], status: 'archived' }, 'client_ids'],
    ['no client_ids', { status: 'archived' }, 'client_ids'],
    ['client_ids that is not an array', { client_ids: 'abc', status: 'archived' }, 'client_ids'],
    ['an id that is not a string', { client_ids: [42], status: 'archived' }, 'client_ids.0'],
    ['no status', { client_ids: ['x'] }, 'status'],
    ['an unknown status', { client_ids: ['x'], status: 'deleted' }, 'status'],
    ['more than 1000 ids', { client_ids: Array.from({ length: 1001 }, (_, i) => String(i)), status: 'archived' }, 'client_ids'],
  ])('422 for %s', async (_what, body, detailPath) => {
    const res = await env.alpha.api.post(path, body);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(detailPath);
  });

  it('is not captured by /clients/{client_id}: other methods on the literal path reach the client routes', async () => {
    // The literal path only serves POST; GET and PUT there are the client routes with id "update_status".
    const get = await env.alpha.api.get(path);
    expect(get.status).toBe(404);
    expect(get.body.code).toBe('client_not_found');
    const put = await env.alpha.api.put(path, { client: { name: 'x' } });
    expect(put.status).toBe(404);
    expect(put.body.code).toBe('client_not_found');
    // and a client whose id happens to be "update_status" (ids are UUIDs, so only a hand-made row)
    // does not steal the bulk POST
    makeClient(env.alpha.handle.db, { id: 'update_status' });
    const post = await env.alpha.api.post(path, { client_ids: [ids[0]], status: 'archived' });
    expect(post.status).toBe(204);
    expect(clientRow(ids[0]!)!.status).toBe('archived');
    expect(clientRow('update_status')!.status).toBe('active');
  });
});
