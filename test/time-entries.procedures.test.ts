import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clients, outbox, projectUsers, timeEntries, timeEntryChecklistItems } from '../src/db/schema/index.ts';
import { makeChecklistItem, makeClient, makeMember, makeProject, makeProjectSetup, makeProjectUser, makeTask, makeTimeEntry } from './helpers/factories.ts';
import { startTestEnv, testClock, type TestEnv, type TestWorkspace } from './helpers/env.ts';
import { send } from './helpers/http.ts';

let env: TestEnv;
/** Wednesday 18 November 2026, 10:00 UTC. */
const NOW = '2026-11-18T10:00:00.000Z';
const clock = testClock(NOW);

beforeAll(async () => {
  env = await startTestEnv({ clock });
});
afterAll(() => env.close());
afterEach(() => clock.set(NOW));

type Setup = ReturnType<typeof makeProjectSetup> & { pm: ReturnType<typeof makeMember> };
type SetupOptions = Parameters<typeof makeProjectSetup>[1];

/** A project with a regular user (`member`) and a project manager (`pm`). */
function setup(over: SetupOptions = {}, ws: TestWorkspace = env.alpha): Setup {
  const s = makeProjectSetup(ws.handle.db, over);
  const pm = makeMember(ws.handle.db, { firstName: 'Petra', lastName: 'Manager' });
  makeProjectUser(ws.handle.db, s.project.id, pm.id, { role: 'project_manager' });
  return { ...s, pm };
}

const caller = () => env.alpha.caller.timeEntries;
const create = (s: Setup, over: Record<string, unknown> = {}) =>
  caller().create({
    client_id: s.client.id,
    project_id: s.project.id,
    task_id: s.task.id,
    email: s.member.email,
    recorded_on: '2026-11-18',
    hours: '1',
    ...over,
  } as Parameters<ReturnType<typeof caller>['create']>[0]);
const row = (id: string) => env.alpha.handle.db.select().from(timeEntries).where(eq(timeEntries.id, id)).get();
const fails = (code: string) => ({ cause: { code } });

describe('timeEntries.create through the caller', () => {
  it('answers the same body as REST', async () => {
    const s = setup();
    const res = await create(s, { hours: '2:15' });
    expect(res).toMatchObject({ notice_code: 'time_entry_created', hours: 2.25, status: 'unbilled', user_email: s.member.email });
  });
});

describe('timeEntries.list', () => {
  let ws: TestWorkspace;
  let a: Setup;
  let b: Setup;
  const ms = (i: number) => new Date(Date.UTC(2026, 10, 1, 0, 0, 0, i)).toISOString();
  beforeAll(() => {
    ws = env.workspace('listing');
    a = setup({}, ws);
    b = setup({}, ws);
    const refs = (s: Setup) => ({ clientId: s.client.id, projectId: s.project.id, taskId: s.task.id, userId: s.member.id });
    for (let i = 0; i < 12; i++) {
      makeTimeEntry(ws.handle.db, refs(i % 2 === 0 ? a : b), {
        id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        recordedOn: `2026-11-${String(i + 1).padStart(2, '0')}`,
        status: i % 3 === 0 ? 'pending_approval' : 'unbilled',
        createdAt: ms(i),
        updatedAt: ms(i < 10 ? i : 100 + i),
      });
    }
    ws.handle.db.insert(timeEntryChecklistItems).values({ timeEntryId: '00000000-0000-4000-8000-000000000000', checklistItemId: a.item.id, isCompleted: true }).run();
  });
  const ids = async (input: Parameters<TestWorkspace['caller']['timeEntries']['list']>[0]) => {
    const out: number[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await ws.caller.timeEntries.list({ ...input, cursor });
      out.push(...page.items.map((e) => Number(e.id.slice(-12))));
      if (!page.next_cursor) return out;
      cursor = page.next_cursor;
    }
  };

  it('pages through every entry in creation order', async () => {
    expect(await ids({ limit: 5 })).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    const first = await ws.caller.timeEntries.list({ limit: 1 });
    expect(first.items[0]).toEqual({
      id: '00000000-0000-4000-8000-000000000000',
      client_id: a.client.id,
      project_id: a.project.id,
      task_id: a.task.id,
      user_id: a.member.id,
      user_email: a.member.email,
      recorded_on: '2026-11-01',
      hours: 1,
      seconds: 3600,
      entered_seconds: 3600,
      notes: '',
      metadata: null,
      checklist_items: [{ id: a.item.id, is_completed: true }],
      status: 'pending_approval',
      is_override: false,
      invoice_id: null,
      created_at: ms(0),
      updated_at: ms(0),
    });
  });

  it('filters by project, user, date range, status and updated_since', async () => {
    expect(await ids({ project_id: a.project.id, limit: 50 })).toEqual([0, 2, 4, 6, 8, 10]);
    expect(await ids({ user_id: b.member.id, limit: 50 })).toEqual([1, 3, 5, 7, 9, 11]);
    expect(await ids({ from: '2026-11-03', to: '11/05/2026', limit: 50 })).toEqual([2, 3, 4]);
    expect(await ids({ status: 'pending_approval', limit: 50 })).toEqual([0, 3, 6, 9]);
    expect(await ids({ updated_since: ms(50), limit: 50 })).toEqual([10, 11]);
    expect(await ids({ project_id: a.project.id, status: 'pending_approval', from: '2026-11-02', limit: 2 })).toEqual([6]);
    expect(await ids({ project_id: 'unknown', limit: 50 })).toEqual([]);
  });

  it('422 for a bad cursor, range or status', async () => {
    for (const input of [{ cursor: 'garbage' }, { from: '2026-11-05', to: '2026-11-01' }, { status: 'approved' }, { from: '02/30/2026' }, { limit: 0 }]) {
      await expect(ws.caller.timeEntries.list(input as never), JSON.stringify(input)).rejects.toMatchObject(fails('validation_failed'));
    }
  });

  it("never lists another workspace's entries", async () => {
    const page = await env.beta.caller.timeEntries.list({ limit: 200 });
    expect(page.items.filter((e) => e.project_id === a.project.id)).toEqual([]);
  });
});

describe('metadata nested too deeply', () => {
  it('is 422 naming metadata, through the procedure and over tRPC HTTP, never a stack overflow', async () => {
    const s = setup();
    const deep = JSON.parse(`${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`) as object;
    const refused = await create(s, { metadata: deep }).catch((e: { cause: unknown }) => e.cause);
    expect(refused).toMatchObject({ code: 'validation_failed', details: [{ path: 'metadata', message: 'must not nest objects and arrays more than 100 levels deep' }] });
    const input = { client_id: s.client.id, project_id: s.project.id, task_id: s.task.id, email: s.member.email, recorded_on: '2026-11-18', hours: '1', metadata: 0 };
    // As text: 5,000 levels are beyond what JSON.stringify itself can write.
    const body = JSON.stringify(input).replace('"metadata":0', `"metadata":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`);
    const res = await send(env.url, 'POST', '/trpc/timeEntries.create', { host: env.alpha.host, key: env.alpha.key, body, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(422);
    expect(res.body.error.data).toMatchObject({ code: 'validation_failed' });
    expect(JSON.stringify(res.body)).not.toMatch(/call stack/);
  });
});

describe('timeEntries.update', () => {
  const update = (email: string, input: Record<string, unknown>) => caller().update({ email, ...input } as Parameters<ReturnType<typeof caller>['update']>[0]);

  it('changes only the given fields; hours are re-rounded by the project', async () => {
    const s = setup({ project: { timeRoundUpto: 15 } });
    const { id } = await create(s, { notes: 'first', metadata: { a: 1 }, checklist_items: [{ id: s.item.id, is_completed: false }] });
    clock.advance(60_000);
    const res = await update(s.member.email, { time_entry_id: id, hours: '1:01' });
    expect(res.notice_code).toBe('time_entry_updated');
    expect(res.time_entry).toMatchObject({ hours: 1.25, seconds: 4500, entered_seconds: 3660, notes: 'first', metadata: { a: 1 }, recorded_on: '2026-11-18' });
    expect(res.time_entry.checklist_items).toEqual([{ id: s.item.id, is_completed: false }]);
    expect(res.time_entry.updated_at).toBe('2026-11-18T10:01:00.000Z');
    expect(res.time_entry.created_at).toBe(NOW);
    const again = await update(s.member.email, { time_entry_id: id, notes: null, metadata: null, checklist_items: [{ id: s.item.id, is_completed: true }], recorded_on: '11/17/2026' });
    expect(again.time_entry).toMatchObject({ notes: '', metadata: null, recorded_on: '2026-11-17', checklist_items: [{ id: s.item.id, is_completed: true }], seconds: 4500 });
  });

  it('moves to another task of the project, dropping the old task’s checklist items', async () => {
    const s = setup();
    const { id } = await create(s, { checklist_items: [{ id: s.item.id, is_completed: true }] });
    const other = makeTask(env.alpha.handle.db, s.project.id, { billable: false });
    const res = await update(s.member.email, { time_entry_id: id, task_id: other.id });
    expect(res.time_entry).toMatchObject({ task_id: other.id, checklist_items: [], status: 'non_billable' });
    const foreignProject = makeProject(env.alpha.handle.db, s.client.id);
    const foreignTask = makeTask(env.alpha.handle.db, foreignProject.id);
    await expect(update(s.member.email, { time_entry_id: id, task_id: foreignTask.id })).rejects.toMatchObject(fails('task_not_in_project'));
    await expect(update(s.member.email, { time_entry_id: id, task_id: 'nope' })).rejects.toMatchObject(fails('task_not_found'));
    await expect(update(s.member.email, { time_entry_id: id, checklist_items: [{ id: s.item.id, is_completed: true }] })).rejects.toMatchObject(
      fails('checklist_item_not_in_task'),
    );
  });

  it('re-checks the 24-hour day, not counting the entry itself', async () => {
    const s = setup();
    const { id } = await create(s, { hours: '20' });
    await create(s, { hours: '2' });
    expect((await update(s.member.email, { time_entry_id: id, hours: '22' })).time_entry.hours).toBe(22);
    await expect(update(s.member.email, { time_entry_id: id, hours: '22:01' })).rejects.toMatchObject(fails('daily_limit_exceeded'));
    await create(s, { hours: '23', recorded_on: '2026-11-16' });
    await expect(update(s.member.email, { time_entry_id: id, recorded_on: '2026-11-16' })).rejects.toMatchObject(fails('daily_limit_exceeded'));
    await expect(update(s.member.email, { time_entry_id: id, hours: '0' })).rejects.toMatchObject(fails('validation_failed'));
  });

  it("the entry's user, its project managers, Owner and Admin may edit; others 403", async () => {
    const s = setup();
    const { id } = await create(s);
    const admin = makeMember(env.alpha.handle.db, { organizationRole: 'Admin' });
    for (const email of [s.member.email, s.pm.email, env.alpha.ownerEmail, admin.email]) {
      expect((await update(email, { time_entry_id: id, notes: `by ${email}` })).time_entry.notes).toBe(`by ${email}`);
    }
    const colleague = makeMember(env.alpha.handle.db);
    makeProjectUser(env.alpha.handle.db, s.project.id, colleague.id);
    const otherPm = setup().pm;
    for (const email of [colleague.email, otherPm.email]) {
      await expect(update(email, { time_entry_id: id, notes: 'x' })).rejects.toMatchObject({ code: 'FORBIDDEN', cause: { code: 'forbidden' } });
    }
  });

  it('404 for unknown, malformed and other-workspace ids', async () => {
    const b = setup({}, env.beta);
    const betaEntry = makeTimeEntry(env.beta.handle.db, { clientId: b.client.id, projectId: b.project.id, taskId: b.task.id, userId: b.member.id });
    for (const id of ['00000000-0000-4000-8000-000000000000', 'nope', betaEntry.id]) {
      await expect(update(env.alpha.ownerEmail, { time_entry_id: id, notes: 'x' })).rejects.toMatchObject({ code: 'NOT_FOUND', cause: { code: 'time_entry_not_found' } });
    }
  });

  it('refuses billed entries and entries of archived projects', async () => {
    const s = setup();
    const refs = { clientId: s.client.id, projectId: s.project.id, taskId: s.task.id, userId: s.member.id };
    const billed = makeTimeEntry(env.alpha.handle.db, refs, { status: 'billed', invoiceId: 'inv' });
    await expect(update(env.alpha.ownerEmail, { time_entry_id: billed.id, notes: 'x' })).rejects.toMatchObject(fails('time_entry_billed'));
    await expect(caller().delete({ email: env.alpha.ownerEmail, time_entry_id: billed.id })).rejects.toMatchObject(fails('time_entry_billed'));
    const archived = setup({ project: { status: 'archived' } });
    const e = makeTimeEntry(env.alpha.handle.db, { clientId: archived.client.id, projectId: archived.project.id, taskId: archived.task.id, userId: archived.member.id });
    await expect(update(env.alpha.ownerEmail, { time_entry_id: e.id, notes: 'x' })).rejects.toMatchObject(fails('project_archived'));
  });

  it('adds or moves no time for an archived client, nor for a person taken off the project; notes may still be corrected', async () => {
    const db = env.alpha.handle.db;
    const s = setup();
    const entry = await create(s, { hours: '1' });
    db.update(clients).set({ status: 'archived' }).where(eq(clients.id, s.client.id)).run();
    await expect(update(s.member.email, { time_entry_id: entry.id, hours: '8' })).rejects.toMatchObject(fails('client_archived'));
    await expect(update(s.member.email, { time_entry_id: entry.id, recorded_on: '2026-11-17' })).rejects.toMatchObject(fails('client_archived'));
    expect(row(entry.id)).toMatchObject({ seconds: 3600, recordedOn: '2026-11-18' });
    expect(await update(s.member.email, { time_entry_id: entry.id, notes: 'Kick-off' })).toMatchObject({ time_entry: { notes: 'Kick-off' } });

    const t = setup();
    const theirs = await create(t, { hours: '1' });
    db.delete(projectUsers).where(eq(projectUsers.userId, t.member.id)).run();
    for (const change of [{ hours: '10' }, { recorded_on: '2026-11-17' }, { task_id: makeTask(db, t.project.id).id }]) {
      await expect(update(t.member.email, { time_entry_id: theirs.id, ...change })).rejects.toMatchObject(fails('not_a_project_user'));
      // Nor through a manager: the time would still be the removed person's.
      await expect(update(t.pm.email, { time_entry_id: theirs.id, ...change })).rejects.toMatchObject(fails('not_a_project_user'));
    }
    expect(row(theirs.id)).toMatchObject({ seconds: 3600, recordedOn: '2026-11-18', taskId: t.task.id });
    expect(await update(t.member.email, { time_entry_id: theirs.id, notes: 'Handover' })).toMatchObject({ time_entry: { notes: 'Handover' } });
  });

  it('locked entries: 422 without override, 403 for a regular user, logged for a manager', async () => {
    const s = setup({ project: { autolockEnabled: true, lockEndOfDay: true } });
    const refs = { clientId: s.client.id, projectId: s.project.id, taskId: s.task.id, userId: s.member.id };
    const old = makeTimeEntry(env.alpha.handle.db, refs, { recordedOn: '2026-11-10' });
    await expect(update(s.member.email, { time_entry_id: old.id, notes: 'x' })).rejects.toMatchObject(fails('time_entry_locked'));
    await expect(update(s.member.email, { time_entry_id: old.id, notes: 'x', is_override: true })).rejects.toMatchObject(fails('override_not_permitted'));
    await expect(update(s.pm.email, { time_entry_id: old.id, notes: 'x' })).rejects.toMatchObject(fails('time_entry_locked'));
    const res = await update(s.pm.email, { time_entry_id: old.id, notes: 'fixed', is_override: true });
    expect(res.time_entry).toMatchObject({ notes: 'fixed', is_override: true });

    // moving an open entry into a locked day needs the override too
    const { id } = await create(s);
    clock.advance(1000);
    await expect(update(s.member.email, { time_entry_id: id, recorded_on: '2026-11-02' })).rejects.toMatchObject(fails('time_entry_locked'));
    await update(s.pm.email, { time_entry_id: id, recorded_on: '2026-11-02', is_override: true });

    const log = await caller().overrides({ project_id: s.project.id, limit: 50 });
    expect(log.items).toEqual([
      {
        id: expect.any(String),
        time_entry_id: old.id,
        project_id: s.project.id,
        recorded_on: '2026-11-10',
        action: 'update',
        locked_since: '2026-11-12',
        actor_id: s.pm.id,
        actor_email: s.pm.email,
        created_at: NOW,
      },
      expect.objectContaining({ time_entry_id: id, action: 'update', recorded_on: '2026-11-02', locked_since: '2026-11-04' }),
    ]);
  });

  it('a rejected entry is resubmitted by an edit and the managers are told again', async () => {
    const s = setup({ project: { enableApprovals: true, notifyInstantly: true } });
    const { id } = await create(s);
    await caller().reject({ email: s.pm.email, time_entry_id: id });
    const before = env.alpha.handle.db.select().from(outbox).all().length;
    const res = await update(s.member.email, { time_entry_id: id, hours: '0.5', notes: 'split the meeting' });
    expect(res.time_entry.status).toBe('pending_approval');
    const mails = env.alpha.handle.db.select().from(outbox).all().slice(before);
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatchObject({ kind: 'approval_request', toAddress: s.pm.email });
  });

  it('an edit that resubmits a rejected entry counts it in its day again: refused past 24 hours, even when only the notes change', async () => {
    const s = setup({ project: { enableApprovals: true } });
    const { id } = await create(s, { hours: '20' });
    await caller().reject({ email: s.pm.email, time_entry_id: id });
    // rejected entries do not count, so the day takes 10 more hours
    await create(s, { hours: '10' });
    await expect(update(s.member.email, { time_entry_id: id, notes: 'fixed' })).rejects.toMatchObject(fails('daily_limit_exceeded'));
    expect(row(id)).toMatchObject({ status: 'rejected', notes: '' });
    const res = await update(s.member.email, { time_entry_id: id, hours: '14', notes: 'fixed' });
    expect(res.time_entry).toMatchObject({ status: 'pending_approval', hours: 14 });
  });

  it("an approved entry's changed work goes back for approval unless a manager changes it", async () => {
    const s = setup({ project: { enableApprovals: true } });
    const { id } = await create(s);
    await caller().approve({ email: s.pm.email, time_entry_id: id });
    expect((await update(s.member.email, { time_entry_id: id, notes: 'only notes' })).time_entry.status).toBe('unbilled');
    expect((await update(s.pm.email, { time_entry_id: id, hours: '2' })).time_entry.status).toBe('unbilled');
    expect((await update(s.member.email, { time_entry_id: id, hours: '3' })).time_entry.status).toBe('pending_approval');
  });
});

describe('timeEntries.delete', () => {
  it('deletes the entry and its checklist items', async () => {
    const s = setup();
    const { id } = await create(s, { checklist_items: [{ id: s.item.id, is_completed: true }] });
    expect(await caller().delete({ email: s.member.email, time_entry_id: id })).toEqual({ notice_code: 'time_entry_deleted', time_entry_id: id });
    expect(row(id)).toBeUndefined();
    expect(env.alpha.handle.db.select().from(timeEntryChecklistItems).where(eq(timeEntryChecklistItems.timeEntryId, id)).all()).toEqual([]);
    await expect(caller().delete({ email: s.member.email, time_entry_id: id })).rejects.toMatchObject(fails('time_entry_not_found'));
  });

  it('locked: refused without override; a manager override is logged and outlives the entry', async () => {
    const s = setup({ project: { autolockEnabled: true, lockEndOfWeek: true } });
    const old = makeTimeEntry(env.alpha.handle.db, { clientId: s.client.id, projectId: s.project.id, taskId: s.task.id, userId: s.member.id }, { recordedOn: '2026-11-13' });
    await expect(caller().delete({ email: s.member.email, time_entry_id: old.id })).rejects.toMatchObject(fails('time_entry_locked'));
    await expect(caller().delete({ email: s.member.email, time_entry_id: old.id, is_override: true })).rejects.toMatchObject(fails('override_not_permitted'));
    const stranger = makeMember(env.alpha.handle.db);
    await expect(caller().delete({ email: stranger.email, time_entry_id: old.id })).rejects.toMatchObject(fails('forbidden'));
    await caller().delete({ email: env.alpha.ownerEmail, time_entry_id: old.id, is_override: true });
    expect(row(old.id)).toBeUndefined();
    const log = await caller().overrides({ project_id: s.project.id, limit: 10 });
    expect(log.items).toEqual([
      expect.objectContaining({ time_entry_id: old.id, action: 'delete', actor_id: env.alpha.ownerId, recorded_on: '2026-11-13', locked_since: '2026-11-16' }),
    ]);
  });
});

describe('approvals', () => {
  it('a project manager approves: billable → unbilled, non-billable → non_billable', async () => {
    const s = setup({ project: { enableApprovals: true } });
    const nb = makeTask(env.alpha.handle.db, s.project.id, { billable: false });
    const a = await create(s);
    const b = await create(s, { task_id: nb.id });
    expect([a.status, b.status]).toEqual(['pending_approval', 'pending_approval']);
    clock.advance(1000);
    const res = await caller().approve({ email: s.pm.email, time_entry_ids: [a.id, b.id] });
    expect(res.notice_code).toBe('time_entries_approved');
    expect(res.time_entries.map((e) => [e.id, e.status, e.updated_at])).toEqual([
      [a.id, 'unbilled', '2026-11-18T10:00:01.000Z'],
      [b.id, 'non_billable', '2026-11-18T10:00:01.000Z'],
    ]);
  });

  it('reject by a single id; Owner/Admin may decide any project', async () => {
    const s = setup({ project: { enableApprovals: true } });
    const a = await create(s);
    const res = await caller().reject({ email: env.alpha.ownerEmail, time_entry_id: a.id });
    expect(res).toMatchObject({ notice_code: 'time_entries_rejected', time_entries: [{ id: a.id, status: 'rejected' }] });
    expect(row(a.id)?.status).toBe('rejected');
  });

  it('regular users and managers of other projects may not decide (403); nothing changes', async () => {
    const s = setup({ project: { enableApprovals: true } });
    const other = setup({ project: { enableApprovals: true } });
    const mine = await create(s);
    const theirs = await create(other);
    for (const email of [s.member.email, other.pm.email]) {
      await expect(caller().approve({ email, time_entry_id: mine.id })).rejects.toMatchObject({ code: 'FORBIDDEN', cause: { code: 'forbidden' } });
    }
    // managing one of the two projects is not enough for a batch over both
    await expect(caller().approve({ email: s.pm.email, time_entry_ids: [mine.id, theirs.id] })).rejects.toMatchObject(fails('forbidden'));
    expect([row(mine.id)?.status, row(theirs.id)?.status]).toEqual(['pending_approval', 'pending_approval']);
  });

  it('only pending entries; unknown ids 404; all or nothing', async () => {
    const s = setup({ project: { enableApprovals: true } });
    const a = await create(s);
    const b = await create(s);
    await caller().approve({ email: s.pm.email, time_entry_id: a.id });
    await expect(caller().reject({ email: s.pm.email, time_entry_ids: [b.id, a.id] })).rejects.toMatchObject({
      cause: { code: 'time_entry_not_pending', extra: { not_pending_ids: [a.id] } },
    });
    await expect(caller().approve({ email: s.pm.email, time_entry_ids: [b.id, 'missing'] })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      cause: { code: 'time_entry_not_found', extra: { missing_ids: ['missing'] } },
    });
    expect(row(b.id)?.status).toBe('pending_approval');
    const plain = setup();
    const unbilled = await create(plain);
    await expect(caller().approve({ email: env.alpha.ownerEmail, time_entry_id: unbilled.id })).rejects.toMatchObject(fails('time_entry_not_pending'));
  });

  it('needs exactly one of time_entry_id and time_entry_ids', async () => {
    const s = setup({ project: { enableApprovals: true } });
    const a = await create(s);
    for (const input of [{}, { time_entry_id: a.id, time_entry_ids: [a.id] }, { time_entry_ids: [] }]) {
      await expect(caller().approve({ email: s.pm.email, ...input })).rejects.toMatchObject(fails('validation_failed'));
    }
  });
});

describe('timeEntries.overrides', () => {
  it('lists every override in order, with keyset pages, across projects', async () => {
    const ws = env.workspace('overrides');
    const db = ws.handle.db;
    const client = makeClient(db);
    const admin = makeMember(db, { organizationRole: 'Admin' });
    const projects = [0, 1].map(() => makeProject(db, client.id, { autolockEnabled: true, lockEndOfMonth: true }));
    const tasks = projects.map((p) => makeTask(db, p.id));
    for (const p of projects) makeProjectUser(db, p.id, admin.id);
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      clock.advance(1000);
      const p = i % 2;
      const res = await ws.caller.timeEntries.create({
        email: admin.email,
        client_id: client.id,
        project_id: projects[p]!.id,
        task_id: tasks[p]!.id,
        recorded_on: `2026-10-${10 + i}`,
        hours: '1',
        is_override: true,
      });
      made.push(res.id);
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await ws.caller.timeEntries.overrides({ limit: 2, cursor });
      seen.push(...page.items.map((o) => o.time_entry_id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(made);
    const second = await ws.caller.timeEntries.overrides({ limit: 10, project_id: projects[1]!.id });
    expect(second.items.map((o) => o.time_entry_id)).toEqual([made[1], made[3]]);
    expect(second.items.every((o) => o.action === 'create' && o.actor_email === admin.email && o.locked_since === '2026-11-01')).toBe(true);
    await expect(ws.caller.timeEntries.overrides({ cursor: 'bad' })).rejects.toMatchObject(fails('validation_failed'));
  });

  it('an entry with checklist items on another task still fails before any override is logged', async () => {
    const s = setup({ project: { autolockEnabled: true, lockEndOfDay: true } });
    const other = makeTask(env.alpha.handle.db, s.project.id);
    const foreign = makeChecklistItem(env.alpha.handle.db, other.id);
    await expect(
      create(s, { email: s.pm.email, recorded_on: '2026-11-01', is_override: true, checklist_items: [{ id: foreign.id, is_completed: true }] }),
    ).rejects.toMatchObject(fails('checklist_item_not_in_task'));
    expect((await caller().overrides({ project_id: s.project.id })).items).toEqual([]);
  });
});
