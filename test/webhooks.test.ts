import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { events, outbox, webhookDeliveries, webhookEndpoints } from '../src/db/schema/index.ts';
import { recordEvent, type EventType } from '../src/domain/events.ts';
import { claimDueDeliveries, CLAIM_LEASE_MS, deliveryStatements } from '../src/domain/webhooks/outcomes.ts';
import { webhooksJob } from '../src/jobs/webhooks.ts';
import { isPublicAddress } from '../src/webhooks/address.ts';
import { postWebhook } from '../src/webhooks/post.ts';
import { startTestEnv, scopeOf, testClock, type TestEnv } from './helpers/env.ts';
import { makeMember, makeProjectSetup } from './helpers/factories.ts';

/** A receiver a test starts: it verifies every request with the `standardwebhooks` package. */
class Receiver {
  received: { id: string; type: string; body: Record<string, unknown>; headers: IncomingHttpHeaders }[] = [];
  refusedSignatures = 0;
  secret = '';
  /** What to answer next (status, body, headers); default 204. */
  answers: { status: number; body?: string; headers?: Record<string, string> }[] = [];
  hits = 0;
  private server: Server | null = null;
  port = 0;

  async start(port = 0): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.hits++;
        const raw = Buffer.concat(chunks).toString('utf8');
        try {
          new Webhook(this.secret).verify(raw, req.headers as Record<string, string>);
          this.received.push({ id: String(req.headers['webhook-id']), type: (JSON.parse(raw) as { type: string }).type, body: JSON.parse(raw) as Record<string, unknown>, headers: req.headers });
        } catch {
          this.refusedSignatures++;
          res.writeHead(400).end('bad signature');
          return;
        }
        const answer = this.answers.shift() ?? { status: 204 };
        res.writeHead(answer.status, answer.headers).end(answer.body ?? '');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  get url() {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  ids = () => this.received.map((r) => r.id);
}

let env: TestEnv;
const clock = testClock('2026-11-18T10:00:00.000Z');
const receiver = new Receiver();
const V1 = '/api/external/v1';

beforeAll(async () => {
  env = await startTestEnv({ clock, env: { WEBHOOK_ALLOW_PRIVATE: '1' } });
  await receiver.start();
});
afterAll(async () => {
  await receiver.stop();
  await env.close();
});

const caller = () => env.alpha.caller;
const email = () => env.alpha.ownerEmail;
/** One pass of the delivery job over alpha, as the server would run it. */
const deliver = () => webhooksJob.run(env.alpha.handle, env.services);
const deliveryRows = (endpointId: string) => env.alpha.handle.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId)).all();
const eventCount = () => env.alpha.handle.db.select().from(events).all().length;

async function endpoint(opts: { events?: ('*' | EventType)[]; url?: string } = {}) {
  const created = await caller().webhooks.create({ email: email(), url: opts.url ?? receiver.url, ...(opts.events ? { events: opts.events } : {}) });
  receiver.secret = created.secret;
  return created;
}

afterEach(async () => {
  for (const e of (await caller().webhooks.list()).items) await caller().webhooks.delete({ email: email(), endpoint_id: e.id });
  receiver.received = [];
  receiver.answers = [];
  receiver.refusedSignatures = 0;
  receiver.hits = 0;
});

describe('webhook endpoints', () => {
  it('create answers the signing secret once (Standard Webhooks whsec_); listings never show it', async () => {
    const { endpoint: e, secret } = await caller().webhooks.create({ email: email(), url: receiver.url, events: ['invoice.paid', 'client.created', 'invoice.paid'], description: 'ERP' });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(e).toMatchObject({ url: receiver.url, events: ['client.created', 'invoice.paid'], enabled: true, description: 'ERP', disabled_reason: null });
    const listed = await caller().webhooks.list();
    expect(JSON.stringify(listed)).not.toContain(secret.slice(6));
    // Without SECRET_KEY the secret is kept as it is in the workspace file (docs/webhooks.md).
    expect(env.alpha.handle.db.select().from(webhookEndpoints).get()?.secret).toBe(`plain:${secret}`);
  });

  it('refuses bad URLs, unknown event types, and people who are not Owner or Admin', async () => {
    for (const url of ['ftp://example.com/x', 'https://user:pw@example.com/x', 'not a url', 'http://']) {
      await expect(caller().webhooks.create({ email: email(), url })).rejects.toMatchObject({ cause: { code: 'validation_failed', details: [{ path: 'url' }] } });
    }
    await expect(caller().webhooks.create({ email: email(), url: receiver.url, events: ['invoice.eaten' as EventType] })).rejects.toMatchObject({ cause: { code: 'validation_failed' } });
    const member = makeMember(env.alpha.handle.db, { organizationRole: 'Member' });
    await expect(caller().webhooks.create({ email: member.email, url: receiver.url })).rejects.toMatchObject({ code: 'FORBIDDEN', cause: { code: 'forbidden' } });
    await expect(caller().webhooks.update({ email: email(), endpoint_id: 'nope', enabled: false })).rejects.toMatchObject({ cause: { code: 'webhook_endpoint_not_found' } });
  });

  it("another workspace's endpoints are invisible", async () => {
    const { endpoint: e } = await endpoint();
    expect((await env.beta.caller.webhooks.list()).items).toEqual([]);
    await expect(env.beta.caller.webhooks.deliveries({ endpoint_id: e.id })).rejects.toMatchObject({ cause: { code: 'webhook_endpoint_not_found' } });
  });
});

describe('delivery', () => {
  it('every change sends its event, signed per Standard Webhooks, with the event id as webhook-id', async () => {
    await endpoint();
    const created = await env.alpha.api.post(`${V1}/clients`, { client: { name: 'Hooked Ltd' } });
    await env.alpha.api.put(`${V1}/clients/${created.body.client_id}`, { client: { name: 'Hooked Ltd (renamed)' } });
    await deliver();
    expect(receiver.refusedSignatures).toBe(0);
    expect(receiver.received.map((r) => r.type).sort()).toEqual(['client.created', 'client.updated']);
    const first = receiver.received.find((r) => r.type === 'client.created');
    const stored = env.alpha.handle.db.select().from(events).where(eq(events.id, first!.id)).get()!;
    expect(first!.body).toEqual({ type: 'client.created', timestamp: stored.createdAt, data: JSON.parse(stored.data) });
    expect((first!.body.data as { client: { name: string } }).client.name).toBe('Hooked Ltd');
    expect(first!.headers['webhook-signature']).toMatch(/^v1,/);
    expect(first!.headers['content-type']).toBe('application/json');
    // The bookkeeping commits without its own fsync, and puts the configured durability back.
    expect(env.alpha.handle.sqlite.pragma('synchronous', { simple: true })).toBe(2); // FULL
  });

  it('a receiver taken down and brought back gets every event, none twice', async () => {
    const { endpoint: e } = await endpoint();
    const port = receiver.port;
    await receiver.stop();
    const setup = makeProjectSetup(env.alpha.handle.db);
    for (const notes of ['one', 'two', 'three']) {
      const res = await env.alpha.api.post('/api/external/v2/time-entries', {
        client_id: setup.client.id,
        project_id: setup.project.id,
        task_id: setup.task.id,
        email: setup.member.email,
        recorded_on: '2026-11-17',
        hours: '1',
        notes,
      });
      expect(res.status).toBe(201);
    }
    await deliver();
    const waiting = deliveryRows(e.id);
    expect(waiting.map((d) => [d.status, d.attempts])).toEqual([
      ['pending', 1],
      ['pending', 1],
      ['pending', 1],
    ]);
    expect(waiting[0]!.lastError).toMatch(/ECONNREFUSED/);
    // Not due yet: the backoff holds them.
    await deliver();
    expect(deliveryRows(e.id).every((d) => d.attempts === 1)).toBe(true);

    await receiver.start(port);
    clock.advance(60_000);
    await deliver();
    // Sent side by side, so in no promised order (docs/webhooks.md): every one, once.
    expect(receiver.received.map((r) => (r.body.data as { time_entry: { notes: string } }).time_entry.notes).sort()).toEqual(['one', 'three', 'two']);
    expect(new Set(receiver.ids()).size).toBe(3);
    expect(deliveryRows(e.id).map((d) => [d.status, d.attempts])).toEqual([
      ['delivered', 2],
      ['delivered', 2],
      ['delivered', 2],
    ]);
    await deliver();
    expect(receiver.received).toHaveLength(3);
    expect((await caller().webhooks.list()).items[0]?.failing_since).toBeNull();
  });

  it('a rolled-back change emits nothing', async () => {
    const { endpoint: e } = await endpoint();
    const before = eventCount();
    const scope = scopeOf(env.services, env.alpha.handle);
    expect(() =>
      scope.write(() => {
        recordEvent(scope, 'client.updated', { client: { id: 'x' } });
        throw new Error('the change fails after its event was recorded');
      }),
    ).toThrow(/fails/);
    // A refused request through the door: nothing either.
    const refused = await env.alpha.api.put(`${V1}/clients/not-a-client`, { client: { name: 'X' } });
    expect(refused.status).toBe(404);
    await deliver();
    expect(eventCount()).toBe(before);
    expect(deliveryRows(e.id)).toEqual([]);
    expect(receiver.hits).toBe(0);
  });


  it('event ids are unique within one instant and sort by the time of their change', () => {
    const at = (iso: string) => scopeOf(env.services, env.alpha.handle, new Date(iso));
    const record = (iso: string) => {
      const scope = at(iso);
      return scope.write(() => recordEvent(scope, 'client.updated', { client: { id: 'x' } }));
    };
    const sameInstant = Array.from({ length: 200 }, () => record('2026-11-18T10:00:00.000Z'));
    expect(new Set(sameInstant).size).toBe(200);
    const later = [record('2026-11-18T10:00:00.001Z'), record('2026-11-19T00:00:00.000Z'), record('2027-01-01T00:00:00.000Z')];
    expect(later.every((id) => /^evt_[0-9a-f]{32}$/.test(id))).toBe(true);
    expect([...sameInstant.slice(0, 1), ...later]).toEqual([...sameInstant.slice(0, 1), ...later].sort());
    expect(sameInstant.every((id) => id < later[0]!)).toBe(true);
  });
  it('only the event types an endpoint asked for, only events after it was created, nothing while it is off', async () => {
    await env.alpha.api.post(`${V1}/clients`, { client: { name: 'Before the endpoint' } });
    const { endpoint: e } = await endpoint({ events: ['client.updated'] });
    const created = await env.alpha.api.post(`${V1}/clients`, { client: { name: 'Created' } });
    await env.alpha.api.put(`${V1}/clients/${created.body.client_id}`, { client: { name: 'Updated' } });
    await deliver();
    expect(receiver.received.map((r) => r.type)).toEqual(['client.updated']);
    await caller().webhooks.update({ email: email(), endpoint_id: e.id, enabled: false });
    await env.alpha.api.put(`${V1}/clients/${created.body.client_id}`, { client: { name: 'While off' } });
    await deliver();
    await caller().webhooks.update({ email: email(), endpoint_id: e.id, enabled: true });
    await env.alpha.api.put(`${V1}/clients/${created.body.client_id}`, { client: { name: 'On again' } });
    await deliver();
    expect(receiver.received.map((r) => (r.body.data as { client: { name: string } }).client.name)).toEqual(['Updated', 'On again']);
  });

  // Whether an endpoint gets an event follows when the event committed, not when the job's
  // fan-out reads it (docs/webhooks.md): a busy job reads events well after their commit.
  describe('on or off when the event committed, however late the fan-out reads it', () => {
    const clientNamed = (name: string) => env.alpha.api.post(`${V1}/clients`, { client: { name } });
    const names = () => receiver.received.map((r) => (r.body.data as { client: { name: string } }).client.name);
    const turn = (endpointId: string, enabled: boolean) => caller().webhooks.update({ email: email(), endpoint_id: endpointId, enabled });
    /** Two endpoints, A and one that is always on: with none on, the fan-out rests and is moved to the present when one is turned on. */
    async function endpointBesideAnother() {
      const { endpoint: a } = await endpoint({ events: ['client.created'] });
      await caller().webhooks.create({ email: email(), url: receiver.url, events: ['invoice.paid'] });
      await clientNamed('Before');
      await deliver();
      return a;
    }

    it('an event of the time it was off is not sent, though it was on again when the fan-out read it', async () => {
      const a = await endpointBesideAnother();
      await turn(a.id, false);
      await clientNamed('While off');
      await turn(a.id, true);
      await clientNamed('On again');
      await deliver();
      expect(names()).toEqual(['Before', 'On again']);
      expect(deliveryRows(a.id)).toHaveLength(2);
    });

    it('an event of its time on is kept for it, though it was off when the fan-out read it, and sent once it is on again', async () => {
      const a = await endpointBesideAnother();
      await clientNamed('While on');
      await turn(a.id, false);
      await clientNamed('While off');
      await deliver();
      expect(names()).toEqual(['Before']);
      expect(deliveryRows(a.id).map((d) => d.status).sort()).toEqual(['delivered', 'pending']);
      await turn(a.id, true);
      await deliver();
      expect(names()).toEqual(['Before', 'While on']);
    });

    it('its events changed before the fan-out read an event: the event goes by the events chosen when it committed', async () => {
      const a = await endpointBesideAnother();
      await clientNamed('Still wanted');
      await caller().webhooks.update({ email: email(), endpoint_id: a.id, events: ['invoice.paid'] });
      await clientNamed('No longer wanted');
      await caller().webhooks.update({ email: email(), endpoint_id: a.id, events: ['client.created'] });
      await clientNamed('Wanted again');
      await deliver();
      await deliver();
      expect(names().sort()).toEqual(['Before', 'Still wanted', 'Wanted again']);
    });

    it('turned off and on several times before one fan-out, it gets exactly the events of its times on', async () => {
      const a = await endpointBesideAnother();
      for (const [name, on] of [['On 1', false], ['Off 1', true], ['On 2', false], ['Off 2', true]] as const) {
        await clientNamed(name);
        await turn(a.id, on);
      }
      await clientNamed('On 3');
      await deliver();
      expect(names().sort()).toEqual(['Before', 'On 1', 'On 2', 'On 3']);
      await deliver();
      expect(deliveryRows(a.id).map((d) => d.status)).toEqual(['delivered', 'delivered', 'delivered', 'delivered']);
    });

    it('turned off after failing for 3 days, the events of its time on not yet read are failed with its waiting deliveries, not dropped', async () => {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let arrived = 0;
      const failing = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          arrived++;
          void held.then(() => res.writeHead(500).end());
        });
      });
      await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
      try {
        const { endpoint: e } = await caller().webhooks.create({ email: email(), url: `http://127.0.0.1:${(failing.address() as AddressInfo).port}/`, events: ['client.created'] });
        // It has failed for 3 days already: the next failure turns it off.
        env.alpha.handle.db.update(webhookEndpoints).set({ failingSince: new Date(clock().getTime() - 3 * 24 * 3_600_000).toISOString() }).where(eq(webhookEndpoints.id, e.id)).run();
        await clientNamed('Sent');
        const pass = deliver();
        for (let i = 0; i < 200 && arrived === 0; i++) await new Promise((r) => setTimeout(r, 10));
        await clientNamed('Committed while it was being sent');
        release();
        await pass;
        expect((await caller().webhooks.list()).items[0]).toMatchObject({ enabled: false, disabled_reason: expect.stringContaining('3 days') });
        const { items } = await caller().webhooks.deliveries({ endpoint_id: e.id });
        // Queued in the same (test clock's) millisecond: their ids, and so their order, differ by chance.
        expect(items.map((d) => [d.status, d.attempts]).sort((x, y) => Number(y[1]) - Number(x[1]))).toEqual([
          ['failed', 1],
          ['failed', 0],
        ]);
        expect(arrived).toBe(1);
      } finally {
        // The e-mail to the Owners is another test's subject, which counts them.
        env.alpha.handle.db.delete(outbox).where(eq(outbox.kind, 'webhook_disabled')).run();
        release();
        failing.closeAllConnections();
        failing.close();
      }
    });
  });

  it('lists attempts with status, time and the first 1 KB of the answer; a 500 is retried', async () => {
    const { endpoint: e } = await endpoint();
    receiver.answers.push({ status: 500, body: 'x'.repeat(5000) });
    await env.alpha.api.post(`${V1}/clients`, { client: { name: 'Retried' } });
    const failedAt = clock().toISOString();
    await deliver();
    clock.advance(10_000);
    await deliver();
    const { items } = await caller().webhooks.deliveries({ endpoint_id: e.id });
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ status: 'delivered', attempts: 2, event_type: 'client.created', last_status_code: 204, next_attempt_at: null, manual: false });
    expect(items[0]!.attempt_log).toEqual([
      { attempted_at: failedAt, status_code: 500, error: 'answered 500', response_body: 'x'.repeat(1024), duration_ms: expect.any(Number) },
      { attempted_at: clock().toISOString(), status_code: 204, error: null, response_body: '', duration_ms: expect.any(Number) },
    ]);
  });

  it('an event can be redelivered by hand (the same webhook-id: receivers deduplicate)', async () => {
    const { endpoint: e } = await endpoint();
    await env.alpha.api.post(`${V1}/clients`, { client: { name: 'Twice' } });
    await deliver();
    const [first] = receiver.ids();
    const { delivery } = await caller().webhooks.redeliver({ email: email(), endpoint_id: e.id, event_id: first! });
    expect(delivery).toMatchObject({ status: 'pending', manual: true, event_id: first });
    await deliver();
    expect(receiver.ids()).toEqual([first, first]);
    await expect(caller().webhooks.redeliver({ email: email(), endpoint_id: e.id, event_id: 'evt_nope' })).rejects.toMatchObject({ cause: { code: 'event_not_found' } });
    const listed = await caller().webhooks.events({ type: 'client.created' });
    expect(listed.items.map((x) => x.id)).toContain(first);
  });

  it('at least once: a delivery claimed by a worker that died is sent after its lease', async () => {
    await endpoint();
    await env.alpha.api.post(`${V1}/clients`, { client: { name: 'Orphaned' } });
    await deliver(); // delivered
    expect(receiver.received).toHaveLength(1);
    await env.alpha.api.post(`${V1}/clients`, { client: { name: 'Claimed then lost' } });
    // A worker fans the event out (which claims its delivery), then dies before sending.
    const { fanOutEvents } = await import('../src/domain/webhooks/fanout.ts');
    expect(fanOutEvents(scopeOf(env.services, env.alpha.handle), 10).made).toHaveLength(1);
    expect(claimDueDeliveries(scopeOf(env.services, env.alpha.handle), 10)).toHaveLength(0);
    await deliver();
    expect(receiver.received).toHaveLength(1);
    clock.advance(CLAIM_LEASE_MS + 1);
    await deliver();
    expect(receiver.received.map((r) => r.type)).toEqual(['client.created', 'client.created']);
  });

  it('events no endpoint wants are read past in one pass: an event behind thousands of them goes out at once', async () => {
    await endpoint({ events: ['team_member.updated'] });
    const scope = scopeOf(env.services, env.alpha.handle);
    scope.write(() => {
      for (let i = 0; i < 2500; i++) recordEvent(scope, 'client.created', { client: { id: `c${i}` } });
      recordEvent(scope, 'team_member.updated', { team_member: { id: 'wanted' } });
    });
    await deliver(); // one pass
    expect(receiver.received.map((r) => r.type)).toEqual(['team_member.updated']);
    expect(receiver.received[0]!.body).toMatchObject({ data: { team_member: { id: 'wanted' } } });
  });

  it('an endpoint deleted while its deliveries are being sent fails nothing: the other endpoint\'s outcomes are recorded', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let arrived = 0;
    const slow = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        arrived++;
        void held.then(() => res.writeHead(204).end());
      });
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    try {
      const gone = (await caller().webhooks.create({ email: email(), url: `http://127.0.0.1:${(slow.address() as AddressInfo).port}/slow` })).endpoint;
      const { endpoint: kept } = await endpoint();
      await env.alpha.api.post(`${V1}/clients`, { client: { name: 'Both' } });
      const pass = deliver();
      for (let i = 0; i < 200 && arrived === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(arrived).toBe(1);
      await caller().webhooks.delete({ email: email(), endpoint_id: gone.id });
      release();
      await pass;
      expect(deliveryRows(kept.id).map((d) => d.status)).toEqual(['delivered']);
      expect(receiver.received.map((r) => r.type)).toEqual(['client.created']);
    } finally {
      release();
      slow.closeAllConnections();
      slow.close();
    }
  });

  it('claims read the partial index of pending deliveries (a delivered one leaves it)', () => {
    const { sql } = deliveryStatements(env.alpha.handle.db).due.getQuery();
    const plan = (env.alpha.handle.sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all('2026-01-01', '2026-01-01', 1, 50) as { detail: string }[]).map((r) => r.detail);
    expect(plan[0]).toMatch(/^SEARCH webhook_deliveries USING INDEX webhook_deliveries_due_idx \(next_attempt_at<\?\)/);
    const index = env.alpha.handle.sqlite.prepare("SELECT sql FROM sqlite_master WHERE name = 'webhook_deliveries_due_idx'").pluck().get();
    expect(index).toMatch(/WHERE "webhook_deliveries"."status" = 'pending'$/);
  });

  it('an endpoint failing for 3 days is turned off and the Owners are mailed', async () => {
    const { endpoint: e } = await endpoint({ url: 'http://127.0.0.1:9/never' });
    await env.alpha.api.post(`${V1}/clients`, { client: { name: 'Unreachable' } });
    const start = clock().getTime();
    await deliver();
    let passes = 0;
    while ((await caller().webhooks.list()).items[0]?.enabled && passes++ < 100) {
      clock.advance(2 * 3_600_000);
      await deliver();
    }
    // Retried with backoff all along, turned off once the 3 days were over, not before.
    expect(clock().getTime() - start).toBeGreaterThanOrEqual(3 * 24 * 3_600_000);
    expect(clock().getTime() - start).toBeLessThan(3 * 24 * 3_600_000 + 2 * 2 * 3_600_000);
    expect(deliveryRows(e.id)[0]!.attempts).toBeGreaterThan(8);
    const [off] = (await caller().webhooks.list()).items;
    expect(off).toMatchObject({ enabled: false, disabled_reason: expect.stringContaining('3 days') });
    expect(deliveryRows(e.id).map((d) => d.status)).toEqual(['failed']);
    const mail = env.alpha.handle.db.select().from(outbox).where(eq(outbox.kind, 'webhook_disabled')).all();
    expect(mail.map((m) => m.toAddress)).toEqual([email()]);
    expect(mail[0]!.subject).toContain('http://127.0.0.1:9/never');
    // Turned on again by a person, it starts over.
    const { endpoint: on } = await caller().webhooks.update({ email: email(), endpoint_id: e.id, enabled: true });
    expect(on).toMatchObject({ enabled: true, disabled_reason: null, failing_since: null });
  });

  it('with SECRET_KEY the signing secret is stored encrypted, and still signs', async () => {
    const sealed = await startTestEnv({ clock, env: { WEBHOOK_ALLOW_PRIVATE: '1', SECRET_KEY: 'k'.repeat(40) } });
    try {
      const { secret } = await sealed.alpha.caller.webhooks.create({ email: sealed.alpha.ownerEmail, url: receiver.url });
      receiver.secret = secret;
      const stored = sealed.alpha.handle.db.select().from(webhookEndpoints).get()!.secret;
      expect(stored).toMatch(/^enc:v1:/);
      expect(stored).not.toContain(secret.slice(6, 20));
      await sealed.alpha.api.post(`${V1}/clients`, { client: { name: 'Sealed' } });
      await webhooksJob.run(sealed.alpha.handle, sealed.services);
      expect(receiver.refusedSignatures).toBe(0);
      expect(receiver.received.map((r) => r.type)).toEqual(['client.created']);
      // Its tag cut to 4 bytes (which still match) is refused: only the whole tag proves the secret is ours.
      const [iv, tag, body] = stored.slice('enc:v1:'.length).split(':');
      const cut = `enc:v1:${iv}:${Buffer.from(tag!, 'base64').subarray(0, 4).toString('base64')}:${body}`;
      expect(() => sealed.services.secrets.open(cut, scopeOf(sealed.services, sealed.alpha.handle).workspace.id)).toThrow('cannot be decrypted');
      expect(sealed.services.secrets.open(stored, scopeOf(sealed.services, sealed.alpha.handle).workspace.id)).toBe(secret);
    } finally {
      await sealed.close();
    }
  });
});

describe('outbound requests are refused to private addresses', () => {
  it.each(['127.0.0.1', '10.1.2.3', '172.16.0.9', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '0.1.2.3', '::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', 'fc00::1', 'fe80::1', '::7f00:1', '64:ff9b::a00:1', '224.0.0.1', '2001:db8::1'])(
    '%s is not public',
    (address) => expect(isPublicAddress(address)).toBe(false),
  );

  it.each(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('%s is public', (address) => expect(isPublicAddress(address)).toBe(true));

  it('refuses literal private addresses and names resolving to them, without connecting', async () => {
    const port = receiver.port;
    for (const url of [`http://127.0.0.1:${port}/`, `http://[::ffff:127.0.0.1]:${port}/`, `http://localhost:${port}/`, 'http://169.254.169.254/latest/meta-data/', 'http://[::1]/']) {
      const result = await postWebhook(url, {}, '{}', { allowPrivate: false });
      expect(result, url).toMatchObject({ status: null, error: expect.stringMatching(/^refused: .* is not a public address/) });
    }
    expect(receiver.hits).toBe(0);
  });

  it('the delivery job refuses a private receiver unless WEBHOOK_ALLOW_PRIVATE is set', async () => {
    const strict = await startTestEnv({ clock });
    try {
      const { endpoint: e, secret } = await strict.alpha.caller.webhooks.create({ email: strict.alpha.ownerEmail, url: receiver.url });
      receiver.secret = secret;
      await strict.alpha.api.post(`${V1}/clients`, { client: { name: 'Nope' } });
      await webhooksJob.run(strict.alpha.handle, strict.services);
      const { items } = await strict.alpha.caller.webhooks.deliveries({ endpoint_id: e.id });
      expect(items[0]!.attempt_log[0]).toMatchObject({ status_code: null, error: expect.stringContaining('127.0.0.1 is not a public address') });
      expect(receiver.hits).toBe(0);
    } finally {
      await strict.close();
    }
  });

  it('does not follow redirects: a 3xx is a failed attempt and its target is never called', async () => {
    const { endpoint: e } = await endpoint();
    receiver.answers.push({ status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/' } });
    await env.alpha.api.post(`${V1}/clients`, { client: { name: 'Redirected' } });
    await deliver();
    const { items } = await caller().webhooks.deliveries({ endpoint_id: e.id });
    expect(items[0]).toMatchObject({ status: 'pending', last_status_code: 302, last_error: 'redirects are not followed (to http://169.254.169.254/latest/meta-data/)' });
    expect(receiver.hits).toBe(1);
  });

  it('gives up on a receiver that does not answer within the timeout', async () => {
    const silent = createServer(() => {
      // never answers
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as AddressInfo;
      const result = await postWebhook(`http://127.0.0.1:${port}/`, {}, '{}', { allowPrivate: true, timeoutMs: 200 });
      expect(result).toMatchObject({ status: null, body: null, error: 'timed out after 0.2 s' });
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });
});

describe('in a running server', () => {
  it('an event committed while an endpoint was on, and not read before it was turned off, is sent as soon as it is on again', async () => {
    const live = await startTestEnv({ env: { WEBHOOK_ALLOW_PRIVATE: '1' }, jobs: true });
    const waitFor = async (n: number) => {
      for (let i = 0; i < 400 && receiver.received.length < n; i++) await new Promise((r) => setTimeout(r, 5));
    };
    try {
      const owner = live.alpha.ownerEmail;
      const { endpoint: e, secret } = await live.alpha.caller.webhooks.create({ email: owner, url: receiver.url, events: ['client.created'] });
      receiver.secret = secret;
      await live.alpha.api.post(`${V1}/clients`, { client: { name: 'Sent at once' } });
      await waitFor(1);
      // Committed without waking the job, as when it is busy elsewhere: still unread when the endpoint is turned off.
      const scope = scopeOf(live.services, live.alpha.handle);
      scope.write(() => recordEvent(scope, 'client.created', { client: { name: 'Unread when turned off' } }));
      await live.alpha.caller.webhooks.update({ email: owner, endpoint_id: e.id, enabled: false });
      await live.alpha.caller.webhooks.update({ email: owner, endpoint_id: e.id, enabled: true });
      await waitFor(2);
      expect(receiver.received.map((r) => (r.body.data as { client: { name: string } }).client.name)).toEqual(['Sent at once', 'Unread when turned off']);
    } finally {
      await live.close();
    }
  });

  it('a committed change wakes delivery at once, with no pass run by hand', async () => {
    const live = await startTestEnv({ env: { WEBHOOK_ALLOW_PRIVATE: '1' }, jobs: true });
    try {
      const { secret } = await live.alpha.caller.webhooks.create({ email: live.alpha.ownerEmail, url: receiver.url });
      receiver.secret = secret;
      await live.alpha.api.post(`${V1}/clients`, { client: { name: 'Live' } });
      for (let i = 0; i < 2000 && receiver.received.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
      expect(receiver.received.map((r) => r.type)).toEqual(['client.created']);
    } finally {
      await live.close();
    }
  });
});
