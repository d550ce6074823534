import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checklistItems, projects, projectUsers, tasks, timeEntries } from '../src/db/schema/index.ts';
import { makeChecklistItem, makeClient, makeMember, makeProject, makeProjectUser, makeTask, makeTimeEntry } from './helpers/factories.ts';
import { startTestEnv, testClock, type TestEnv } from './helpers/env.ts';

let env: TestEnv;
const clock = testClock('2026-11-18T10:00:00.000Z');
const V1 = '/api/external/v1';

let clientId: string;
let adminEmail: string;
let memberEmail: string;
let memberId: string;
let otherMemberId: string;
let inactiveMemberId: string;

beforeAll(async () => {
  env = await startTestEnv({ clock });
  const db = env.alpha.handle.db;
  clientId = makeClient(db, { name: 'Acme Corporation', identifier: 'ACME', currency: 'USD' }).id;
  adminEmail = makeMember(db, { organizationRole: 'Admin', email: 'admin@alpha.test' }).email;
  const member = makeMember(db, { organizationRole: 'Member', email: 'member@alpha.test', firstName: 'Grace', lastName: 'Hopper' });
  memberEmail = member.email;
  memberId = member.id;
  otherMemberId = makeMember(db, { email: 'other@alpha.test' }).id;
  inactiveMemberId = makeMember(db, { email: 'gone@alpha.test', active: false }).id;
});
afterAll(() => env.close());

const tick = () => clock.advance(60_000);
const create = (project: Record<string, unknown>, email: string = env.alpha.ownerEmail) => {
  tick();
  return env.alpha.api.post(`${V1}/projects`, { project, email });
};
const update = (projectId: string, project: Record<string, unknown>, email: string = env.alpha.ownerEmail) => {
  tick();
  return env.alpha.api.patch(`${V1}/projects/${projectId}`, { project, email });
};
const hourly = (over: Record<string, unknown> = {}) => ({ name: 'Website', client_id: clientId, billing_method: 'hourly_project_rate', hourly_rate: 120, ...over });
const projectRow = (id: string) => env.alpha.handle.db.select().from(projects).where(eq(projects.id, id)).get();

const PROJECT_KEYS = [
  'autolock_enabled',
  'autolock_settings',
  'billing_method',
  'client_id',
  'created_at',
  'currency',
  'enable_approvals',
  'flat_amount',
  'hourly_rate',
  'id',
  'identifier',
  'internal_notes',
  'last_invoice_id',
  'name',
  'notify_timesheet_approval_request_instantly',
  'reply_to',
  'status',
  'tasks',
  'time_round_upto',
  'timesheet_approval_email_notification_day',
  'timesheet_approval_email_notification_time',
  'updated_at',
];

describe('POST v1 /projects (endpoint 11)', () => {

  it('creates a project with tasks, checklist items and users in the spec shape', async () => {
    const res = await create({
      name: 'Website relaunch',
      client_id: clientId,
      billing_method: 'hourly_project_rate',
      hourly_rate: 150.5,
      internal_notes: 'Phase 1',
      time_round_upto: 15,
      autolock_enabled: true,
      autolock_settings: { end_of_the_day: false, end_of_the_week: true, end_of_the_month: false },
      reply_to: 'PM@Acme.EXAMPLE',
      enable_approvals: true,
      notify_timesheet_approval_request_instantly: true,
      notify_timesheet_approval_request_weekly: true,
      timesheet_approval_email_notification_day: 'friday',
      timesheet_approval_email_notification_time: '16:30',
      tasks_attributes: [
        { name: 'Design', billable: true, hourly_rate: 90, checklists_attributes: [{ description: 'Wireframes' }, { description: 'Mockups' }] },
        { name: 'Meetings', billable: false },
      ],
      project_users_attributes: [
        { user_id: memberId, role: 'regular_user', hourly_rate: 80, approval_type: 'auto_approval' },
        { user_id: otherMemberId, role: 'project_manager' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.notice_code).toBe('project_created');
    expect(Object.keys(res.body).sort()).toEqual(['notice_code', 'project']);
    const p = res.body.project;
    expect(Object.keys(p).sort()).toEqual(PROJECT_KEYS);
    expect(p).toMatchObject({
      name: 'Website relaunch',
      identifier: expect.stringMatching(/^ACME-\d{4}$/),
      billing_method: 'hourly_project_rate',
      flat_amount: null,
      status: 'active',
      last_invoice_id: null,
      internal_notes: 'Phase 1',
      currency: 'USD',
      reply_to: 'PM@acme.example',
      timesheet_approval_email_notification_day: 'friday',
      timesheet_approval_email_notification_time: '16:30',
      client_id: clientId,
      hourly_rate: 150.5,
      time_round_upto: 15,
      autolock_enabled: true,
      enable_approvals: true,
      notify_timesheet_approval_request_instantly: true,
      autolock_settings: { end_of_the_day: 'false', end_of_the_week: 'true', end_of_the_month: 'false' },
      created_at: clock().toISOString(),
      updated_at: clock().toISOString(),
    });
    expect(p).not.toHaveProperty('notify_timesheet_approval_request_weekly');
    expect(p.tasks).toEqual([
      {
        id: expect.any(String),
        name: 'Design',
        billable: true,
        hourly_rate: 90,
        archived: false,
        checklist_items: [
          { id: expect.any(String), description: 'Wireframes' },
          { id: expect.any(String), description: 'Mockups' },
        ],
      },
      // A task without its own rate bills at the project's rate.
      { id: expect.any(String), name: 'Meetings', billable: false, hourly_rate: 150.5, archived: false, checklist_items: [] },
    ]);
    const row = projectRow(p.id)!;
    expect(row.hourlyRateMinor).toBe(15050);
    expect(row.notifyWeekly).toBe(true);
    const users = env.alpha.handle.db.select().from(projectUsers).where(eq(projectUsers.projectId, p.id)).all();
    const byUser = new Map(users.map((u) => [u.userId, u]));
    expect(byUser.get(memberId)).toMatchObject({ role: 'regular_user', hourlyRateMinor: 8000, approvalType: 'auto_approval' });
    expect(byUser.get(otherMemberId)).toMatchObject({ role: 'project_manager', hourlyRateMinor: 15050, approvalType: 'manual_approval' });
    // The acting Owner was not listed, so joins as project manager.
    expect(byUser.get(env.alpha.ownerId)).toMatchObject({ role: 'project_manager' });
    expect(users).toHaveLength(3);
  });

  it('numbers identifiers per client: CODE-0001, CODE-0002, ...', async () => {
    const other = makeClient(env.alpha.handle.db, { name: 'Zeta', identifier: 'ZETA' });
    const first = await create(hourly({ client_id: other.id }));
    const second = await create(hourly({ client_id: other.id, name: 'Second' }));
    expect(first.body.project.identifier).toBe('ZETA-0001');
    expect(second.body.project.identifier).toBe('ZETA-0002');
    // A gap from an earlier project (even one written by hand) is never reused.
    makeProject(env.alpha.handle.db, other.id, { identifier: 'ZETA-0041' });
    const third = await create(hourly({ client_id: other.id, name: 'Third' }));
    expect(third.body.project.identifier).toBe('ZETA-0042');
  });

  it('keeps the acting user with their listed role when listed', async () => {
    const res = await create(hourly({ project_users_attributes: [{ user_id: env.alpha.ownerId, role: 'regular_user' }] }));
    expect(res.status).toBe(200);
    const users = env.alpha.handle.db.select().from(projectUsers).where(eq(projectUsers.projectId, res.body.project.id)).all();
    expect(users).toEqual([expect.objectContaining({ userId: env.alpha.ownerId, role: 'regular_user' })]);
  });

  it('an Admin may create; a Member gets 403 forbidden and nothing is written', async () => {
    expect((await create(hourly({ name: 'By admin' }), adminEmail)).status).toBe(200);
    const before = env.alpha.handle.db.select().from(projects).all().length;
    const res = await create(hourly({ name: 'By member' }), memberEmail);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('forbidden');
    expect(env.alpha.handle.db.select().from(projects).all()).toHaveLength(before);
  });

  it('unknown acting user → 422 user_not_found; inactive → 403 user_inactive; missing email → 422', async () => {
    expect((await create(hourly(), 'nobody@alpha.test')).body.code).toBe('user_not_found');
    const inactive = makeMember(env.alpha.handle.db, { organizationRole: 'Admin', active: false });
    const res = await create(hourly(), inactive.email);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('user_inactive');
    const noEmail = await env.alpha.api.post(`${V1}/projects`, { project: hourly() });
    expect(noEmail.status).toBe(422);
    expect(noEmail.body.details[0].path).toBe('email');
  });

  it('requires project, name, client_id and billing_method', async () => {
    const noProject = await env.alpha.api.post(`${V1}/projects`, { email: env.alpha.ownerEmail });
    expect(noProject.status).toBe(422);
    expect(noProject.body.details[0].path).toBe('project');
    const res = await create({});
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.details.map((d: { path: string }) => d.path).sort()).toEqual(['project.billing_method', 'project.client_id', 'project.name']);
    expect((await create(hourly({ name: '   ' }))).body.details[0].path).toBe('project.name');
  });

  it('client must be a client of this workspace (404) and active (422 client_archived)', async () => {
    const unknown = await create(hourly({ client_id: '00000000-0000-4000-8000-000000000000' }));
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('client_not_found');
    const betaClient = makeClient(env.beta.handle.db);
    expect((await create(hourly({ client_id: betaClient.id }))).status).toBe(404);
    expect((await create(hourly({ client_id: 'not-a-uuid' }))).body.code).toBe('client_not_found');
    const archived = makeClient(env.alpha.handle.db, { status: 'archived' });
    const res = await create(hourly({ client_id: archived.id }));
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('client_archived');
  });

  it.each(['weekly', 'Hourly_project_rate', '', 3])('422 for billing_method %s', async (billing_method) => {
    const res = await create(hourly({ billing_method }));
    expect(res.status).toBe(422);
    expect(res.body.details[0]).toEqual({ path: 'project.billing_method', message: expect.stringContaining('hourly_project_rate') });
  });

  describe('billing rules', () => {
    it('hourly_project_rate requires hourly_rate > 0', async () => {
      for (const hourly_rate of [undefined, 0]) {
        const res = await create(hourly({ hourly_rate }));
        expect(res.status).toBe(422);
        expect(res.body.details).toEqual([{ path: 'project.hourly_rate', message: expect.stringContaining('greater than 0') }]);
      }
      const ok = await create(hourly({ hourly_rate: 0.01 }));
      expect(ok.status).toBe(200);
      expect(ok.body.project.hourly_rate).toBe(0.01);
    });

    it('fixed_price_project requires flat_amount > 0, and answers it as a string with the currency decimals', async () => {
      for (const flat_amount of [undefined, null, 0]) {
        const res = await create({ name: 'Fixed', client_id: clientId, billing_method: 'fixed_price_project', flat_amount });
        expect(res.status).toBe(422);
        expect(res.body.details).toEqual([{ path: 'project.flat_amount', message: expect.stringContaining('greater than 0') }]);
      }
      const ok = await create({ name: 'Fixed', client_id: clientId, billing_method: 'fixed_price_project', flat_amount: 1500 });
      expect(ok.status).toBe(200);
      expect(ok.body.project).toMatchObject({ billing_method: 'fixed_price_project', flat_amount: '1500.00', hourly_rate: 0 });
      const jpy = makeClient(env.alpha.handle.db, { currency: 'JPY' });
      const yen = await create({ name: 'Fixed', client_id: jpy.id, billing_method: 'fixed_price_project', flat_amount: 250000 });
      expect(yen.body.project).toMatchObject({ currency: 'JPY', flat_amount: '250000' });
    });

    it('hourly_person_rate and hourly_task_rate need neither amount', async () => {
      for (const billing_method of ['hourly_person_rate', 'hourly_task_rate']) {
        const res = await create({ name: billing_method, client_id: clientId, billing_method });
        expect(res.status).toBe(200);
        expect(res.body.project).toMatchObject({ billing_method, hourly_rate: 0, flat_amount: null });
      }
    });

    it('flat_amount on a project that is not fixed-price is kept and answered as stored (the vendor publishes such bodies)', async () => {
      const res = await create(hourly({ flat_amount: 100 }));
      expect(res.status).toBe(200);
      expect(res.body.project).toMatchObject({ billing_method: 'hourly_project_rate', flat_amount: '100.00' });
      expect((await create(hourly({ flat_amount: null }))).body.project.flat_amount).toBeNull();
      expect((await create(hourly({ flat_amount: 0 }))).body.project.flat_amount).toBe('0.00');
      const bad = await create(hourly({ flat_amount: 1.005 }));
      expect(bad.status).toBe(422);
      expect(bad.body.details).toEqual([{ path: 'project.flat_amount', message: 'must have at most 2 decimals in USD' }]);
    });

    it('amounts: negative, non-numbers and more decimals than the currency → 422 naming the field', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ hourly_rate: -5 }, 'project.hourly_rate'],
        [{ hourly_rate: '120' }, 'project.hourly_rate'],
        [{ hourly_rate: 12.345 }, 'project.hourly_rate'],
        [{ billing_method: 'fixed_price_project', flat_amount: 10.001 }, 'project.flat_amount'],
        [{ tasks_attributes: [{ name: 'T', hourly_rate: 1.234 }] }, 'project.tasks_attributes.0.hourly_rate'],
        [{ tasks_attributes: [{ name: 'T', hourly_rate: -1 }] }, 'project.tasks_attributes.0.hourly_rate'],
        [{ project_users_attributes: [{ user_id: memberId, hourly_rate: 0.005 }] }, 'project.project_users_attributes.0.hourly_rate'],
      ];
      for (const [over, path] of cases) {
        const res = await create(hourly(over));
        expect(res.status, JSON.stringify(over)).toBe(422);
        expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
      }
      const jpy = makeClient(env.alpha.handle.db, { currency: 'JPY' });
      const yen = await create(hourly({ client_id: jpy.id, hourly_rate: 1000.5 }));
      expect(yen.body.details).toEqual([{ path: 'project.hourly_rate', message: 'must be a whole amount in JPY' }]);
    });

    it('reports every broken rule at once', async () => {
      const res = await create(hourly({ hourly_rate: 0, time_round_upto: 7, timesheet_approval_email_notification_time: '25:00' }));
      expect(res.status).toBe(422);
      expect(res.body.details.map((d: { path: string }) => d.path).sort()).toEqual([
        'project.time_round_upto',
        'project.timesheet_approval_email_notification_time',
      ]);
      const rules = await create(hourly({ hourly_rate: 0, flat_amount: 3.001, autolock_enabled: true }));
      expect(rules.body.details.map((d: { path: string }) => d.path).sort()).toEqual([
        'project.autolock_settings',
        'project.flat_amount',
        'project.hourly_rate',
      ]);
    });
  });

  describe('enums and formats', () => {
    it.each([0, 6, 15, 30])('time_round_upto %i is accepted', async (time_round_upto) => {
      const res = await create(hourly({ time_round_upto }));
      expect(res.status).toBe(200);
      expect(res.body.project.time_round_upto).toBe(time_round_upto);
    });

    it.each([5, 60, -15, 15.5, '15'])('time_round_upto %s → 422', async (time_round_upto) => {
      const res = await create(hourly({ time_round_upto }));
      expect(res.status).toBe(422);
      expect(res.body.details[0]).toEqual({ path: 'project.time_round_upto', message: 'must be one of 0, 6, 15, 30 (minutes)' });
    });

    it.each(['sunday', 'monday', 'saturday'])('notification day %s is accepted', async (day) => {
      const res = await create(hourly({ timesheet_approval_email_notification_day: day }));
      expect(res.body.project.timesheet_approval_email_notification_day).toBe(day);
    });

    it.each(['Monday', 'mon', 'someday', 1])('notification day %s → 422', async (day) => {
      const res = await create(hourly({ timesheet_approval_email_notification_day: day }));
      expect(res.status).toBe(422);
      expect(res.body.details[0].path).toBe('project.timesheet_approval_email_notification_day');
    });

    it.each(['00:00', '09:05', '23:59'])('notification time %s is accepted', async (time) => {
      const res = await create(hourly({ timesheet_approval_email_notification_time: time }));
      expect(res.body.project.timesheet_approval_email_notification_time).toBe(time);
    });

    it.each(['24:00', '9:30', '12:60', '12:30:00', 'noon', '1230'])('notification time %s → 422', async (time) => {
      const res = await create(hourly({ timesheet_approval_email_notification_time: time }));
      expect(res.status).toBe(422);
      expect(res.body.details[0]).toEqual({ path: 'project.timesheet_approval_email_notification_time', message: expect.stringContaining('HH:MM') });
    });

    it('the weekly digest without a schedule goes out Monday 09:00', async () => {
      const res = await create(hourly({ notify_timesheet_approval_request_weekly: true }));
      expect(res.body.project).toMatchObject({ timesheet_approval_email_notification_day: 'monday', timesheet_approval_email_notification_time: '09:00' });
    });

    it('reply_to must be an e-mail address; empty clears it', async () => {
      const bad = await create(hourly({ reply_to: 'not-an-email' }));
      expect(bad.status).toBe(422);
      expect(bad.body.details[0].path).toBe('project.reply_to');
      expect((await create(hourly({ reply_to: '' }))).body.project.reply_to).toBeNull();
    });

    it('booleans must be booleans; autolock settings also accept the "true"/"false" the response shows', async () => {
      const bad = await create(hourly({ enable_approvals: 'yes' }));
      expect(bad.body.details[0]).toEqual({ path: 'project.enable_approvals', message: 'must be true or false' });
      const badLock = await create(hourly({ autolock_settings: { end_of_the_day: 'yes' } }));
      expect(badLock.body.details[0].path).toBe('project.autolock_settings.end_of_the_day');
      const echoed = await create(hourly({ autolock_enabled: true, autolock_settings: { end_of_the_day: 'true', end_of_the_month: true } }));
      expect(echoed.body.project.autolock_settings).toEqual({ end_of_the_day: 'true', end_of_the_week: 'false', end_of_the_month: 'true' });
    });

    it('autolock_enabled needs at least one setting', async () => {
      const res = await create(hourly({ autolock_enabled: true, autolock_settings: { end_of_the_day: false } }));
      expect(res.status).toBe(422);
      expect(res.body.details[0].path).toBe('project.autolock_settings');
    });

    it("currency defaults to the client's and must be it", async () => {
      const eur = makeClient(env.alpha.handle.db, { currency: 'EUR' });
      expect((await create(hourly({ client_id: eur.id }))).body.project.currency).toBe('EUR');
      expect((await create(hourly({ client_id: eur.id, currency: 'eur' }))).body.project.currency).toBe('EUR');
      const usd = await create(hourly({ client_id: eur.id, currency: 'USD' }));
      expect(usd.status).toBe(422);
      expect(usd.body.details[0]).toEqual({ path: 'project.currency', message: expect.stringContaining('EUR') });
      const bogus = await create(hourly({ currency: 'XYZ1' }));
      expect(bogus.body.details[0].path).toBe('project.currency');
    });

    it('tasks need a name; checklist items a description', async () => {
      const noName = await create(hourly({ tasks_attributes: [{ billable: true }] }));
      expect(noName.body.details[0].path).toBe('project.tasks_attributes.0.name');
      const noDescription = await create(hourly({ tasks_attributes: [{ name: 'T', checklists_attributes: [{ description: '' }] }] }));
      expect(noDescription.body.details[0].path).toBe('project.tasks_attributes.0.checklists_attributes.0.description');
    });
  });

  describe('project users on create', () => {
    it.each([
      ['an unknown user', () => '00000000-0000-4000-8000-000000000001', 'not a team member'],
      ['an inactive user', () => inactiveMemberId, 'inactive'],
    ])('422 for %s', async (_label, userId, message) => {
      const res = await create(hourly({ project_users_attributes: [{ user_id: userId(), role: 'regular_user' }] }));
      expect(res.status).toBe(422);
      expect(res.body.details).toEqual([{ path: 'project.project_users_attributes.0.user_id', message: expect.stringContaining(message) }]);
    });

    it("422 for another workspace's member", async () => {
      const betaMember = makeMember(env.beta.handle.db);
      const res = await create(hourly({ project_users_attributes: [{ user_id: betaMember.id }] }));
      expect(res.status).toBe(422);
    });

    it('422 for a user listed twice, and nothing is written', async () => {
      const before = env.alpha.handle.db.select().from(projects).all().length;
      const res = await create(
        hourly({
          tasks_attributes: [{ name: 'Would be created' }],
          project_users_attributes: [{ user_id: memberId }, { user_id: memberId, role: 'project_manager' }],
        }),
      );
      expect(res.status).toBe(422);
      expect(res.body.details).toEqual([{ path: 'project.project_users_attributes.1.user_id', message: 'lists the same user twice' }]);
      expect(env.alpha.handle.db.select().from(projects).all()).toHaveLength(before);
    });

    it.each([
      [{ role: 'owner' }, 'role'],
      [{ approval_type: 'sometimes' }, 'approval_type'],
      [{ hourly_rate: -1 }, 'hourly_rate'],
    ])('422 for %o', async (over, field) => {
      const res = await create(hourly({ project_users_attributes: [{ user_id: memberId, ...over }] }));
      expect(res.status).toBe(422);
      expect(res.body.details[0].path).toBe(`project.project_users_attributes.0.${field}`);
    });
  });
});

describe('PATCH v1 /projects/{project_id} (endpoint 10)', () => {
  let projectId: string;
  beforeAll(async () => {
    const res = await create(
      hourly({
        name: 'Patch me',
        tasks_attributes: [{ name: 'Build', hourly_rate: 100, checklists_attributes: [{ description: 'Tests' }] }, { name: 'Support' }],
      }),
    );
    projectId = res.body.project.id;
  });

  it('changes only the given fields and keeps the identifier', async () => {
    const before = (await update(projectId, {})).body.project;
    const res = await update(projectId, { name: 'Patched', internal_notes: 'note', time_round_upto: 6 });
    expect(res.status).toBe(200);
    expect(res.body.notice_code).toBe('project_updated');
    expect(Object.keys(res.body.project).sort()).toEqual(PROJECT_KEYS);
    expect(res.body.project).toEqual({
      ...before,
      name: 'Patched',
      internal_notes: 'note',
      time_round_upto: 6,
      updated_at: clock().toISOString(),
    });
  });

  it('404 project_not_found for unknown and malformed ids', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'nope']) {
      const res = await update(id, { name: 'x' });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('project_not_found');
    }
  });

  it('refuses a status change (422 project.status: endpoint 12 does that); the current status is accepted', async () => {
    const project = makeProject(env.alpha.handle.db, makeClient(env.alpha.handle.db).id);
    const changed = await update(project.id, { status: 'archived' });
    expect(changed.status).toBe(422);
    expect(changed.body.details).toEqual([{ path: 'project.status', message: expect.stringContaining('update_status') }]);
    expect((await update(project.id, { status: 'active', name: 'Same status' })).status).toBe(200);
    const created = await create(hourly({ status: 'archived' }));
    expect(created.status).toBe(422);
    expect(created.body.details[0].path).toBe('project.status');
  });

  it("moves a task's uninvoiced entries when it stops (or starts) being billable", async () => {
    const db = env.alpha.handle.db;
    const client = makeClient(db);
    const project = makeProject(db, client.id);
    const task = makeTask(db, project.id);
    const member = makeMember(db);
    const refs = { clientId: client.id, projectId: project.id, taskId: task.id, userId: member.id };
    const open = makeTimeEntry(db, refs, { status: 'unbilled' });
    const billed = makeTimeEntry(db, refs, { status: 'billed' });
    const pending = makeTimeEntry(db, refs, { status: 'pending_approval' });
    const statusOf = (id: string) => db.select({ s: timeEntries.status }).from(timeEntries).where(eq(timeEntries.id, id)).get()?.s;

    expect((await update(project.id, { tasks_attributes: [{ id: task.id, billable: false }] })).status).toBe(200);
    expect([statusOf(open.id), statusOf(billed.id), statusOf(pending.id)]).toEqual(['non_billable', 'billed', 'pending_approval']);
    expect((await update(project.id, { tasks_attributes: [{ id: task.id, billable: true }] })).status).toBe(200);
    expect([statusOf(open.id), statusOf(billed.id), statusOf(pending.id)]).toEqual(['unbilled', 'billed', 'pending_approval']);
  });

  it('updates an existing task and checklist item by id, and adds new ones', async () => {
    const current = (await update(projectId, {})).body.project;
    const build = current.tasks.find((t: { name: string }) => t.name === 'Build');
    const support = current.tasks.find((t: { name: string }) => t.name === 'Support');
    const item = build.checklist_items[0];
    const res = await update(projectId, {
      tasks_attributes: [
        { id: build.id, name: 'Build & ship', billable: false, hourly_rate: 110, checklists_attributes: [{ id: item.id, description: 'Unit tests' }, { description: 'E2E tests' }] },
        { id: support.id, archived: true },
        { name: 'Training', checklists_attributes: [{ description: 'Slides' }] },
      ],
    });
    expect(res.status).toBe(200);
    const tasksAfter = res.body.project.tasks;
    expect(tasksAfter).toHaveLength(3);
    expect(tasksAfter[0]).toEqual({
      id: build.id,
      name: 'Build & ship',
      billable: false,
      hourly_rate: 110,
      archived: false,
      checklist_items: [
        { id: item.id, description: 'Unit tests' },
        { id: expect.any(String), description: 'E2E tests' },
      ],
    });
    expect(tasksAfter[1]).toMatchObject({ id: support.id, name: 'Support', archived: true });
    expect(tasksAfter[2]).toMatchObject({ name: 'Training', archived: false, hourly_rate: 120, checklist_items: [{ description: 'Slides' }] });
    // Archiving never deletes: the row is still there.
    expect(env.alpha.handle.db.select().from(tasks).where(eq(tasks.id, support.id)).get()?.archived).toBe(true);
  });

  it("422 for a task id that is not this project's, or an item id that is not that task's", async () => {
    const otherProject = makeProject(env.alpha.handle.db, clientId);
    const foreignTask = makeTask(env.alpha.handle.db, otherProject.id);
    const foreignItem = makeChecklistItem(env.alpha.handle.db, foreignTask.id);
    const res = await update(projectId, { tasks_attributes: [{ id: foreignTask.id, name: 'Stolen' }] });
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual([{ path: 'project.tasks_attributes.0.id', message: 'is not a task of this project' }]);
    const current = (await update(projectId, {})).body.project;
    const ownTask = current.tasks[0];
    const itemRes = await update(projectId, { tasks_attributes: [{ id: ownTask.id, checklists_attributes: [{ id: foreignItem.id, description: 'x' }] }] });
    expect(itemRes.status).toBe(422);
    expect(itemRes.body.details[0].path).toBe('project.tasks_attributes.0.checklists_attributes.0.id');
    // Nothing of the refused request was written.
    expect(env.alpha.handle.db.select().from(checklistItems).where(eq(checklistItems.id, foreignItem.id)).get()?.description).toBe(foreignItem.description);
    const newTaskNoName = await update(projectId, { tasks_attributes: [{ billable: true }] });
    expect(newTaskNoName.body.details[0].path).toBe('project.tasks_attributes.0.name');
  });

  it('billing rules hold on the resulting project', async () => {
    const res = await update(projectId, { billing_method: 'fixed_price_project' });
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual([{ path: 'project.flat_amount', message: expect.stringContaining('required') }]);
    const fixed = await update(projectId, { billing_method: 'fixed_price_project', flat_amount: 999.9 });
    expect(fixed.status).toBe(200);
    expect(fixed.body.project).toMatchObject({ billing_method: 'fixed_price_project', flat_amount: '999.90' });
    // Still fixed-price: the flat amount cannot be removed.
    expect((await update(projectId, { flat_amount: null })).status).toBe(422);
    expect((await update(projectId, { flat_amount: 0 })).status).toBe(422);
    // Back to hourly: the stored rate (120) satisfies the rule; the flat amount stays stored (not billed).
    const back = await update(projectId, { billing_method: 'hourly_project_rate' });
    expect(back.status).toBe(200);
    expect(back.body.project).toMatchObject({ billing_method: 'hourly_project_rate', hourly_rate: 120, flat_amount: '999.90' });
    expect((await update(projectId, { flat_amount: null })).body.project.flat_amount).toBeNull();
    expect((await update(projectId, { hourly_rate: 0 })).body.details[0].path).toBe('project.hourly_rate');
    const person = await update(projectId, { billing_method: 'hourly_person_rate', hourly_rate: 0 });
    expect(person.status).toBe(200);
    const toHourly = await update(projectId, { billing_method: 'hourly_project_rate' });
    expect(toHourly.body.details[0].path).toBe('project.hourly_rate');
    expect((await update(projectId, { billing_method: 'hourly_project_rate', hourly_rate: 95 })).status).toBe(200);
  });

  it('refuses moving to another client, another currency, and project users', async () => {
    const other = makeClient(env.alpha.handle.db);
    const res = await update(projectId, { client_id: other.id, currency: 'EUR', project_users_attributes: [{ user_id: memberId }] });
    expect(res.status).toBe(422);
    expect(res.body.details.map((d: { path: string }) => d.path).sort()).toEqual(['project.client_id', 'project.currency', 'project.project_users_attributes']);
    expect((await update(projectId, { client_id: clientId, currency: 'USD' })).status).toBe(200);
  });

  it('validates formats like create does', async () => {
    const res = await update(projectId, { time_round_upto: 10, timesheet_approval_email_notification_day: 'funday' });
    expect(res.status).toBe(422);
    expect(res.body.details.map((d: { path: string }) => d.path).sort()).toEqual([
      'project.time_round_upto',
      'project.timesheet_approval_email_notification_day',
    ]);
    expect((await update(projectId, { autolock_enabled: true, autolock_settings: { end_of_the_day: false, end_of_the_week: false, end_of_the_month: false } })).status).toBe(422);
  });

  it('a project manager of this project may update it; other Members get 403', async () => {
    const pm = makeMember(env.alpha.handle.db);
    makeProjectUser(env.alpha.handle.db, projectId, pm.id, { role: 'project_manager' });
    const regular = makeMember(env.alpha.handle.db);
    makeProjectUser(env.alpha.handle.db, projectId, regular.id, { role: 'regular_user' });
    expect((await update(projectId, { internal_notes: 'by pm' }, pm.email)).status).toBe(200);
    const denied = await update(projectId, { internal_notes: 'by regular' }, regular.email);
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('forbidden');
    expect((await update(projectId, { internal_notes: 'by stranger' }, memberEmail)).status).toBe(403);
    expect(projectRow(projectId)?.internalNotes).toBe('by pm');
    expect((await update(projectId, { internal_notes: 'by admin' }, adminEmail)).status).toBe(200);
  });
});

describe('POST v1 /projects/update_status (endpoint 12)', () => {
  let statusClientId: string;
  let betaProjectId: string;
  const statusPath = `${V1}/projects/update_status`;
  const setStatus = (body: Record<string, unknown>, email: string = env.alpha.ownerEmail) => {
    tick();
    return env.alpha.api.post(statusPath, { email, ...body });
  };
  const fresh = (status: 'active' | 'archived' = 'active') => makeProject(env.alpha.handle.db, statusClientId, { status }).id;
  const statusOf = (id: string) => projectRow(id)?.status;

  beforeAll(() => {
    statusClientId = makeClient(env.alpha.handle.db).id;
    betaProjectId = makeProject(env.beta.handle.db, makeClient(env.beta.handle.db).id).id;
  });

  it('archives and reactivates the listed projects, counting with the right plural', async () => {
    const a = fresh();
    const b = fresh();
    const one = await setStatus({ project_ids: [a], status: 'archived' });
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ custom_message: '1 project archived successfully' });
    expect(statusOf(a)).toBe('archived');
    expect(projectRow(a)?.updatedAt).toBe(clock().toISOString());
    const two = await setStatus({ project_ids: [a, b], status: 'archived' });
    // `a` was archived already: only `b` moved.
    expect(two.body).toEqual({ custom_message: '1 project archived successfully' });
    const back = await setStatus({ project_ids: [a, b, a], status: 'active' });
    expect(back.body).toEqual({ custom_message: '2 projects activated successfully' });
    expect([statusOf(a), statusOf(b)]).toEqual(['active', 'active']);
    const none = await setStatus({ project_ids: [a], status: 'active' });
    expect(none.body).toEqual({ custom_message: '0 projects activated successfully' });
  });

  it('404 project_not_found naming the unknown ids, and nothing moves', async () => {
    const a = fresh();
    const res = await setStatus({ project_ids: [a, betaProjectId, 'nope'], status: 'archived' });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('project_not_found');
    expect(res.body.missing_ids).toEqual([betaProjectId, 'nope']);
    expect(statusOf(a)).toBe('active');
  });

  it('validates status, project_ids and filter', async () => {
    const a = fresh();
    const cases: [Record<string, unknown>, string][] = [
      [{ project_ids: [a], status: 'deleted' }, 'status'],
      [{ project_ids: [a] }, 'status'],
      [{ status: 'archived' }, 'project_ids'],
      [{ project_ids: a, status: 'archived' }, 'project_ids'],
      [{ project_ids: [], status: 'archived' }, 'project_ids'],
      [{ project_ids: [a], status: 'archived', filter: { status: 'gone' } }, 'filter.status'],
      [{ project_ids: [a], status: 'archived', filter: { consider_all_projects: 'yes' } }, 'filter.consider_all_projects'],
    ];
    for (const [body, path] of cases) {
      const res = await setStatus(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.details[0].path, JSON.stringify(body)).toBe(path);
    }
    expect(statusOf(a)).toBe('active');
  });

  it('filter.status without consider_all_projects narrows the listed ids', async () => {
    const active = fresh('active');
    const archived = fresh('archived');
    const res = await setStatus({ project_ids: [active, archived], status: 'archived', filter: { status: 'archived' } });
    expect(res.body).toEqual({ custom_message: '0 projects archived successfully' });
    expect(statusOf(active)).toBe('active');
    const reactivate = await setStatus({ project_ids: [active, archived], status: 'active', filter: { status: 'archived' } });
    expect(reactivate.body).toEqual({ custom_message: '1 project activated successfully' });
    expect(statusOf(archived)).toBe('active');
  });

  it('consider_all_projects moves every project in filter.status (or all), ignoring project_ids', async () => {
    const db = env.alpha.handle.db;
    const count = (status: 'active' | 'archived') => db.select().from(projects).where(eq(projects.status, status)).all().length;
    fresh('archived');
    fresh('active');
    const total = db.select().from(projects).all().length;
    const activeBefore = count('active');
    const archiveAll = await setStatus({ project_ids: [], status: 'archived', filter: { consider_all_projects: true, status: 'active' } });
    expect(archiveAll.status).toBe(200);
    expect(archiveAll.body.custom_message).toBe(`${activeBefore} projects archived successfully`);
    expect(count('active')).toBe(0);
    // Listed ids, even unknown ones, are not read when every project is considered.
    const all = await setStatus({ project_ids: ['unknown'], status: 'active', filter: { consider_all_projects: true } });
    expect(all.body.custom_message).toBe(`${total} projects activated successfully`);
    expect(count('archived')).toBe(0);
    const none = await setStatus({ project_ids: [], status: 'active', filter: { consider_all_projects: true, status: 'archived' } });
    expect(none.body.custom_message).toBe('0 projects activated successfully');
    // Beta is untouched.
    expect(env.beta.handle.db.select().from(projects).where(eq(projects.id, betaProjectId)).get()?.status).toBe('active');
  });

  it('Members: only for projects they manage, never consider_all_projects', async () => {
    const pm = makeMember(env.alpha.handle.db);
    const managed = fresh();
    const notManaged = fresh();
    makeProjectUser(env.alpha.handle.db, managed, pm.id, { role: 'project_manager' });
    makeProjectUser(env.alpha.handle.db, notManaged, pm.id, { role: 'regular_user' });
    const mixed = await setStatus({ project_ids: [managed, notManaged], status: 'archived' }, pm.email);
    expect(mixed.status).toBe(403);
    expect([statusOf(managed), statusOf(notManaged)]).toEqual(['active', 'active']);
    const own = await setStatus({ project_ids: [managed], status: 'archived' }, pm.email);
    expect(own.body.custom_message).toBe('1 project archived successfully');
    const all = await setStatus({ project_ids: [], status: 'archived', filter: { consider_all_projects: true } }, pm.email);
    expect(all.status).toBe(403);
    expect(statusOf(notManaged)).toBe('active');
    expect((await setStatus({ project_ids: [notManaged], status: 'archived' }, adminEmail)).status).toBe(200);
  });
});
