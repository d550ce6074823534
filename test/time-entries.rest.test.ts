import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clients, outbox, projectUsers, timeEntries, timeEntryChecklistItems, timeEntryOverrides } from '../src/db/schema/index.ts';
import {
  makeChecklistItem,
  makeClient,
  makeMember,
  makeProject,
  makeProjectSetup,
  makeProjectUser,
  makeTask,
  makeTimeEntry,
} from './helpers/factories.ts';
import { startTestEnv, testClock, type TestEnv } from './helpers/env.ts';
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

type Setup = ReturnType<typeof makeProjectSetup>;
type SetupOptions = Parameters<typeof makeProjectSetup>[1];
const setup = (over: SetupOptions = {}): Setup => makeProjectSetup(env.alpha.handle.db, over);
const bodyFor = (s: Setup, over: Record<string, unknown> = {}) => ({
  client_id: s.client.id,
  project_id: s.project.id,
  task_id: s.task.id,
  email: s.member.email,
  recorded_on: '2026-11-18',
  hours: '1.5',
  ...over,
});
const entryRow = (id: string) => env.alpha.handle.db.select().from(timeEntries).where(eq(timeEntries.id, id)).get();

const RESPONSE_KEYS = [
  'created_at',
  'hours',
  'id',
  'notes',
  'notice_code',
  'organization_id',
  'recorded_on',
  'status',
  'subdomain',
  'task_id',
  'updated_at',
  'user_email',
  'user_id',
].sort();

describe.each([
  { path: '/api/external/v2/time-entries', status: 201 },
  { path: '/api/external/v1/time_entry', status: 200 },
])('POST $path', ({ path, status }) => {
  let base: Setup;
  beforeAll(() => {
    base = setup();
  });
  const post = (body: unknown) => env.alpha.api.post(path, body);
  const expectError = async (body: unknown, httpStatus: number, code: string) => {
    const res = await post(body);
    expect(res.status, JSON.stringify(res.body)).toBe(httpStatus);
    expect(res.body.code).toBe(code);
    expect(typeof res.body.error).toBe('string');
    return res;
  };

  it(`creates an entry: ${status} with exactly the spec's fields`, async () => {
    const s = setup();
    const res = await post(bodyFor(s, { notes: 'Design review' }));
    expect(res.status).toBe(status);
    expect(Object.keys(res.body).sort()).toEqual(RESPONSE_KEYS);
    const workspaceId = env.alpha.handle.sqlite.prepare('select id from workspace').pluck().get();
    expect(res.body).toEqual({
      notice_code: 'time_entry_created',
      organization_id: workspaceId,
      subdomain: 'alpha',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      hours: 1.5,
      notes: 'Design review',
      task_id: s.task.id,
      user_id: s.member.id,
      user_email: s.member.email,
      recorded_on: '2026-11-18',
      status: 'unbilled',
      created_at: NOW,
      updated_at: NOW,
    });
    expect(entryRow(res.body.id)).toMatchObject({
      clientId: s.client.id,
      projectId: s.project.id,
      userId: s.member.id,
      enteredSeconds: 5400,
      seconds: 5400,
      status: 'unbilled',
      isOverride: false,
      invoiceId: null,
    });
  });

  it('reads recorded_on as YYYY-MM-DD or MM/DD/YYYY and refuses impossible dates', async () => {
    const s = setup();
    const us = await post(bodyFor(s, { recorded_on: '11/16/2026' }));
    expect(us.status).toBe(status);
    expect(us.body.recorded_on).toBe('2026-11-16');
    for (const bad of ['02/30/2026', '2026-02-29', '2026-13-01', '16.11.2026', '2026/11/16', 'yesterday', '', 20261116, null]) {
      const res = await expectError(bodyFor(s, { recorded_on: bad }), 422, 'validation_failed');
      expect(res.body.details[0].path, String(bad)).toBe('recorded_on');
    }
  });

  it('requires every required field', async () => {
    const s = setup();
    for (const field of ['client_id', 'project_id', 'task_id', 'email', 'recorded_on', 'hours']) {
      const body: Record<string, unknown> = bodyFor(s);
      delete body[field];
      const res = await expectError(body, 422, 'validation_failed');
      expect(res.body.details.map((d: { path: string }) => d.path), field).toContain(field);
    }
  });

  it.each([
    ['1', 1],
    ['0.25', 0.25],
    ['1:30', 1.5],
    ['24', 24],
    ['0:20', 0.3333],
  ])('hours %j → %d', async (hours, expected) => {
    const s = setup();
    const res = await post(bodyFor(s, { hours }));
    expect(res.status).toBe(status);
    expect(res.body.hours).toBe(expected);
  });

  it.each([['0'], ['-1'], ['24.5'], ['25:00'], ['abc'], [''], ['1,5'], [1.5], [null], [true]])('hours %j → 422', async (hours) => {
    const res = await expectError(bodyFor(base, { hours }), 422, 'validation_failed');
    expect(res.body.details[0].path).toBe('hours');
  });

  it.each([
    [0, '1:01', 1.0167, 3660, 3660],
    [6, '1:01', 1.1, 3960, 3660],
    [15, '1:01', 1.25, 4500, 3660],
    [30, '1:01', 1.5, 5400, 3660],
    [15, '1.25', 1.25, 4500, 4500],
    [15, '1:15:01', 1.5, 5400, 4501],
    [30, '0:30', 0.5, 1800, 1800],
  ])('time_round_upto %i rounds %s up to %d hours', async (step, hours, expected, seconds, enteredSeconds) => {
    const s = setup({ project: { timeRoundUpto: step } });
    const res = await post(bodyFor(s, { hours }));
    expect(res.status).toBe(status);
    expect(res.body.hours).toBe(expected);
    expect(entryRow(res.body.id)).toMatchObject({ seconds, enteredSeconds });
  });

  it('stores the entered duration beside the rounded one', async () => {
    const s = setup({ project: { timeRoundUpto: 15 } });
    const res = await post(bodyFor(s, { hours: '0:50' }));
    expect(entryRow(res.body.id)).toMatchObject({ enteredSeconds: 3000, seconds: 3600 });
  });

  it('notes default to an empty string; null is empty too', async () => {
    const s = setup();
    expect((await post(bodyFor(s))).body.notes).toBe('');
    expect((await post(bodyFor(s, { notes: null }))).body.notes).toBe('');
    await expectError(bodyFor(s, { notes: 42 }), 422, 'validation_failed');
  });

  it('keeps metadata, a JSON object of at most 16 KiB', async () => {
    const s = setup();
    const metadata = { source: 'jira', issue: { key: 'WEB-12', labels: ['a', 'b'] } };
    const res = await post(bodyFor(s, { metadata, hours: '0.5' }));
    expect(res.status).toBe(status);
    expect(JSON.parse(entryRow(res.body.id)!.metadata!)).toEqual(metadata);
    const exactly = { pad: 'x'.repeat(16 * 1024 - '{"pad":""}'.length) };
    expect((await post(bodyFor(s, { metadata: exactly, hours: '0.5' }))).status).toBe(status);
    for (const bad of [{ pad: 'x'.repeat(16 * 1024) }, [1, 2], 'text', 3]) {
      const err = await expectError(bodyFor(s, { metadata: bad }), 422, 'validation_failed');
      expect(err.body.details[0].path).toBe('metadata');
    }
  });

  it('refuses a body nested more than 100 levels deep (422, with or without an Idempotency-Key), never an internal message', async () => {
    const s = setup();
    // As text: 5,000 levels are beyond what JSON.stringify itself can write.
    const withMetadata = (levels: number) => JSON.stringify(bodyFor(s, { hours: '0.5', metadata: 0 })).replace('"metadata":0', `"metadata":${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`);
    const raw = (text: string) => send(env.url, 'POST', path, { host: env.alpha.host, key: env.alpha.key, body: text, headers: { 'content-type': 'application/json' } });
    expect((await raw(withMetadata(99))).status).toBe(status);
    for (const levels of [100, 1000, 5000]) {
      const res = await raw(withMetadata(levels));
      expect(res.status, String(levels)).toBe(422);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.error).toMatch(/more than 100 levels deep/);
      expect(res.body.details).toEqual([{ path: '(body)', message: 'must not nest objects and arrays more than 100 levels deep' }]);
    }
  });

  it("stores checklist items of the entry's task and refuses others", async () => {
    const s = setup();
    const second = makeChecklistItem(env.alpha.handle.db, s.task.id);
    const res = await post(
      bodyFor(s, {
        checklist_items: [
          { id: s.item.id, is_completed: true },
          { id: second.id, is_completed: false },
        ],
      }),
    );
    expect(res.status).toBe(status);
    const stored = env.alpha.handle.db.select().from(timeEntryChecklistItems).where(eq(timeEntryChecklistItems.timeEntryId, res.body.id)).all();
    expect(stored.map((r) => [r.checklistItemId, r.isCompleted]).sort()).toEqual(
      [
        [s.item.id, true],
        [second.id, false],
      ].sort(),
    );

    const otherTask = makeTask(env.alpha.handle.db, s.project.id);
    const foreign = makeChecklistItem(env.alpha.handle.db, otherTask.id);
    const err = await expectError(bodyFor(s, { checklist_items: [{ id: foreign.id, is_completed: true }] }), 422, 'checklist_item_not_in_task');
    expect(err.body.details).toEqual([{ path: 'checklist_items.0.id', message: expect.any(String) }]);
    await expectError(bodyFor(s, { checklist_items: [{ id: 'nope', is_completed: true }] }), 422, 'checklist_item_not_in_task');
    await expectError(
      bodyFor(s, {
        checklist_items: [
          { id: s.item.id, is_completed: true },
          { id: s.item.id, is_completed: false },
        ],
      }),
      422,
      'validation_failed',
    );
    await expectError(bodyFor(s, { checklist_items: [{ id: s.item.id, is_completed: 'yes' }] }), 422, 'validation_failed');
    await expectError(bodyFor(s, { checklist_items: { id: s.item.id } }), 422, 'validation_failed');
  });

  it('404 for unknown or malformed client, project and task ids', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const id of [unknown, 'not-an-id']) {
      await expectError(bodyFor(base, { client_id: id }), 404, 'client_not_found');
      await expectError(bodyFor(base, { project_id: id }), 404, 'project_not_found');
      await expectError(bodyFor(base, { task_id: id }), 404, 'task_not_found');
    }
  });

  it("404 for another workspace's ids, with alpha's key", async () => {
    const b = makeProjectSetup(env.beta.handle.db);
    await expectError(bodyFor(base, { client_id: b.client.id }), 404, 'client_not_found');
    await expectError(bodyFor(base, { project_id: b.project.id }), 404, 'project_not_found');
    await expectError(bodyFor(base, { task_id: b.task.id }), 404, 'task_not_found');
    await expectError(bodyFor(b, { email: base.member.email }), 404, 'client_not_found');
    // beta's members are not alpha's
    await expectError(bodyFor(base, { email: b.member.email }), 422, 'user_not_found');
  });

  it('422 when the project is not the client’s or the task not the project’s', async () => {
    const db = env.alpha.handle.db;
    const otherClient = makeClient(db);
    await expectError(bodyFor(base, { client_id: otherClient.id }), 422, 'project_not_of_client');
    const otherProject = makeProject(db, base.client.id);
    const otherTask = makeTask(db, otherProject.id);
    await expectError(bodyFor(base, { task_id: otherTask.id }), 422, 'task_not_in_project');
  });

  it('422 task_archived and project_archived', async () => {
    const db = env.alpha.handle.db;
    const archivedTask = makeTask(db, base.project.id, { archived: true });
    await expectError(bodyFor(base, { task_id: archivedTask.id }), 422, 'task_archived');
    const s = setup({ project: { status: 'archived' } });
    await expectError(bodyFor(s), 422, 'project_archived');
  });

  it('422 client_archived for an active project of an archived client', async () => {
    const s = setup();
    env.alpha.handle.db.update(clients).set({ status: 'archived' }).where(eq(clients.id, s.client.id)).run();
    await expectError(bodyFor(s), 422, 'client_archived');
  });

  it('the user in email: unknown 422, inactive 403, not a project user 422', async () => {
    const db = env.alpha.handle.db;
    const unknown = await expectError(bodyFor(base, { email: 'nobody@alpha.test' }), 422, 'user_not_found');
    expect(unknown.body.details[0].path).toBe('email');
    const inactive = makeMember(db, { active: false });
    makeProjectUser(db, base.project.id, inactive.id);
    await expectError(bodyFor(base, { email: inactive.email }), 403, 'user_inactive');
    const outsider = makeMember(db);
    await expectError(bodyFor(base, { email: outsider.email }), 422, 'not_a_project_user');
    // Owner and Admin are not exempt: the entry is theirs, so they must be on the project
    await expectError(bodyFor(base, { email: env.alpha.ownerEmail }), 422, 'not_a_project_user');
    await expectError(bodyFor(base, { email: 'not-an-email' }), 422, 'validation_failed');
  });

  it('matches the e-mail without regard to case', async () => {
    const s = setup();
    const res = await post(bodyFor(s, { email: s.member.email.toUpperCase() }));
    expect(res.status).toBe(status);
    expect(res.body.user_email).toBe(s.member.email);
  });

  it("a user's day holds at most 24 hours, across projects; rejected entries do not count", async () => {
    const s = setup();
    expect((await post(bodyFor(s, { hours: '20' }))).status).toBe(status);
    const other = makeProject(env.alpha.handle.db, s.client.id);
    const otherTask = makeTask(env.alpha.handle.db, other.id);
    makeProjectUser(env.alpha.handle.db, other.id, s.member.id);
    expect((await post(bodyFor(s, { project_id: other.id, task_id: otherTask.id, hours: '3:59' }))).status).toBe(status);
    const full = await expectError(bodyFor(s, { hours: '0:02' }), 422, 'daily_limit_exceeded');
    expect(full.body).toMatchObject({ recorded_hours: 23.9833, remaining_hours: 0.0167 });
    expect((await post(bodyFor(s, { hours: '0:01' }))).status).toBe(status);
    await expectError(bodyFor(s, { hours: '0:01' }), 422, 'daily_limit_exceeded');
    // another day is another 24 hours
    expect((await post(bodyFor(s, { hours: '24', recorded_on: '2026-11-17' }))).status).toBe(status);
    // a rejected entry is not time worked
    makeTimeEntry(env.alpha.handle.db, { clientId: s.client.id, projectId: s.project.id, taskId: s.task.id, userId: s.member.id }, { recordedOn: '2026-11-10', seconds: 80000, status: 'rejected' });
    expect((await post(bodyFor(s, { hours: '24', recorded_on: '2026-11-10' }))).status).toBe(status);
  });

  it('the 24-hour day counts rounded time', async () => {
    const s = setup({ project: { timeRoundUpto: 30 } });
    expect((await post(bodyFor(s, { hours: '23:31' }))).body.hours).toBe(24);
    await expectError(bodyFor(s, { hours: '0:01' }), 422, 'daily_limit_exceeded');
  });

  it('accepts dates up to 366 days ahead in the user’s calendar, and none before 2000', async () => {
    const s = setup();
    expect((await post(bodyFor(s, { recorded_on: '2027-11-19' }))).status).toBe(status);
    const far = await expectError(bodyFor(s, { recorded_on: '2027-11-20' }), 422, 'validation_failed');
    expect(far.body.details[0].path).toBe('recorded_on');
    expect((await post(bodyFor(s, { recorded_on: '2000-01-01' }))).status).toBe(status);
    await expectError(bodyFor(s, { recorded_on: '1999-12-31' }), 422, 'validation_failed');
  });

  describe('autolock', () => {
    const locking = { autolockEnabled: true, lockEndOfDay: true };

    it('a locked day → 422 time_entry_locked; the day of grace is open', async () => {
      const s = setup({ project: locking });
      expect((await post(bodyFor(s, { recorded_on: '2026-11-17' }))).status).toBe(status);
      const res = await expectError(bodyFor(s, { recorded_on: '2026-11-16' }), 422, 'time_entry_locked');
      expect(res.body.locked_since).toBe('2026-11-18');
    });

    it('nothing locks without autolock_enabled', async () => {
      const s = setup({ project: { ...locking, autolockEnabled: false } });
      expect((await post(bodyFor(s, { recorded_on: '2026-01-05' }))).status).toBe(status);
    });

    it("is judged in the entry user's time zone", async () => {
      // 18 Nov 10:00 UTC is already 18 Nov in Tokyo and still 18 Nov in Honolulu (00:00)
      const tokyo = setup({ project: locking, member: { timeZone: 'Asia/Tokyo' } });
      const honolulu = setup({ project: locking, member: { timeZone: 'Pacific/Honolulu' } });
      clock.set('2026-11-18T09:59:00.000Z'); // Honolulu: 17 Nov 23:59
      expect((await post(bodyFor(honolulu, { recorded_on: '2026-11-16' }))).status).toBe(status);
      await expectError(bodyFor(tokyo, { recorded_on: '2026-11-16' }), 422, 'time_entry_locked');
      clock.set('2026-11-18T10:00:00.000Z'); // Honolulu: 18 Nov 00:00
      await expectError(bodyFor(honolulu, { recorded_on: '2026-11-16' }), 422, 'time_entry_locked');
    });

    it('end_of_the_week and end_of_the_month', async () => {
      const week = setup({ project: { autolockEnabled: true, lockEndOfWeek: true } });
      expect((await post(bodyFor(week, { recorded_on: '2026-11-16' }))).status).toBe(status);
      await expectError(bodyFor(week, { recorded_on: '2026-11-15' }), 422, 'time_entry_locked');
      const month = setup({ project: { autolockEnabled: true, lockEndOfMonth: true } });
      expect((await post(bodyFor(month, { recorded_on: '2026-11-01' }))).status).toBe(status);
      await expectError(bodyFor(month, { recorded_on: '2026-10-31' }), 422, 'time_entry_locked');
    });

    it('is_override by a regular user → 403 override_not_permitted, nothing stored', async () => {
      const s = setup({ project: locking });
      await expectError(bodyFor(s, { recorded_on: '2026-11-16', is_override: true }), 403, 'override_not_permitted');
      expect(env.alpha.handle.db.select().from(timeEntries).where(eq(timeEntries.userId, s.member.id)).all()).toEqual([]);
    });

    it('is_override by a project manager creates the entry and records the override', async () => {
      const s = setup({ project: locking });
      const db = env.alpha.handle.db;
      db.update(projectUsers).set({ role: 'project_manager' }).where(eq(projectUsers.id, s.projectUser.id)).run();
      const res = await post(bodyFor(s, { recorded_on: '2026-11-16', is_override: true }));
      expect(res.status).toBe(status);
      expect(entryRow(res.body.id)?.isOverride).toBe(true);
      const log = db.select().from(timeEntryOverrides).where(eq(timeEntryOverrides.timeEntryId, res.body.id)).all();
      expect(log).toEqual([
        {
          id: expect.any(String),
          timeEntryId: res.body.id,
          projectId: s.project.id,
          recordedOn: '2026-11-16',
          actorId: s.member.id,
          action: 'create',
          lockedSince: '2026-11-18',
          createdAt: NOW,
        },
      ]);
    });

    it('is_override by an Owner or Admin who works on the project', async () => {
      for (const role of ['Admin', 'Owner']) {
        const s = setup({ project: locking, member: { organizationRole: role } });
        const res = await post(bodyFor(s, { recorded_on: '2026-11-01', is_override: true }));
        expect(res.status, role).toBe(status);
        expect(env.alpha.handle.db.select().from(timeEntryOverrides).where(eq(timeEntryOverrides.timeEntryId, res.body.id)).all()).toHaveLength(1);
      }
    });

    it('is_override on an open day simply creates the entry, without an override row', async () => {
      const s = setup({ project: locking });
      const res = await post(bodyFor(s, { recorded_on: '2026-11-18', is_override: true }));
      expect(res.status).toBe(status);
      expect(env.alpha.handle.db.select().from(timeEntryOverrides).where(eq(timeEntryOverrides.timeEntryId, res.body.id)).all()).toEqual([]);
      // nothing was overridden, so the entry is not marked as an override either
      expect(env.alpha.handle.db.select({ o: timeEntries.isOverride }).from(timeEntries).where(eq(timeEntries.id, res.body.id)).get()).toEqual({ o: false });
      await expectError(bodyFor(s, { is_override: 'true' }), 422, 'validation_failed');
    });
  });

  describe('status and approvals', () => {
    it('non-billable tasks give non_billable entries', async () => {
      const s = setup();
      const task = makeTask(env.alpha.handle.db, s.project.id, { billable: false });
      expect((await post(bodyFor(s, { task_id: task.id }))).body.status).toBe('non_billable');
    });

    it('enable_approvals: pending_approval, unless the project user is auto-approved', async () => {
      const s = setup({ project: { enableApprovals: true } });
      expect((await post(bodyFor(s))).body.status).toBe('pending_approval');
      const auto = makeMember(env.alpha.handle.db);
      makeProjectUser(env.alpha.handle.db, s.project.id, auto.id, { approvalType: 'auto_approval' });
      expect((await post(bodyFor(s, { email: auto.email }))).body.status).toBe('unbilled');
    });

    it('notify instantly: one approval request per project manager in the outbox, with the project reply-to', async () => {
      const db = env.alpha.handle.db;
      const s = setup({ project: { enableApprovals: true, notifyInstantly: true, replyTo: 'pm-team@agency.test' } });
      const pm1 = makeMember(db, { firstName: 'Pat' });
      const pm2 = makeMember(db, { firstName: 'Sam' });
      const gone = makeMember(db, { active: false });
      for (const m of [pm1, pm2, gone]) makeProjectUser(db, s.project.id, m.id, { role: 'project_manager' });
      const before = db.select().from(outbox).all().length;
      const res = await post(bodyFor(s, { hours: '2', notes: 'Sprint planning' }));
      expect(res.body.status).toBe('pending_approval');
      const mails = db.select().from(outbox).all().slice(before);
      expect(mails.map((m) => m.toAddress).sort()).toEqual([pm1.email, pm2.email].sort());
      for (const m of mails) {
        expect(m).toMatchObject({ kind: 'approval_request', replyTo: 'pm-team@agency.test', status: 'pending' });
        expect(m.subject).toContain(s.project.name);
        expect(m.text).toContain(res.body.id);
        expect(m.text).toContain('Sprint planning');
      }
      // a manager's own entry is not sent to themselves
      const own = await post(bodyFor(s, { email: pm1.email, hours: '1' }));
      expect(own.status).toBe(status);
      expect(db.select().from(outbox).all().slice(before + 2).map((m) => m.toAddress)).toEqual([pm2.email]);
    });

    it('no mail without notify instantly, and none when nothing awaits approval', async () => {
      const db = env.alpha.handle.db;
      const quiet = setup({ project: { enableApprovals: true } });
      const noApprovals = setup({ project: { notifyInstantly: true } });
      for (const s of [quiet, noApprovals]) makeProjectUser(db, s.project.id, makeMember(db).id, { role: 'project_manager' });
      const before = db.select().from(outbox).all().length;
      expect((await post(bodyFor(quiet))).status).toBe(status);
      expect((await post(bodyFor(noApprovals))).status).toBe(status);
      expect(db.select().from(outbox).all()).toHaveLength(before);
    });
  });

  it('a refused request changes nothing', async () => {
    const s = setup({ project: { enableApprovals: true, notifyInstantly: true } });
    makeProjectUser(env.alpha.handle.db, s.project.id, makeMember(env.alpha.handle.db).id, { role: 'project_manager' });
    const before = { entries: env.alpha.handle.db.select().from(timeEntries).all().length, mail: env.alpha.handle.db.select().from(outbox).all().length };
    await expectError(bodyFor(s, { checklist_items: [{ id: 'nope', is_completed: true }] }), 422, 'checklist_item_not_in_task');
    await expectError(bodyFor(s, { hours: '25' }), 422, 'validation_failed');
    expect(env.alpha.handle.db.select().from(timeEntries).all()).toHaveLength(before.entries);
    expect(env.alpha.handle.db.select().from(outbox).all()).toHaveLength(before.mail);
  });
});

describe('concurrency', () => {
  it('200 parallel creates all succeed and are all stored', async () => {
    const db = env.alpha.handle.db;
    const s = setup();
    const members = Array.from({ length: 10 }, () => makeMember(db));
    for (const m of members) makeProjectUser(db, s.project.id, m.id);
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        env.alpha.api.post(
          i % 2 === 0 ? '/api/external/v2/time-entries' : '/api/external/v1/time_entry',
          bodyFor(s, { email: members[i % 10]!.email, hours: '1', notes: `parallel ${i}` }),
        ),
      ),
    );
    expect(results.map((r) => r.status).filter((code) => code !== 200 && code !== 201)).toEqual([]);
    const ids = new Set(results.map((r) => r.body.id as string));
    expect(ids.size).toBe(200);
    const stored = db.select().from(timeEntries).where(eq(timeEntries.projectId, s.project.id)).all();
    expect(stored).toHaveLength(200);
    expect(new Set(stored.map((r) => r.id))).toEqual(ids);
    // 20 one-hour entries per member on one day: all within the limit, and a 5th hour more would not be
    expect(
      await env.alpha.api.post('/api/external/v2/time-entries', bodyFor(s, { email: members[0]!.email, hours: '4:01' })),
    ).toMatchObject({ status: 422, body: { code: 'daily_limit_exceeded' } });
  });

  it('parallel creates never break the 24-hour day', async () => {
    const s = setup();
    const results = await Promise.all(Array.from({ length: 40 }, () => env.alpha.api.post('/api/external/v2/time-entries', bodyFor(s, { hours: '1' }))));
    expect(results.filter((r) => r.status === 201)).toHaveLength(24);
    expect(results.filter((r) => r.status === 422 && r.body.code === 'daily_limit_exceeded')).toHaveLength(16);
  });
});
