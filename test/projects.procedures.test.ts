import fc from 'fast-check';
import { count } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projects } from '../src/db/schema/index.ts';
import { makeChecklistItem, makeClient, makeMember, makeProject, makeProjectUser, makeTask } from './helpers/factories.ts';
import { startTestEnv, testClock, type TestEnv } from './helpers/env.ts';

let env: TestEnv;
const clock = testClock('2026-11-18T10:00:00.000Z');

beforeAll(async () => {
  env = await startTestEnv({ clock });
});
afterAll(() => env.close());

describe('projects.get', () => {
  it('returns the project with its tasks, checklist items and users', async () => {
    const db = env.alpha.handle.db;
    const client = makeClient(db, { identifier: 'GETC' });
    const created = await env.alpha.caller.projects.create({
      email: env.alpha.ownerEmail,
      project: {
        name: 'Readable',
        client_id: client.id,
        billing_method: 'hourly_task_rate',
        tasks_attributes: [{ name: 'Code', hourly_rate: 50, checklists_attributes: [{ description: 'Review' }] }],
      },
    });
    expect(created.notice_code).toBe('project_created');
    const member = makeMember(db, { firstName: 'Pat', lastName: 'Doe', active: false });
    makeProjectUser(db, created.project.id, member.id, { approvalType: 'auto_approval', hourlyRateMinor: 4000 });
    const { project } = await env.alpha.caller.projects.get({ project_id: created.project.id });
    const { project_users, ...rest } = project;
    expect(rest).toEqual(created.project);
    expect(project.tasks[0]).toMatchObject({ name: 'Code', hourly_rate: 50, checklist_items: [{ description: 'Review' }] });
    expect(project_users).toEqual([
      expect.objectContaining({ user_id: env.alpha.ownerId, role: 'project_manager', approval_type: 'manual_approval', active: true }),
      expect.objectContaining({ user_id: member.id, name: 'Pat Doe', role: 'regular_user', hourly_rate: 40, approval_type: 'auto_approval', active: false }),
    ]);
  });

  it('NOT_FOUND project_not_found for unknown, malformed and other-workspace ids', async () => {
    const betaProject = makeProject(env.beta.handle.db, makeClient(env.beta.handle.db).id);
    for (const project_id of ['00000000-0000-4000-8000-000000000000', 'x', betaProject.id]) {
      await expect(env.alpha.caller.projects.get({ project_id })).rejects.toMatchObject({ code: 'NOT_FOUND', cause: { code: 'project_not_found' } });
    }
  });
});

describe('projects.list', () => {
  let ws: TestEnv['alpha'];
  let clientA: string;
  let clientB: string;
  beforeAll(() => {
    ws = env.workspace('listing');
    const db = ws.handle.db;
    clientA = makeClient(db).id;
    clientB = makeClient(db).id;
    for (let i = 0; i < 12; i++) {
      const at = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
      const p = makeProject(db, i % 3 === 0 ? clientB : clientA, { status: i % 4 === 0 ? 'archived' : 'active', createdAt: at, updatedAt: at, name: `P${i}` });
      const t = makeTask(db, p.id);
      makeChecklistItem(db, t.id);
    }
  });

  const all = async (input: Parameters<typeof ws.caller.projects.list>[0]) => {
    const names: string[] = [];
    let cursor: string | undefined;
    for (let guard = 0; guard < 20; guard++) {
      const page = await ws.caller.projects.list({ ...input, cursor });
      names.push(...page.items.map((p) => p.name));
      if (!page.next_cursor) return names;
      cursor = page.next_cursor;
    }
    throw new Error('pagination did not end');
  };

  it('pages through every project in creation order, with tasks', async () => {
    expect(await all({ limit: 5 })).toEqual(Array.from({ length: 12 }, (_, i) => `P${i}`));
    const page = await ws.caller.projects.list({ limit: 2 });
    expect(page.items[0]?.tasks).toHaveLength(1);
    expect(page.items[0]?.tasks[0]?.checklist_items).toHaveLength(1);
  });

  it('filters by client, status and updated_since', async () => {
    expect(await all({ client_id: clientB, limit: 50 })).toEqual(['P0', 'P3', 'P6', 'P9']);
    expect(await all({ status: 'archived', limit: 50 })).toEqual(['P0', 'P4', 'P8']);
    expect(await all({ client_id: clientB, status: 'active', limit: 50 })).toEqual(['P3', 'P6', 'P9']);
    expect(await all({ updated_since: '2026-01-01T00:00:09.000Z', limit: 50 })).toEqual(['P10', 'P11']);
    expect(await all({ client_id: 'unknown', limit: 50 })).toEqual([]);
  });

  it('rejects a bad cursor or limit with 422', async () => {
    for (const input of [{ cursor: 'garbage' }, { limit: 0 }, { limit: 201 }, { status: 'gone' }, { updated_since: 'yesterday' }]) {
      await expect(ws.caller.projects.list(input as never), JSON.stringify(input)).rejects.toMatchObject({ code: 'UNPROCESSABLE_CONTENT' });
    }
  });
});

describe('tasks.list', () => {
  it("pages through a project's tasks with their checklist items, filtered by archived", async () => {
    const db = env.alpha.handle.db;
    const project = makeProject(db, makeClient(db).id, { hourlyRateMinor: 1234 });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const at = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
      const t = makeTask(db, project.id, { name: `T${i}`, archived: i === 4, hourlyRateMinor: 1000 + i, createdAt: at, updatedAt: at });
      makeChecklistItem(db, t.id, { description: `I${i}a`, position: 1 });
      makeChecklistItem(db, t.id, { description: `I${i}b`, position: 2 });
      ids.push(t.id);
    }
    const first = await env.alpha.caller.tasks.list({ project_id: project.id, limit: 3 });
    expect(first.items.map((t) => t.name)).toEqual(['T0', 'T1', 'T2']);
    expect(first.items[1]).toEqual({
      id: ids[1],
      name: 'T1',
      billable: true,
      hourly_rate: 10.01,
      archived: false,
      checklist_items: [
        { id: expect.any(String), description: 'I1a' },
        { id: expect.any(String), description: 'I1b' },
      ],
    });
    const second = await env.alpha.caller.tasks.list({ project_id: project.id, limit: 3, cursor: first.next_cursor ?? undefined });
    expect(second.items.map((t) => t.name)).toEqual(['T3', 'T4']);
    expect(second.next_cursor).toBeNull();
    const active = await env.alpha.caller.tasks.list({ project_id: project.id, archived: false });
    expect(active.items).toHaveLength(4);
    await expect(env.alpha.caller.tasks.list({ project_id: 'nope' })).rejects.toMatchObject({ cause: { code: 'project_not_found' } });
  });
});

describe('projects.create through any combination of well-typed fields', () => {
  it('never answers 5xx, and a refused request writes nothing', async () => {
    const db = env.alpha.handle.db;
    const active = makeClient(db, { identifier: 'PROP', currency: 'USD' });
    const yen = makeClient(db, { identifier: 'YEN', currency: 'JPY' });
    const archived = makeClient(db, { status: 'archived' });
    const member = makeMember(db);
    const inactive = makeMember(db, { active: false });
    /** Mostly values the rules accept, sometimes anything of the right JSON type, so both paths run. */
    const pick = <T, U>(valid: fc.Arbitrary<T>, wild: fc.Arbitrary<U>) => fc.oneof({ arbitrary: valid, weight: 12 }, { arbitrary: wild, weight: 1 });
    const cents = fc.oneof(fc.integer({ min: 1, max: 10_000_000 }).map((n) => n / 100), fc.integer({ min: 1, max: 100_000 }));
    const amount = pick(
      cents,
      fc.oneof(
        fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e13, max: 1e13 }),
        fc.constantFrom(0, -0, 0.001, 1e-7, 5e-324, 1e12, 1e9 + 0.01),
      ),
    );
    const text = fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('', '  ', 'a'.repeat(300), '\u0000', 'Ünïcødé ✓'));
    const name = pick(fc.string({ minLength: 1, maxLength: 30 }).filter((v) => v.trim().length > 0), text);
    const flag = fc.boolean();
    const project = fc.record(
      {
        name,
        client_id: pick(fc.oneof({ arbitrary: fc.constant(active.id), weight: 5 }, { arbitrary: fc.constant(yen.id), weight: 1 }), fc.oneof(fc.constantFrom(archived.id, '00000000-0000-4000-8000-000000000000'), fc.string({ maxLength: 40 }))),
        billing_method: pick(fc.constantFrom('hourly_project_rate', 'hourly_person_rate', 'hourly_task_rate', 'fixed_price_project'), fc.string({ maxLength: 20 })),
        hourly_rate: amount,
        flat_amount: fc.option(amount, { freq: 2 }),
        currency: pick(fc.constantFrom('USD', 'usd'), fc.oneof(fc.constantFrom('JPY', 'EUR', 'BHD'), fc.string({ maxLength: 5 }))),
        internal_notes: text,
        time_round_upto: pick(fc.constantFrom(0, 6, 15, 30), fc.integer({ min: -100, max: 100 })),
        autolock_enabled: pick(fc.constant(false), fc.constant(true)),
        autolock_settings: fc.record(
          {
            end_of_the_day: pick(fc.oneof(flag, fc.constantFrom('true', 'false')), fc.constantFrom('yes', 'TRUE')),
            end_of_the_week: flag,
            end_of_the_month: flag,
          },
          { requiredKeys: [] },
        ),
        reply_to: pick(fc.constantFrom('pm@example.com', 'Jane.Doe+billing@Client.EXAMPLE', ''), fc.oneof(fc.constantFrom('not-an-email'), fc.emailAddress(), text)),
        enable_approvals: flag,
        notify_timesheet_approval_request_instantly: flag,
        notify_timesheet_approval_request_weekly: flag,
        timesheet_approval_email_notification_day: fc.option(pick(fc.constantFrom('monday', 'sunday', 'friday'), text)),
        timesheet_approval_email_notification_time: fc.option(pick(fc.constantFrom('09:00', '23:59', '00:00'), fc.oneof(fc.constantFrom('24:00', '9:00'), text))),
        tasks_attributes: fc.array(
          fc.record(
            {
              name,
              billable: flag,
              hourly_rate: amount,
              checklists_attributes: fc.array(fc.record({ description: name }), { maxLength: 3 }),
            },
            { requiredKeys: ['name'] },
          ),
          { maxLength: 4 },
        ),
        project_users_attributes: fc.uniqueArray(
          fc.record(
            {
              user_id: pick(fc.constantFrom(member.id, env.alpha.ownerId), fc.oneof(fc.constant(inactive.id), fc.string({ maxLength: 10 }))),
              role: pick(fc.constantFrom('project_manager', 'regular_user'), fc.string({ maxLength: 10 })),
              hourly_rate: amount,
              approval_type: pick(fc.constantFrom('manual_approval', 'auto_approval'), fc.string({ maxLength: 10 })),
            },
            { requiredKeys: ['user_id'] },
          ),
          { maxLength: 2, selector: (u) => u.user_id },
        ),
      },
      { requiredKeys: ['name', 'client_id', 'billing_method'] },
    );
    const statuses = new Map<number, number>();
    const projectCount = () => db.select({ n: count() }).from(projects).get()?.n ?? 0;

    await fc.assert(
      fc.asyncProperty(project, async (fields) => {
        const before = projectCount();
        const res = await env.alpha.api.post('/api/external/v1/projects', { project: fields, email: env.alpha.ownerEmail });
        expect(res.status, res.text).toBeLessThan(500);
        expect([200, 404, 422]).toContain(res.status);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status === 200) {
          expect(res.body.notice_code).toBe('project_created');
          expect(projectCount()).toBe(before + 1);
        } else {
          expect(typeof res.body.code).toBe('string');
          expect(projectCount()).toBe(before);
        }
      }),
      { numRuns: 150 },
    );
    // The generators are biased so that both outcomes are exercised, not only refusals.
    expect(statuses.get(200)).toBeGreaterThan(0);
    expect(statuses.get(422)).toBeGreaterThan(0);
  });
});
