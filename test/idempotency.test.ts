import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { clients, idempotencyKeys, invoices, timeEntries, webhookEndpoints } from '../src/db/schema/index.ts';
import { IdempotentExchange, keysInFlight } from '../src/idempotency/exchange.ts';
import { idempotencyKeysJob } from '../src/jobs/idempotency.ts';
import { createApiKey } from '../src/workspaces/keys.ts';
import { WorkspaceRegistry } from '../src/workspaces/registry.ts';
import { provisionWorkspace } from '../src/domain/workspace/provision.ts';
import { issuePasswordLink } from '../src/domain/accounts/links.ts';
import { scopeOf, startTestEnv, testClock, type TestEnv } from './helpers/env.ts';
import { makeProjectSetup } from './helpers/factories.ts';
import { send, type HttpResponse } from './helpers/http.ts';
import { BrowserSession, tokenOf } from './helpers/session.ts';

let env: TestEnv;
const clock = testClock('2026-11-18T10:00:00.000Z');
const V2 = '/api/external/v2';
let setup: ReturnType<typeof makeProjectSetup>;
let n = 0;

beforeAll(async () => {
  env = await startTestEnv({ clock });
  setup = makeProjectSetup(env.alpha.handle.db);
});
afterAll(() => env.close());

const entryBody = (notes = `entry ${++n}`) => ({
  client_id: setup.client.id,
  project_id: setup.project.id,
  task_id: setup.task.id,
  email: setup.member.email,
  recorded_on: '2026-11-17',
  hours: '0.5',
  notes,
});
const entriesWithNotes = (notes: string) => env.alpha.handle.db.select().from(timeEntries).where(eq(timeEntries.notes, notes)).all();
const keyed = (key: string, extra: Record<string, string> = {}) => ({ headers: { 'idempotency-key': key, ...extra } });
const storedKey = (key: string) => env.alpha.handle.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, key)).get();

/** Waits (without a fixed delay) until the server has done what the condition looks for. */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 10_000 && !condition(); i++) await new Promise((r) => setImmediate(r));
  expect(condition()).toBe(true);
}

describe('Idempotency-Key on REST writes', () => {
  it('replays the first answer to a repeat, byte for byte, and writes once', async () => {
    const body = entryBody();
    const first = await env.alpha.api.post(`${V2}/time-entries`, body, keyed('entry-1'));
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // The same request: keys in another order, other white space.
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(body).reverse()), null, 2);
    const again = await env.alpha.api.post(`${V2}/time-entries`, reordered, keyed('entry-1', { 'content-type': 'application/json' }));
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(entriesWithNotes(body.notes)).toHaveLength(1);
    expect(storedKey('entry-1')).toMatchObject({ status: 201, method: 'POST', path: `${V2}/time-entries`, body: first.text });
  });

  it('keys are per API key and per workspace', async () => {
    const body = entryBody();
    expect((await env.alpha.api.post(`${V2}/time-entries`, body, keyed('shared-key'))).status).toBe(201);
    const otherKey = createApiKey(env.alpha.handle.db, { label: 'second', now: clock() }).apiKey;
    const second = await send(env.url, 'POST', `${V2}/time-entries`, { host: env.alpha.host, key: otherKey, body, ...keyed('shared-key') });
    expect(second.status).toBe(201);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(entriesWithNotes(body.notes)).toHaveLength(2);
    // Another workspace with the same key: its own request, its own answer (its people differ).
    const beta = await env.beta.api.post(`${V2}/time-entries`, body, keyed('shared-key'));
    expect(beta.status).toBe(422);
    expect(beta.body.code).toBe('user_not_found');
    expect(beta.headers['idempotent-replayed']).toBeUndefined();
  });

  it('422 idempotency_key_reused for the same key with another body, path or method, and nothing is written', async () => {
    const body = entryBody();
    expect((await env.alpha.api.post(`${V2}/time-entries`, body, keyed('reuse'))).status).toBe(201);
    for (const [method, path, b] of [
      ['POST', `${V2}/time-entries`, { ...body, hours: '1' }],
      ['POST', '/api/external/v1/time_entry', body],
      ['POST', `${V2}/time-entries?x=1`, body],
    ] as const) {
      const res = await env.alpha.api.request(method, path, { body: b, ...keyed('reuse') });
      expect(res.status, path).toBe(422);
      expect(res.body.code).toBe('idempotency_key_reused');
    }
    expect(entriesWithNotes(body.notes)).toHaveLength(1);
  });

  it('a body nested deeper than 100 levels is 422, not a 500, and neither runs nor keeps the key', async () => {
    const deep = JSON.parse(`${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}`) as object;
    const res = await env.alpha.api.post(`${V2}/time-entries`, { ...entryBody('too deep'), metadata: deep }, keyed('deep'));
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'validation_failed', details: [{ path: '(body)', message: expect.stringContaining('100 levels') }] });
    expect(entriesWithNotes('too deep')).toHaveLength(0);
    expect(storedKey('deep')).toBeUndefined();
  });

  it('keeps a 4xx answer (replayed, and the key stays bound to that request); 409 is not kept', async () => {
    const bad = { ...entryBody(), hours: 'lots' };
    const first = await env.alpha.api.post(`${V2}/time-entries`, bad, keyed('bad-hours'));
    expect(first.status).toBe(422);
    const again = await env.alpha.api.post(`${V2}/time-entries`, bad, keyed('bad-hours'));
    expect(again.status).toBe(422);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    const fixed = await env.alpha.api.post(`${V2}/time-entries`, { ...bad, hours: '1' }, keyed('bad-hours'));
    expect(fixed.body.code).toBe('idempotency_key_reused');

    // 409: a conflict may pass, so it is answered afresh to every retry.
    const invoice = { email: env.alpha.ownerEmail, number: 'IDEM-1', total: 5, invoice_services: [{ quantity: 1, unit_amount: 5 }] };
    expect((await env.alpha.api.post(`${V2}/clients/${setup.client.id}/invoices`, invoice)).status).toBe(201);
    const taken = await env.alpha.api.post(`${V2}/clients/${setup.client.id}/invoices`, invoice, keyed('taken'));
    expect(taken.status).toBe(409);
    const retried = await env.alpha.api.post(`${V2}/clients/${setup.client.id}/invoices`, invoice, keyed('taken'));
    expect(retried.status).toBe(409);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect(storedKey('taken')).toBeUndefined();
  });

  it('keeps a 204 and answers it again without content', async () => {
    const body = { client_ids: [setup.client.id], status: 'active' };
    const first = await env.alpha.api.post('/api/external/v1/clients/update_status', body, keyed('status-204'));
    expect(first.status).toBe(204);
    const again = await env.alpha.api.post('/api/external/v1/clients/update_status', body, keyed('status-204'));
    expect(again.status).toBe(204);
    expect(again.raw.length).toBe(0);
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  it.each([
    ['too long', 'k'.repeat(256)],
    ['not printable ASCII', 'clé'],
    ['a control character', 'a\tb'],
  ])('422 idempotency_key_invalid for a key that is %s; nothing is written', async (_what, key) => {
    const body = entryBody();
    const res = await env.alpha.api.post(`${V2}/time-entries`, body, keyed(key));
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('idempotency_key_invalid');
    expect(entriesWithNotes(body.notes)).toHaveLength(0);
  });

  it('accepts a key of 255 characters; without an API key it is 401 and nothing is kept', async () => {
    const key = 'k'.repeat(255);
    expect((await env.alpha.api.post(`${V2}/time-entries`, entryBody(), keyed(key))).status).toBe(201);
    const anonymous = await send(env.url, 'POST', `${V2}/time-entries`, { host: env.alpha.host, body: entryBody(), ...keyed('anon') });
    expect(anonymous.status).toBe(401);
    expect(storedKey('anon')).toBeUndefined();
  });

  it('concurrent requests with one key: one runs, the other is 409 idempotency_key_in_use with Retry-After', async () => {
    const body = JSON.stringify(entryBody());
    // The first request's body is held back half-way, so it is provably still running.
    const first = rawPost(`${V2}/time-entries`, 'same-time', body);
    first.write(body.slice(0, 10));
    await until(() => keysInFlight() === 1);
    const second = await env.alpha.api.post(`${V2}/time-entries`, body, keyed('same-time', { 'content-type': 'application/json' }));
    expect(second.status).toBe(409);
    expect(second.body.code).toBe('idempotency_key_in_use');
    expect(second.headers['retry-after']).toBe('1');
    const answer = await first.finish(body.slice(10));
    expect(answer.status).toBe(201);
    // The retry the 409 asked for gets the first answer.
    const retry = await env.alpha.api.post(`${V2}/time-entries`, body, keyed('same-time', { 'content-type': 'application/json' }));
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(keysInFlight()).toBe(0);
  });

  it('a connection closed before its body arrived releases the key and writes nothing', async () => {
    const body = JSON.stringify(entryBody());
    const gone = rawPost(`${V2}/time-entries`, 'walked-away', body);
    gone.write(body.slice(0, 10));
    await until(() => keysInFlight() === 1);
    gone.abort();
    await until(() => keysInFlight() === 0);
    const res = await env.alpha.api.post(`${V2}/time-entries`, body, keyed('walked-away', { 'content-type': 'application/json' }));
    expect(res.status).toBe(201);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
  });

  it('a request whose client left before its operation began never frees the key of the retry that took it', async () => {
    const entry = entryBody();
    const body = JSON.stringify(entry);
    const settles = vi.spyOn(IdempotentExchange.prototype, 'settle');
    try {
      // r1 is whole, held before its operation begins; its client walks away: r1 will not run.
      const r1Operation = holdOperation('before');
      const r1 = rawPost(`${V2}/time-entries`, 'left-first', body);
      r1.write(body);
      await until(() => r1Operation.reached);
      r1.abort();
      await until(() => keysInFlight() === 0);
      // r2, the client's retry, takes the key; its body is held back, so it is provably in flight.
      const r2 = rawPost(`${V2}/time-entries`, 'left-first', body);
      r2.write(body.slice(0, 10));
      await until(() => keysInFlight() === 1);
      // r1's door now finishes (409 request_abandoned, to no one) and lets go of the key a second time.
      r1Operation.resume();
      await until(() => settles.mock.calls.length === 1);
      expect(keysInFlight()).toBe(1);
      const r3 = await env.alpha.api.post(`${V2}/time-entries`, body, keyed('left-first', { 'content-type': 'application/json' }));
      expect(r3.status).toBe(409);
      expect(r3.body.code).toBe('idempotency_key_in_use');
      expect((await r2.finish(body.slice(10))).status).toBe(201);
      expect(entriesWithNotes(entry.notes)).toHaveLength(1);
      expect(keysInFlight()).toBe(0);
    } finally {
      settles.mockRestore();
    }
  });

  it("a request whose client left keeps nothing: the key's answer is the one of the retry that took the key", async () => {
    const good = entryBody();
    // r1 fails (422: nothing written) and its answer is held until its client has gone and r2 has run.
    const bad = JSON.stringify({ ...good, hours: 'lots' });
    const settles = vi.spyOn(IdempotentExchange.prototype, 'settle');
    try {
      const r1Operation = holdOperation('after');
      const r1 = rawPost(`${V2}/time-entries`, 'left-after', bad);
      r1.write(bad);
      await until(() => r1Operation.reached);
      r1.abort();
      await until(() => keysInFlight() === 0);
      const r2 = await env.alpha.api.post(`${V2}/time-entries`, good, keyed('left-after'));
      expect(r2.status).toBe(201);
      r1Operation.resume();
      await until(() => settles.mock.calls.length === 2);
      const retry = await env.alpha.api.post(`${V2}/time-entries`, good, keyed('left-after'));
      expect(retry.status).toBe(201);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.text).toBe(r2.text);
      expect(entriesWithNotes(good.notes)).toHaveLength(1);
    } finally {
      settles.mockRestore();
    }
  });

  it('expires after 24 hours; the cleaning job removes expired keys in bounded passes', async () => {
    const body = entryBody();
    await env.alpha.api.post(`${V2}/time-entries`, body, keyed('day-old'));
    clock.advance(24 * 3_600_000 + 1);
    const later = await env.alpha.api.post(`${V2}/time-entries`, body, keyed('day-old'));
    expect(later.status).toBe(201);
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(entriesWithNotes(body.notes)).toHaveLength(2);

    clock.advance(24 * 3_600_000 + 1);
    const db = env.alpha.handle.db;
    const before = db.select().from(idempotencyKeys).all().length;
    expect(before).toBeGreaterThan(0);
    const due = idempotencyKeysJob.run(env.alpha.handle, env.services);
    expect(db.select().from(idempotencyKeys).all()).toEqual([]);
    expect(due).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('Idempotency-Key on tRPC mutations over HTTP', () => {
  const trpcPost = (path: string, body: unknown, key: string) =>
    send(env.url, 'POST', `/trpc/${path}`, { host: env.alpha.host, key: env.alpha.key, body, headers: { 'idempotency-key': key } });
  const clientNamed = (name: string) => env.alpha.handle.db.select().from(clients).where(eq(clients.name, name)).all();

  it('replays a mutation (single and as a batch of one), and writes once', async () => {
    const input = { email: env.alpha.ownerEmail, name: 'Idem Client' };
    const first = await trpcPost('clients.create', input, 'trpc-1');
    expect(first.status).toBe(200);
    expect(first.body.result.data.client.name).toBe('Idem Client');
    const again = await trpcPost('clients.create', input, 'trpc-1');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    expect(clientNamed('Idem Client')).toHaveLength(1);
    // What was committed with the change is exactly what was sent.
    expect(storedKey('trpc-1')?.body).toBe(first.text);

    const batched = await trpcPost('clients.create?batch=1', { 0: { ...input, name: 'Batched Client' } }, 'trpc-batch');
    expect(batched.status).toBe(200);
    const replayed = await trpcPost('clients.create?batch=1', { 0: { ...input, name: 'Batched Client' } }, 'trpc-batch');
    expect(replayed.text).toBe(batched.text);
    expect(storedKey('trpc-batch')?.body).toBe(batched.text);
    expect(clientNamed('Batched Client')).toHaveLength(1);
  });

  it("refuses, in tRPC's error shape: a reused key, a malformed key, a batch of several calls", async () => {
    const input = { email: env.alpha.ownerEmail, name: 'Trpc Reuse' };
    await trpcPost('clients.create', input, 'trpc-reuse');
    const reused = await trpcPost('clients.create', { ...input, name: 'Other' }, 'trpc-reuse');
    expect(reused.status).toBe(422);
    expect(reused.body.error.data).toMatchObject({ code: 'idempotency_key_reused', httpStatus: 422 });
    const invalid = await trpcPost('clients.create', input, 'x'.repeat(300));
    expect(invalid.status).toBe(422);
    expect(invalid.body.error.data.code).toBe('idempotency_key_invalid');
    const batch = await trpcPost('clients.create,clients.create?batch=1', { 0: { ...input, name: 'B1' }, 1: { ...input, name: 'B2' } }, 'trpc-two');
    expect(batch.body.map((r: { error: { data: { code: string } } }) => r.error.data.code)).toEqual(['idempotency_key_batch', 'idempotency_key_batch']);
    expect(clientNamed('B1')).toHaveLength(0);
  });

  it('refuses a key on a call whose answer shows a secret once (it would be kept in the file): nothing is made, nothing kept', async () => {
    const endpoints = () => env.alpha.handle.db.select().from(webhookEndpoints).all().length;
    const before = endpoints();
    for (const [path, input] of [
      ['webhooks.create', { email: env.alpha.ownerEmail, url: 'https://hooks.example.com/in' }],
      ['apiKeys.create', { label: 'ci' }],
    ] as const) {
      const res = await trpcPost(path, input, `secret-${path}`);
      expect(res.status, path).toBe(422);
      expect(res.body.error.data.code).toBe('idempotency_key_not_accepted');
      expect(storedKey(`secret-${path}`)).toBeUndefined();
    }
    expect(endpoints()).toBe(before);
    // Named as tRPC reads names (percent-decoded, the last segment), the refusal is the same.
    const keys = () => env.alpha.handle.sqlite.prepare('SELECT count(*) FROM api_keys').pluck().get();
    const keysBefore = keys();
    for (const path of ['apiKeys%2Ecreate', 'x/apiKeys.create', 'webhooks%2ErotateSecret']) {
      const res = await trpcPost(path, { label: 'ci', email: env.alpha.ownerEmail, webhook_id: 'none' }, `secret-${path}`);
      expect(res.status, path).toBe(422);
      expect(res.body.error.data.code, path).toBe('idempotency_key_not_accepted');
      expect(storedKey(`secret-${path}`)).toBeUndefined();
    }
    const encodedBatch = await trpcPost('apiKeys.create%2CapiKeys.create?batch=1', { 0: { label: 'a' }, 1: { label: 'b' } }, 'secret-batch');
    expect(encodedBatch.body.map((r: { error: { data: { code: string } } }) => r.error.data.code)).toEqual(['idempotency_key_batch', 'idempotency_key_batch']);
    expect(storedKey('secret-batch')).toBeUndefined();
    expect(keys()).toBe(keysBefore);
    // without a key it is answered, secret and all
    const made = await send(env.url, 'POST', '/trpc/webhooks.create', { host: env.alpha.host, key: env.alpha.key, body: { email: env.alpha.ownerEmail, url: 'https://hooks.example.com/in' } });
    expect(made.body.result.data.secret).toMatch(/^whsec_/);
  });
});

describe('Idempotency-Key on tRPC: which calls take it', () => {
  const post = (path: string, body: unknown, headers: Record<string, string>) => send(env.url, 'POST', `/trpc/${path}`, { host: env.alpha.host, key: env.alpha.key, body, headers });
  const clientNamed = (name: string) => env.alpha.handle.db.select().from(clients).where(eq(clients.name, name)).all();

  it('refuses a key on a streamed answer (httpBatchStreamLink): nothing is claimed, run or kept', async () => {
    for (const header of ['trpc-accept', 'accept']) {
      const key = `streamed-${header}`;
      const input = { 0: { email: env.alpha.ownerEmail, name: `Streamed ${header}` } };
      const res = await post('clients.create?batch=1', input, { 'idempotency-key': key, [header]: 'application/jsonl' });
      // A stream's status line is 200 whatever its calls answer; the refusal is the call's own.
      expect(res.status, header).toBe(200);
      expect(res.text).toContain('"code":"idempotency_key_not_accepted","httpStatus":422');
      expect(clientNamed(`Streamed ${header}`)).toHaveLength(0);
      expect(storedKey(key)).toBeUndefined();
      expect(keysInFlight()).toBe(0);
      // Sent without a stream, the same key runs afresh and is kept.
      const plain = await post('clients.create?batch=1', input, { 'idempotency-key': key });
      expect(plain.status).toBe(200);
      expect(plain.headers['idempotent-replayed']).toBeUndefined();
      expect(storedKey(key)?.body).toBe(plain.text);
    }
  });

  it('ignores a key on reads: a POSTed query is neither claimed nor kept, and a later read is fresh', async () => {
    const list = (key: string) => post('clients.list', {}, { 'idempotency-key': key });
    const names = (res: HttpResponse) => (res.body.result.data.items as { name: string }[]).map((c) => c.name);
    const first = await list('read-key');
    expect(first.status).toBe(200);
    expect((await post('clients.create', { email: env.alpha.ownerEmail, name: 'Made After A Read' }, {})).status).toBe(200);
    const second = await list('read-key');
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(names(second)).toContain('Made After A Read');
    expect(storedKey('read-key')).toBeUndefined();
    expect((await list('x'.repeat(300))).status).toBe(200);
  });

  it('a batch of queries ignores the key; one mixing queries and a mutation is refused whole by tRPC (422), nothing run or kept', async () => {
    const reads = await post('clients.list,clients.list?batch=1', { 0: {}, 1: {} }, { 'idempotency-key': 'reads' });
    expect(reads.body.map((r: { result: { data: { items: unknown } } }) => Array.isArray(r.result.data.items))).toEqual([true, true]);
    expect(storedKey('reads')).toBeUndefined();
    const mixed = await post('clients.list,clients.create?batch=1', { 0: {}, 1: { email: env.alpha.ownerEmail, name: 'Mixed Batch' } }, { 'idempotency-key': 'mixed' });
    expect(mixed.status).toBe(422);
    expect(mixed.body.error.message).toContain('Cannot mix procedure types');
    expect(clientNamed('Mixed Batch')).toHaveLength(0);
    expect(storedKey('mixed')).toBeUndefined();
    expect(keysInFlight()).toBe(0);
  });

  it('ignores the header entirely on session-cookie calls (the web app): a malformed key too, and nothing is kept', async () => {
    const browser = new BrowserSession(env.url, env.alpha.host);
    const token = tokenOf(issuePasswordLink(scopeOf(env.services, env.alpha.handle), {}).link);
    expect((await browser.mutate('auth.setPassword', { token, password: 'a password for tests' })).status).toBe(200);
    for (const key of ['x'.repeat(300), 'café', 'cookie-key', 'cookie-key']) {
      const made = await browser.mutate('clients.create', { email: env.alpha.ownerEmail, name: 'Via Session' }, { headers: { 'idempotency-key': key } });
      expect(made.status, key).toBe(200);
      expect(made.response.headers['idempotent-replayed']).toBeUndefined();
    }
    expect(clientNamed('Via Session')).toHaveLength(4);
    expect(storedKey('cookie-key')).toBeUndefined();
  });
});

describe('a crash between commit and answer', () => {
  const BIN = fileURLToPath(new URL('../bin/hourbook.js', import.meta.url));
  const dataDir = mkdtempSync(join(tmpdir(), 'hourbook-idem-crash-'));
  let apiKey: string;
  let email: string;
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  beforeAll(() => {
    const registry = new WorkspaceRegistry({ dataDir, synchronous: 'FULL' });
    const created = provisionWorkspace(registry, { subdomain: 'crash', timeZone: 'UTC', owner: { email: 'o@crash.test', firstName: 'O', lastName: 'C' } }, new Date());
    apiKey = created.apiKey;
    email = created.owner.email;
    registry.closeAll();
  });

  async function serve(extraEnv: Record<string, string>): Promise<{ child: ChildProcess; url: string; exited: Promise<NodeJS.Signals | null> }> {
    const child = spawn(process.execPath, [BIN, 'serve'], { env: { ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent', ...extraEnv } });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /listening on (http:\/\/[\d.:]+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.on('exit', () => reject(new Error(`server exited: ${out}`)));
    });
    return { child, url, exited };
  }

  const countIn = (table: typeof invoices | typeof clients) => {
    const registry = new WorkspaceRegistry({ dataDir, synchronous: 'FULL' });
    try {
      return registry.get('crash')!.db.select().from(table).all().length;
    } finally {
      registry.closeAll();
    }
  };

  it.each([
    ['REST', '/api/external/v1/clients', () => ({ client: { name: 'Crash Co' } })],
    ['tRPC', '/trpc/clients.create', () => ({ email, name: 'Crash Trpc' })],
  ])('%s: killed (SIGKILL) after the commit, the retry gets the stored answer and nothing is written twice', async (_door, path, body) => {
    const before = countIn(clients);
    const crashing = await serve({ HOURBOOK_TEST_CRASH_AFTER_COMMIT: '1' });
    const opts = { host: 'crash.localhost', key: apiKey, body: body(), headers: { 'idempotency-key': `crash-${path}` } };
    await expect(send(crashing.url, 'POST', path, opts)).rejects.toThrow();
    expect(await crashing.exited).toBe('SIGKILL');
    expect(countIn(clients)).toBe(before + 1);

    const restarted = await serve({});
    try {
      const retry = await send(restarted.url, 'POST', path, opts);
      expect(retry.status).toBeLessThan(300);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      const created = retry.body.client_id ?? retry.body.result?.data?.client?.id;
      expect(created).toMatch(/^[0-9a-f-]{36}$/);
      expect(countIn(clients)).toBe(before + 1);
    } finally {
      restarted.child.kill('SIGTERM');
      await restarted.exited;
    }
  }, 60_000);
});

/**
 * Holds the next workspace operation, before it begins or after it has ended (its answer not yet
 * sent), until `resume`: the test then chooses the moment a client walks away.
 */
function holdOperation(at: 'before' | 'after') {
  const registry = env.services.registry;
  const using = registry.using.bind(registry);
  let resume = () => {};
  const held = new Promise<void>((resolve) => (resume = resolve));
  const state = { reached: false, resume: () => resume() };
  const hold = async () => {
    state.reached = true;
    await held;
  };
  const spy = vi.spyOn(registry, 'using').mockImplementation((async (handle: Parameters<typeof using>[0], fn: () => unknown) => {
    spy.mockRestore(); // the next operation only
    if (at === 'before') {
      await hold();
      return using(handle, fn);
    }
    try {
      return await using(handle, fn);
    } finally {
      await hold();
    }
  }) as typeof registry.using);
  return state;
}

/** A POST whose body the test writes in parts. */
function rawPost(path: string, key: string, body: string) {
  const url = new URL(path, env.url);
  const req = httpRequest({
    hostname: url.hostname,
    port: url.port,
    path: url.pathname,
    method: 'POST',
    headers: { host: env.alpha.host, 'x-api-key': env.alpha.key, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'idempotency-key': key },
  });
  const response = new Promise<HttpResponse>((resolve, reject) => {
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, raw, text: raw.toString(), body: JSON.parse(raw.toString() || 'null') });
      });
    });
    req.on('error', reject);
  });
  response.catch(() => {});
  return {
    write: (part: string) => req.write(part),
    finish: (rest: string) => {
      req.end(rest);
      return response;
    },
    abort: () => req.destroy(),
  };
}
