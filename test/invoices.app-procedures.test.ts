import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEnv, testClock, type TestEnv, type TestWorkspace } from './helpers/env.ts';
import { makeClient, makeRecipient } from './helpers/factories.ts';

/**
 * What the app's invoice screens need of the procedures, through createCaller: `invoices.list`
 * newest first in keyset pages that continue without gaps or repeats (filters still applying), and
 * `invoices.update` with the draft's recipients, validated as creation validates them and used by
 * `invoices.send` later.
 */

let env: TestEnv;
let ws: TestWorkspace;
const clock = testClock('2026-11-18T10:00:00.000Z');
let seq = 0;
const email = () => ws.ownerEmail;
const failure = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: { cause?: { code?: string; details?: { path: string }[] } }) => ({ code: e.cause?.code, paths: (e.cause?.details ?? []).map((d) => d.path) }),
  );

beforeAll(async () => {
  env = await startTestEnv({ clock });
  ws = env.workspace('appgaps');
});
afterAll(() => env.close());

async function draftFor(clientId: string, number = `AG-${String(++seq).padStart(4, '0')}`) {
  const { invoice } = await ws.caller.invoices.create({ email: email(), client_id: clientId, number, total: 100, invoice_services: [{ notes: 'Work', unit_amount: 100 }] });
  return invoice;
}

describe('invoices.list newest first', () => {
  it('pages from the latest invoice back, each page continuing where the last ended, filters applying', async () => {
    const client = makeClient(ws.handle.db, { currency: 'EUR' });
    const made: { id: string; number: string; sent: boolean }[] = [];
    for (let i = 0; i < 13; i++) {
      // Two invoices in the same millisecond now and then: the id breaks the tie the same way on every page.
      if (i % 3 !== 0) clock.advance(1000);
      const inv = await draftFor(client.id);
      const sent = i % 2 === 0;
      if (sent) await ws.caller.invoices.markSent({ email: email(), invoice_id: inv.id });
      made.push({ id: inv.id, number: inv.number, sent });
    }
    const walk = async (filter: { status?: 'draft' | 'sent' }) => {
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await ws.caller.invoices.list({ client_id: client.id, order: 'newest_first', limit: 4, ...filter, ...(cursor && { cursor }) });
        seen.push(...page.items.map((i) => i.id));
        cursor = page.next_cursor ?? undefined;
        pages++;
      } while (cursor);
      return { seen, pages };
    };

    const all = await walk({});
    expect(all.pages).toBe(4);
    expect(new Set(all.seen).size).toBe(13);
    // Newest first is the reverse of oldest first, exactly.
    const oldest = await ws.caller.invoices.list({ client_id: client.id, limit: 200 });
    expect(all.seen).toEqual(oldest.items.map((i) => i.id).reverse());
    // Creation order: the later invoice of every pair created at different times comes first.
    expect(all.seen.slice(0, 2)).toContain(made[12]!.id);
    expect(all.seen.at(-1)).toBe(made[0]!.id);

    const drafts = await walk({ status: 'draft' });
    expect(drafts.seen).toEqual(all.seen.filter((id) => !made.find((m) => m.id === id)!.sent));
    expect(drafts.pages).toBe(2);
  });

  it('a new invoice made while paging does not shift the pages already read', async () => {
    const client = makeClient(ws.handle.db, { currency: 'EUR' });
    for (let i = 0; i < 5; i++) {
      clock.advance(1000);
      await draftFor(client.id);
    }
    const first = await ws.caller.invoices.list({ client_id: client.id, order: 'newest_first', limit: 3 });
    clock.advance(1000);
    await draftFor(client.id);
    const second = await ws.caller.invoices.list({ client_id: client.id, order: 'newest_first', limit: 3, cursor: first.next_cursor! });
    expect(second.items).toHaveLength(2);
    expect(second.next_cursor).toBeNull();
    expect(new Set([...first.items, ...second.items].map((i) => i.id)).size).toBe(5);
  });

  it('refuses an order it does not know, naming the field', async () => {
    expect(await failure(ws.caller.invoices.list({ order: 'sideways' as 'newest_first' }))).toEqual({ code: 'validation_failed', paths: ['order'] });
  });
});

describe('invoices.update recipient_ids', () => {
  it("stores the draft's recipients, replaces them, clears them; sending without naming any uses them", async () => {
    const client = makeClient(ws.handle.db, { currency: 'EUR' });
    const ann = makeRecipient(ws.handle.db, client.id, { name: 'Ann', email: 'ann@client.test' });
    const bob = makeRecipient(ws.handle.db, client.id, { name: 'Bob', email: 'bob@client.test' });
    const draft = await draftFor(client.id);
    expect(draft.id).toBeTruthy();
    const both = await ws.caller.invoices.update({ email: email(), invoice_id: draft.id, recipient_ids: [ann.id, bob.id] });
    expect(both.invoice.recipient_ids.toSorted()).toEqual([ann.id, bob.id].toSorted());
    const one = await ws.caller.invoices.update({ email: email(), invoice_id: draft.id, recipient_ids: [bob.id] });
    expect(one.invoice.recipient_ids).toEqual([bob.id]);
    // Left out: unchanged.
    const other = await ws.caller.invoices.update({ email: email(), invoice_id: draft.id, notes: 'Thanks' });
    expect(other.invoice.recipient_ids).toEqual([bob.id]);
    const view = await ws.caller.invoices.view({ invoice_id: draft.id });
    expect(view.invoice.recipient_ids).toEqual([bob.id]);

    const none = await ws.caller.invoices.update({ email: email(), invoice_id: draft.id, recipient_ids: [] });
    expect(none.invoice.recipient_ids).toEqual([]);
    expect(await failure(ws.caller.invoices.send({ email: email(), invoice_id: draft.id, invoice_details: {} }))).toEqual({
      code: 'validation_failed',
      paths: ['invoice_details.recipient_ids'],
    });

    await ws.caller.invoices.update({ email: email(), invoice_id: draft.id, recipient_ids: [ann.id] });
    const sent = await ws.caller.invoices.send({ email: email(), invoice_id: draft.id, invoice_details: {} });
    expect(sent.queued).toBe(1);
    expect((await ws.caller.invoices.get({ invoice_id: draft.id })).invoice.recipient_ids).toEqual([ann.id]);
  });

  it("refuses a recipient of another client or an unknown id with 422 naming recipient_ids.N, changing nothing", async () => {
    const client = makeClient(ws.handle.db, { currency: 'EUR' });
    const mine = makeRecipient(ws.handle.db, client.id);
    const theirs = makeRecipient(ws.handle.db, makeClient(ws.handle.db).id);
    const gone = makeRecipient(ws.handle.db, client.id, { deleted: true });
    const draft = await draftFor(client.id);
    await ws.caller.invoices.update({ email: email(), invoice_id: draft.id, recipient_ids: [mine.id] });
    for (const [ids, path] of [
      [[mine.id, theirs.id], 'recipient_ids.1'],
      [['no-such-recipient'], 'recipient_ids.0'],
      [[gone.id], 'recipient_ids.0'],
    ] as const) {
      expect(await failure(ws.caller.invoices.update({ email: email(), invoice_id: draft.id, notes: 'changed', recipient_ids: [...ids] }))).toEqual({ code: 'validation_failed', paths: [path] });
    }
    const after = (await ws.caller.invoices.get({ invoice_id: draft.id })).invoice;
    expect(after.recipient_ids).toEqual([mine.id]);
    expect(after.notes).not.toBe('changed');
  });

  it('only a draft takes recipients', async () => {
    const client = makeClient(ws.handle.db, { currency: 'EUR' });
    const r = makeRecipient(ws.handle.db, client.id);
    const inv = await draftFor(client.id);
    await ws.caller.invoices.markSent({ email: email(), invoice_id: inv.id });
    expect(await failure(ws.caller.invoices.update({ email: email(), invoice_id: inv.id, recipient_ids: [r.id] }))).toEqual({ code: 'invoice_not_draft', paths: [] });
  });
});
