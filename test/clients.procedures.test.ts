import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClient, makeMember, makeRecipient } from './helpers/factories.ts';
import { startTestEnv, testClock, type TestEnv } from './helpers/env.ts';

let env: TestEnv;
const clock = testClock('2026-11-18T10:00:00.000Z');

beforeAll(async () => {
  env = await startTestEnv({ clock });
});
afterAll(() => env.close());

const ms = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, 0, i)).toISOString();

describe('clients.list', () => {
  let ws: ReturnType<TestEnv['workspace']>;
  const names = ['Acme Corp', 'acme labs', 'Globex', '100% Pure', 'Under_Score', 'Initech', 'ACME Archived'];
  beforeAll(() => {
    // A workspace of its own, so the counts are exact.
    ws = env.workspace('listing');
    names.forEach((name, i) =>
      makeClient(ws.handle.db, { name, createdAt: ms(i), updatedAt: ms(i), status: name.endsWith('Archived') ? 'archived' : 'active' }),
    );
  });

  const all = async (input: Parameters<typeof ws.caller.clients.list>[0]) => {
    const out: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await ws.caller.clients.list({ ...input, cursor });
      out.push(...page.items.map((c) => c.name));
      if (!page.next_cursor) return out;
      cursor = page.next_cursor;
    }
  };

  it('pages through every client in creation order without repeats', async () => {
    const first = await ws.caller.clients.list({ limit: 3 });
    expect(first.items.map((c) => c.name)).toEqual(names.slice(0, 3));
    expect(first.next_cursor).toEqual(expect.any(String));
    expect(await all({ limit: 2 })).toEqual(names);
    const last = await ws.caller.clients.list({ limit: 7 });
    expect(last.next_cursor).toBeNull();
  });

  it('returns full client records', async () => {
    const page = await ws.caller.clients.list({ limit: 1 });
    expect(Object.keys(page.items[0]!).sort()).toEqual(
      [
        'address',
        'created_at',
        'currency',
        'default_invoice_due_in_days',
        'id',
        'identifier',
        'include_hours_by_person_in_invoice',
        'internal_notes',
        'last_invoice_interval',
        'logo',
        'name',
        'organization_id',
        'secondary_name',
        'status',
        'tax_id',
        'updated_at',
      ].sort(),
    );
  });

  it('filters by status', async () => {
    expect(await all({ status: 'archived' })).toEqual(['ACME Archived']);
    expect(await all({ status: 'active', limit: 1 })).toEqual(names.filter((n) => !n.endsWith('Archived')));
  });

  it('searches names case-insensitively, with % and _ taken literally', async () => {
    expect(await all({ search: 'acme' })).toEqual(['Acme Corp', 'acme labs', 'ACME Archived']);
    expect(await all({ search: 'ACME', status: 'active', limit: 1 })).toEqual(['Acme Corp', 'acme labs']);
    expect(await all({ search: '%' })).toEqual(['100% Pure']);
    expect(await all({ search: '_' })).toEqual(['Under_Score']);
    expect(await all({ search: 'nothing like it' })).toEqual([]);
    expect(await all({ search: '  ' })).toEqual(names);
  });

  it('lists only clients changed after updated_since', async () => {
    expect(await all({ updated_since: ms(4) })).toEqual(names.slice(5));
    expect(await all({ updated_since: '2026-01-01T01:00:00+01:00' })).toEqual(names.slice(1));
  });

  it('rejects a bad cursor, limit, status or updated_since with 422', async () => {
    for (const input of [{ cursor: 'garbage' }, { limit: 0 }, { limit: 201 }, { status: 'deleted' }, { updated_since: 'yesterday' }]) {
      await expect(ws.caller.clients.list(input as never), JSON.stringify(input)).rejects.toMatchObject({
        code: 'UNPROCESSABLE_CONTENT',
        cause: { code: 'validation_failed' },
      });
    }
  });

  it("never lists another workspace's clients", async () => {
    const names = (await env.beta.caller.clients.list({})).items.map((c) => c.name);
    expect(names).not.toContain('Globex');
  });
});

describe('clients.get', () => {
  it('returns the client and its live recipients', async () => {
    const db = env.alpha.handle.db;
    const client = makeClient(db, { name: 'Got It' });
    const live = makeRecipient(db, client.id);
    makeRecipient(db, client.id, { deleted: true });
    const out = await env.alpha.caller.clients.get({ client_id: client.id });
    expect(out.client).toMatchObject({ id: client.id, name: 'Got It' });
    expect(out.recipients.map((r) => r.id)).toEqual([live.id]);
  });

  it('404 client_not_found for unknown, malformed and other-workspace ids', async () => {
    const beta = makeClient(env.beta.handle.db).id;
    for (const client_id of [beta, 'nope', '00000000-0000-4000-8000-000000000000', '']) {
      await expect(env.alpha.caller.clients.get({ client_id })).rejects.toMatchObject({ code: 'NOT_FOUND', cause: { code: 'client_not_found' } });
    }
  });
});

describe('clients.create', () => {
  it('an Owner creates a client with a unique identifier; get and list see it', async () => {
    const input = { email: env.alpha.ownerEmail, name: 'Wayne Enterprises', currency: 'usd', default_invoice_due_in_days: 15, full_address: '1007 Mountain Drive' };
    const { client } = await env.alpha.caller.clients.create(input);
    expect(client).toMatchObject({
      name: 'Wayne Enterprises',
      identifier: 'WAYNE',
      currency: 'USD',
      default_invoice_due_in_days: 15,
      address: '1007 Mountain Drive',
      status: 'active',
      logo: null,
      last_invoice_interval: null,
      created_at: clock().toISOString(),
    });
    const second = await env.alpha.caller.clients.create({ email: env.alpha.ownerEmail, name: 'Wayne Foundation' });
    expect(second.client.identifier).toBe('WAYNE2');
    expect(second.client.currency).toBe('USD');
    expect(second.client.default_invoice_due_in_days).toBe(30);
    expect((await env.alpha.caller.clients.get({ client_id: client.id })).client).toEqual(client);
  });

  it('an Admin may create clients; a Member gets 403 forbidden and nothing is created', async () => {
    const admin = makeMember(env.alpha.handle.db, { organizationRole: 'Admin' });
    await expect(env.alpha.caller.clients.create({ email: admin.email, name: 'By Admin' })).resolves.toMatchObject({ client: { name: 'By Admin' } });
    const member = makeMember(env.alpha.handle.db, { organizationRole: 'Member' });
    await expect(env.alpha.caller.clients.create({ email: member.email, name: 'By Member' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
      cause: { code: 'forbidden' },
    });
    const found = await env.alpha.caller.clients.list({ search: 'By Member' });
    expect(found.items).toEqual([]);
  });

  it('requires a known, active acting user', async () => {
    await expect(env.alpha.caller.clients.create({ email: 'ghost@alpha.test', name: 'X' })).rejects.toMatchObject({ cause: { code: 'user_not_found' } });
    const inactive = makeMember(env.alpha.handle.db, { organizationRole: 'Owner', active: false });
    await expect(env.alpha.caller.clients.create({ email: inactive.email, name: 'X' })).rejects.toMatchObject({ cause: { code: 'user_inactive' } });
  });

  it.each([
    ['an empty name', { name: ' ' }],
    ['an unknown currency', { name: 'X', currency: 'ABC' }],
    ['a negative due period', { name: 'X', default_invoice_due_in_days: -1 }],
    ['a fractional due period', { name: 'X', default_invoice_due_in_days: 1.5 }],
  ])('422 for %s', async (_what, fields) => {
    await expect(env.alpha.caller.clients.create({ email: env.alpha.ownerEmail, ...fields } as never)).rejects.toMatchObject({
      code: 'UNPROCESSABLE_CONTENT',
      cause: { code: 'validation_failed' },
    });
  });
});
