import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { clients, teamMembers } from '../src/db/schema/index.ts';
import { buildOpenApiDocument, type OpenApiOperation } from '../src/openapi/document.ts';
import { restRoutes } from '../src/rest/routes/index.ts';
import { createApiKey } from '../src/workspaces/keys.ts';
import { startTestEnv, testClock, type TestEnv } from './helpers/env.ts';
import { makeClient, makeMember, makeProjectSetup, makeTimeEntry } from './helpers/factories.ts';
import { send, type RequestOptions } from './helpers/http.ts';

/**
 * The findings of the REST contract review (docs, OpenAPI, idempotency, error precedence), each
 * through the real door: HTTP to a real server, every exchange checked against the OpenAPI document
 * by `send()` (an undocumented status fails the request).
 */

let env: TestEnv;
const V1 = '/api/external/v1';
const V2 = '/api/external/v2';
const JSON_ACCEPT = { headers: { accept: 'application/json' } };

beforeAll(async () => {
  env = await startTestEnv({ clock: testClock('2026-11-18T10:00:00.000Z') });
});
afterAll(() => env.close());

/** A request to alpha with the given key (`null`: none). */
const call = (method: string, path: string, key: string | null, opts: RequestOptions = {}) =>
  send(env.url, method, path, { host: env.alpha.host, key, ...opts });

const personalKey = (memberId: string) => createApiKey(env.alpha.handle.db, { memberId, now: new Date() }).apiKey;

describe('403 is documented on every operation (personal API keys)', () => {
  it("answers a Member's personal key 403 forbidden where the role rules refuse, as documented", async () => {
    const s = makeProjectSetup(env.alpha.handle.db, { member: { organizationRole: 'Member' } });
    const key = personalKey(s.member.id);
    const cases: [string, string, RequestOptions][] = [
      ['GET', `${V1}/clients/${s.client.id}`, {}],
      ['PUT', `${V1}/clients/${s.client.id}`, { body: { client: { name: 'Renamed' } } }],
      ['POST', `${V1}/clients/update_status`, { body: { client_ids: [s.client.id], status: 'archived' } }],
      ['POST', `${V1}/clients`, { body: { client: { name: 'Mine' } } }],
      ['GET', `${V1}/projects/${s.project.id}/project_users`, {}],
      ['PATCH', `${V1}/team_members/${s.member.id}`, { body: { first_name: 'Me' }, ...JSON_ACCEPT }],
    ];
    for (const [method, path, opts] of cases) {
      // send() throws when the document does not list the status.
      const res = await call(method, path, key, opts);
      expect([res.status, res.body.code], `${method} ${path}`).toEqual([403, 'forbidden']);
    }
  });

  it("answers a deactivated member's personal key 403 user_inactive on every operation, as documented", async () => {
    const m = makeMember(env.alpha.handle.db, { organizationRole: 'Admin' });
    const key = personalKey(m.id);
    env.alpha.handle.db.update(teamMembers).set({ active: false }).where(eq(teamMembers.id, m.id)).run();
    for (const route of restRoutes) {
      const path = `/api/external/${route.version}${route.path.replace(/\{\w+\}/g, () => randomUUID())}`;
      const opts: RequestOptions = {
        ...(route.requireJsonAccept ? JSON_ACCEPT : {}),
        ...(['POST', 'PUT', 'PATCH'].includes(route.method) ? { body: {} } : {}),
      };
      const res = await call(route.method, path, key, opts);
      expect([res.status, res.body.code], `${route.method} ${route.path} (${route.operationId})`).toEqual([403, 'user_inactive']);
    }
  });

  it('lists 403 in the document for every operation', () => {
    const doc = buildOpenApiDocument(restRoutes, loadConfig({}));
    for (const item of Object.values(doc.paths)) {
      for (const op of Object.values(item) as OpenApiOperation[]) expect(op.responses['403'], op.operationId).toEqual({ $ref: '#/components/responses/Forbidden' });
    }
    expect(doc.components.responses.Forbidden?.description).toMatch(/personal API key/);
  });
});

describe('POST v1 /clients keeps client.tax_id', () => {
  it('stores the tax id given, answers it on the read, and leaves it empty when none is given', async () => {
    const res = await env.alpha.api.post(`${V1}/clients`, { client: { name: 'Taxed GmbH', tax_id: ' DE123456789 ' } });
    expect(res.status).toBe(200);
    expect(env.alpha.handle.db.select().from(clients).where(eq(clients.id, res.body.client_id)).get()?.taxId).toBe('DE123456789');
    const read = await env.alpha.api.get(`${V1}/clients/${res.body.client_id}`);
    expect(read.body.client.tax_id).toBe('DE123456789');
    const none = await env.alpha.api.post(`${V1}/clients`, { client: { name: 'Untaxed Ltd', tax_id: null } });
    expect((await env.alpha.api.get(`${V1}/clients/${none.body.client_id}`)).body.client.tax_id).toBe('');
  });
});

describe('Idempotency-Key and the Accept rule of endpoints 16-18', () => {
  const path = (id: string) => `${V1}/team_members/${id}`;

  it('never replays a stored answer to a request without Accept: application/json', async () => {
    const m = makeMember(env.alpha.handle.db);
    const key = { 'idempotency-key': `accept-${randomUUID()}` };
    const first = await env.alpha.api.patch(path(m.id), { first_name: 'A' }, { headers: { ...key, accept: 'application/json' } });
    expect(first.status).toBe(200);
    const noAccept = await env.alpha.api.patch(path(m.id), { first_name: 'A' }, { headers: key });
    expect([noAccept.status, noAccept.body.code]).toEqual([406, 'not_acceptable']);
    expect(noAccept.headers['idempotent-replayed']).toBeUndefined();
    // The key still holds the first answer.
    const again = await env.alpha.api.patch(path(m.id), { first_name: 'A' }, { headers: { ...key, accept: 'application/json' } });
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
  });

  it('keeps no 406 for the key: the corrected retry with the same key runs', async () => {
    const m = makeMember(env.alpha.handle.db, { firstName: 'Before' });
    const key = { 'idempotency-key': `accept-${randomUUID()}` };
    const refused = await env.alpha.api.patch(path(m.id), { first_name: 'After' }, { headers: key });
    expect(refused.status).toBe(406);
    expect(env.alpha.handle.db.select().from(teamMembers).where(eq(teamMembers.id, m.id)).get()?.firstName).toBe('Before');
    const retry = await env.alpha.api.patch(path(m.id), { first_name: 'After' }, { headers: { ...key, accept: 'application/json' } });
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(retry.body.team_member.first_name).toBe('After');
    const replay = await env.alpha.api.patch(path(m.id), { first_name: 'After' }, { headers: { ...key, accept: 'application/json' } });
    expect([replay.status, replay.headers['idempotent-replayed']]).toEqual([200, 'true']);
  });

  it('still answers 401 before 406 to a caller without a key', async () => {
    const res = await call('PATCH', path(randomUUID()), null, { body: { first_name: 'A' }, headers: { 'idempotency-key': 'k' } });
    expect([res.status, res.body.code]).toEqual([401, 'unauthorized']);
  });
});

describe('time lines of an invoice: ids as every request names them', () => {
  const post = (clientId: string, body: unknown) => env.alpha.api.post(`${V2}/clients/${clientId}/invoices`, body);
  const invoice = (line: Record<string, unknown>, number: string) => ({ email: env.alpha.ownerEmail, number, total: 100, invoice_time_entries: [line] });

  it('404 time_entry_not_found for a malformed time_entry_id, as for an unknown one', async () => {
    const s = makeProjectSetup(env.alpha.handle.db);
    const line = { project_id: s.project.id, task_id: s.task.id, user_id: s.member.id };
    for (const id of ['te-42', randomUUID(), '']) {
      const res = await post(s.client.id, invoice({ ...line, time_entry_id: id }, `IDS-${randomUUID().slice(0, 8)}`));
      expect([res.status, res.body.code], id).toEqual([404, 'time_entry_not_found']);
    }
  });

  it("422 on the field for a malformed task_id or user_id: it does not match the entry's", async () => {
    const s = makeProjectSetup(env.alpha.handle.db);
    const e = makeTimeEntry(env.alpha.handle.db, { clientId: s.client.id, projectId: s.project.id, taskId: s.task.id, userId: s.member.id });
    const line = { time_entry_id: e.id, project_id: s.project.id, task_id: s.task.id, user_id: s.member.id };
    const cases: [Record<string, unknown>, string, string][] = [
      [{ ...line, task_id: 'nope' }, 'invoice_time_entries.0.task_id', "does not match the time entry's task"],
      [{ ...line, user_id: 'nope' }, 'invoice_time_entries.0.user_id', "does not match the time entry's user"],
    ];
    for (const [body, path, message] of cases) {
      const res = await post(s.client.id, invoice(body, `IDS-${randomUUID().slice(0, 8)}`));
      expect([res.status, res.body.code], path).toEqual([422, 'validation_failed']);
      expect(res.body.details).toEqual([{ path, message }]);
    }
    // The same line with the ids in upper case is the entry's own.
    const upper = await post(s.client.id, invoice({ ...line, time_entry_id: e.id.toUpperCase(), task_id: s.task.id.toUpperCase(), user_id: s.member.id.toUpperCase() }, 'IDS-UPPER'));
    expect(upper.status).toBe(201);
  });

  it('still refuses an id that is not a string (422 validation_failed)', async () => {
    const s = makeProjectSetup(env.alpha.handle.db);
    const res = await post(s.client.id, invoice({ time_entry_id: 42, project_id: s.project.id, task_id: s.task.id, user_id: s.member.id }, 'IDS-NUM'));
    expect([res.status, res.body.code]).toEqual([422, 'validation_failed']);
    expect(res.body.details[0].path).toBe('invoice_time_entries.0.time_entry_id');
  });

  it('documents the line ids as strings, without format uuid', () => {
    const doc = buildOpenApiDocument(restRoutes, loadConfig({}));
    const op = doc.paths['/v2/clients/{client_id}/invoices']?.post as OpenApiOperation;
    const body = op.requestBody?.content['application/json'].schema as { properties: Record<string, { items: { properties: Record<string, unknown> } }> };
    const line = body.properties.invoice_time_entries!.items.properties;
    for (const name of ['time_entry_id', 'task_id', 'user_id']) expect(line[name], name).toEqual({ type: 'string' });
  });
});

describe('the route is matched before the key is claimed and the body read', () => {
  it('404 route_not_found for no such operation, whatever its body', async () => {
    const cases: [string, RequestOptions][] = [
      ['text/plain', { body: 'hello', headers: { 'content-type': 'text/plain' } }],
      ['bad JSON', { body: '{bad', headers: { 'content-type': 'application/json' } }],
      ['too large', { body: Buffer.alloc(1024 * 1024 + 10, 'a'), headers: { 'content-type': 'application/json' } }],
    ];
    for (const [what, opts] of cases) {
      const res = await call('POST', `${V1}/nothing`, env.alpha.key, opts);
      expect([res.status, res.body.code], what).toEqual([404, 'route_not_found']);
    }
  });

  it('404 route_not_found for no such operation with or without an Idempotency-Key, key or no key', async () => {
    for (const key of [null, env.alpha.key]) {
      for (const headers of [{}, { 'idempotency-key': `route-${randomUUID()}` }] as Record<string, string>[]) {
        const res = await call('POST', `${V1}/nothing`, key, { body: {}, headers });
        expect([res.status, res.body.code], JSON.stringify({ key: key !== null, headers })).toEqual([404, 'route_not_found']);
      }
    }
  });

  it('405 method_not_allowed with Allow for a method the path does not have, whatever its body or key', async () => {
    const cases: [string, string | null, RequestOptions][] = [
      ['bad JSON', env.alpha.key, { body: '{bad', headers: { 'content-type': 'application/json' } }],
      ['text/plain', env.alpha.key, { body: 'x', headers: { 'content-type': 'text/plain' } }],
      ['no API key, an Idempotency-Key', null, { body: {}, headers: { 'idempotency-key': 'z' } }],
    ];
    for (const [what, key, opts] of cases) {
      const res = await call('PUT', `${V2}/team-members`, key, opts);
      expect([res.status, res.body.code], what).toEqual([405, 'method_not_allowed']);
      expect(res.headers.allow).toBe('GET, HEAD');
    }
  });
});

describe('page_number and page_size in the OpenAPI document', () => {
  it('are integers with the bounds the API applies, page_size described (no `default`: without page_number it is every member)', () => {
    const doc = buildOpenApiDocument(restRoutes, loadConfig({}));
    for (const path of ['/v2/team-members', '/v1/team_members']) {
      const params = Object.fromEntries((doc.paths[path]?.get as OpenApiOperation).parameters.map((p) => [p.name, p]));
      expect(params.page_number?.schema).toEqual({ type: 'integer', minimum: 1 });
      expect(params.page_size?.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
      expect(params.page_size?.schema).not.toHaveProperty('default');
      expect(params.page_size?.description).toMatch(/when page_number is given \(30 if left out\)/);
      expect(params.email?.schema).toEqual({ type: 'string' });
    }
  });

  it('describe what the API does: 30 by default, 1-100, from 1', async () => {
    const ok = await env.alpha.api.get(`${V2}/team-members?page_number=1`, JSON_ACCEPT);
    expect(ok.body.pagination.page_size).toBe(30);
    for (const query of ['page_number=1&page_size=101', 'page_number=1&page_size=0', 'page_number=0', 'page_number=1.5']) {
      const res = await env.alpha.api.get(`${V2}/team-members?${query}`, JSON_ACCEPT);
      expect([res.status, res.body.code], query).toEqual([422, 'validation_failed']);
    }
    expect((await env.alpha.api.get(`${V2}/team-members?page_number=1&page_size=100`, JSON_ACCEPT)).status).toBe(200);
  });
});

describe("a client's secondary_name is one line, like its name", () => {
  const oneLine = 'must be one line of text, without line breaks, tabs or other control characters';

  it('422 on update for a line break, a tab or another control character, with the error of the name', async () => {
    const c = makeClient(env.alpha.handle.db);
    const name = await env.alpha.api.put(`${V1}/clients/${c.id}`, { client: { name: 'A\nB' } });
    expect(name.body.details).toEqual([{ path: 'client.name', message: oneLine }]);
    for (const value of ['A\r\nBcc: x@evil.test', 'A\tB', 'A\u0000B', 'A\u007fB']) {
      const res = await env.alpha.api.put(`${V1}/clients/${c.id}`, { client: { secondary_name: value } });
      expect([res.status, res.body.code], JSON.stringify(value)).toEqual([422, 'validation_failed']);
      expect(res.body.details).toEqual([{ path: 'client.secondary_name', message: oneLine }]);
    }
    expect(env.alpha.handle.db.select().from(clients).where(eq(clients.id, c.id)).get()?.secondaryName).toBe('');
    const ok = await env.alpha.api.put(`${V1}/clients/${c.id}`, { client: { secondary_name: '  Second line  ' } });
    expect(ok.status).toBe(200);
    expect((await env.alpha.api.get(`${V1}/clients/${c.id}`)).body.client.secondary_name).toBe('Second line');
    const cleared = await env.alpha.api.put(`${V1}/clients/${c.id}`, { client: { secondary_name: null } });
    expect(cleared.status).toBe(200);
    expect((await env.alpha.api.get(`${V1}/clients/${c.id}`)).body.client.secondary_name).toBe('');
  });

  it('422 on POST v1 /clients, which stores nothing', async () => {
    const before = env.alpha.handle.db.select().from(clients).all().length;
    const res = await env.alpha.api.post(`${V1}/clients`, { client: { name: 'Two Lines', secondary_name: 'line1\nline2' } });
    expect([res.status, res.body.code]).toEqual([422, 'validation_failed']);
    expect(res.body.details).toEqual([{ path: 'client.secondary_name', message: oneLine }]);
    expect(env.alpha.handle.db.select().from(clients).all().length).toBe(before);
  });

  it('tax_id refuses every control character too, not only line breaks and tabs', async () => {
    const c = makeClient(env.alpha.handle.db);
    const res = await env.alpha.api.put(`${V1}/clients/${c.id}`, { client: { tax_id: 'DE1\u0000' } });
    expect(res.body.details).toEqual([{ path: 'client.tax_id', message: oneLine }]);
  });
});

describe('README: the additive fields of the client read', () => {
  it('names every field the read carries beyond the spec record', async () => {
    const spec = ['id', 'organization_id', 'name', 'identifier', 'internal_notes', 'currency', 'secondary_name', 'last_invoice_interval', 'status', 'logo', 'default_invoice_due_in_days', 'include_hours_by_person_in_invoice', 'created_at', 'updated_at'];
    const c = makeClient(env.alpha.handle.db);
    const read = await env.alpha.api.get(`${V1}/clients/${c.id}`);
    const extra = Object.keys(read.body.client).filter((k) => !spec.includes(k)).sort();
    expect(extra).toEqual(['address', 'tax_id']);
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
    const sentence = /The client read \(endpoint 13\) carries every field of the spec's record plus (\w+) additive fields?,(.*?)`logo` is null/.exec(readme);
    expect(sentence?.[1]).toBe('two');
    for (const field of extra) expect(sentence?.[2]).toContain(`\`${field}\``);
  });
});
