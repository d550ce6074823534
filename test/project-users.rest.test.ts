import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectUsers } from '../src/db/schema/index.ts';
import { makeClient, makeMember, makeProject, makeProjectUser } from './helpers/factories.ts';
import { startTestEnv, testClock, type TestEnv } from './helpers/env.ts';

let env: TestEnv;
const clock = testClock('2026-11-18T10:00:00.000Z');

let projectId: string;

beforeAll(async () => {
  env = await startTestEnv({ clock });
  const client = makeClient(env.alpha.handle.db, { currency: 'EUR' });
  projectId = makeProject(env.alpha.handle.db, client.id, { currency: 'EUR', billingMethod: 'hourly_person_rate', hourlyRateMinor: 7550 }).id;
});
afterAll(() => env.close());

const projectUserRow = (userId: string, project = projectId) =>
  env.alpha.handle.db
    .select()
    .from(projectUsers)
    .where(and(eq(projectUsers.projectId, project), eq(projectUsers.userId, userId)))
    .get();

describe.each([
  ['v2', '/api/external/v2/projects/{id}/project-users', 201],
  ['v1', '/api/external/v1/projects/{id}/project_users', 200],
] as const)('POST %s add project user (endpoints 4 and 5)', (_version, template, status) => {
  const pathFor = (id: string) => template.replace('{id}', id);
  const add = (projectUser: Record<string, unknown>, email: string = env.alpha.ownerEmail, id = projectId) =>
    env.alpha.api.post(pathFor(id), { project_user: projectUser, email });

  it(`adds a team member and answers ${status} with the spec's project_user`, async () => {
    const member = makeMember(env.alpha.handle.db, { firstName: 'Ada', lastName: 'Lovelace', email: `ada.${status}@alpha.test`, timeZone: 'Europe/London' });
    const res = await add({ user_id: member.id, role: 'project_manager', hourly_rate: 95.25, approval_type: 'auto_approval' });
    expect(res.status).toBe(status);
    expect(res.body).toEqual({
      notice_code: 'project_user_added',
      project_user: {
        id: expect.any(String),
        user_id: member.id,
        role: 'project_manager',
        hourly_rate: 95.25,
        name: 'Ada Lovelace',
        email: member.email,
        time_zone: 'Europe/London',
      },
    });
    expect(projectUserRow(member.id)).toMatchObject({ id: res.body.project_user.id, role: 'project_manager', hourlyRateMinor: 9525, approvalType: 'auto_approval' });
  });

  it("defaults: role regular_user, approval manual_approval, the project's hourly rate", async () => {
    const member = makeMember(env.alpha.handle.db);
    const res = await add({ user_id: member.id });
    expect(res.status).toBe(status);
    expect(res.body.project_user).toMatchObject({ role: 'regular_user', hourly_rate: 75.5 });
    expect(projectUserRow(member.id)?.approvalType).toBe('manual_approval');
    const zero = makeMember(env.alpha.handle.db);
    expect((await add({ user_id: zero.id, hourly_rate: 0 })).body.project_user.hourly_rate).toBe(0);
  });

  it('409 project_user_exists when the user is already on the project', async () => {
    const member = makeMember(env.alpha.handle.db);
    expect((await add({ user_id: member.id })).status).toBe(status);
    const again = await add({ user_id: member.id, role: 'project_manager' });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('project_user_exists');
    expect(projectUserRow(member.id)?.role).toBe('regular_user');
  });

  it('422 for unknown, inactive or other-workspace users', async () => {
    const inactive = makeMember(env.alpha.handle.db, { active: false });
    const betaMember = makeMember(env.beta.handle.db);
    for (const [userId, message] of [
      ['00000000-0000-4000-8000-000000000000', 'not a team member'],
      ['not-a-uuid', 'not a team member'],
      [inactive.id, 'inactive'],
      [betaMember.id, 'not a team member'],
    ] as const) {
      const res = await add({ user_id: userId });
      expect(res.status, userId).toBe(422);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.details).toEqual([{ path: 'project_user.user_id', message: expect.stringContaining(message) }]);
    }
    expect(projectUserRow(inactive.id)).toBeUndefined();
  });

  it('422 for a bad role, approval type, negative or over-precise rate, missing fields', async () => {
    const member = makeMember(env.alpha.handle.db);
    const cases: [unknown, string][] = [
      [{ user_id: member.id, role: 'boss' }, 'project_user.role'],
      [{ user_id: member.id, approval_type: 'never' }, 'project_user.approval_type'],
      [{ user_id: member.id, hourly_rate: -1 }, 'project_user.hourly_rate'],
      [{ user_id: member.id, hourly_rate: '10' }, 'project_user.hourly_rate'],
      [{ user_id: member.id, hourly_rate: 10.001 }, 'project_user.hourly_rate'],
      [{ role: 'regular_user' }, 'project_user.user_id'],
      [undefined, 'project_user'],
    ];
    for (const [projectUser, path] of cases) {
      const res = await env.alpha.api.post(pathFor(projectId), { project_user: projectUser, email: env.alpha.ownerEmail });
      expect(res.status, JSON.stringify(projectUser)).toBe(422);
      expect(res.body.details[0].path).toBe(path);
    }
    expect(projectUserRow(member.id)).toBeUndefined();
  });

  it('404 project_not_found for unknown and malformed project ids', async () => {
    const member = makeMember(env.alpha.handle.db);
    for (const id of ['00000000-0000-4000-8000-000000000000', 'abc']) {
      const res = await add({ user_id: member.id }, env.alpha.ownerEmail, id);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('project_not_found');
    }
  });

  it('acting user: Owner/Admin or a project manager of this project; others 403', async () => {
    const db = env.alpha.handle.db;
    const admin = makeMember(db, { organizationRole: 'Admin' });
    const pm = makeMember(db);
    makeProjectUser(db, projectId, pm.id, { role: 'project_manager' });
    const regular = makeMember(db);
    makeProjectUser(db, projectId, regular.id, { role: 'regular_user' });
    const stranger = makeMember(db);
    const otherProject = makeProject(db, makeClient(db).id);
    makeProjectUser(db, otherProject.id, stranger.id, { role: 'project_manager' });

    expect((await add({ user_id: makeMember(db).id }, admin.email)).status).toBe(status);
    expect((await add({ user_id: makeMember(db).id }, pm.email)).status).toBe(status);
    for (const actor of [regular, stranger]) {
      const target = makeMember(db);
      const res = await add({ user_id: target.id }, actor.email);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('forbidden');
      expect(projectUserRow(target.id)).toBeUndefined();
    }
    expect((await add({ user_id: makeMember(db).id }, 'nobody@alpha.test')).body.code).toBe('user_not_found');
  });
});

describe('GET v1 /projects/{project_id}/project_users (endpoint 6)', () => {
  let listedProjectId: string;
  const path = (id = listedProjectId) => `/api/external/v1/projects/${id}/project_users`;

  beforeAll(() => {
    const db = env.alpha.handle.db;
    listedProjectId = makeProject(db, makeClient(db).id, { hourlyRateMinor: 0 }).id;
    const first = makeMember(db, { firstName: 'First', lastName: 'One', timeZone: 'Asia/Tokyo' });
    const second = makeMember(db, { firstName: 'Second', lastName: 'Two', active: false });
    makeProjectUser(db, listedProjectId, first.id, { role: 'project_manager', hourlyRateMinor: 12345, createdAt: '2026-01-01T00:00:00.000Z' });
    makeProjectUser(db, listedProjectId, second.id, { createdAt: '2026-01-02T00:00:00.000Z' });
  });

  it("lists the project's users in the order they joined, in the spec's shape", async () => {
    const res = await env.alpha.api.get(path());
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['project_users']);
    expect(res.body.project_users).toEqual([
      { id: expect.any(String), user_id: expect.any(String), role: 'project_manager', hourly_rate: 123.45, name: 'First One', email: expect.any(String), time_zone: 'Asia/Tokyo' },
      expect.objectContaining({ role: 'regular_user', hourly_rate: 0, name: 'Second Two' }),
    ]);
  });

  it('an empty list for a project without users; 404 for unknown ids', async () => {
    const db = env.alpha.handle.db;
    const empty = makeProject(db, makeClient(db).id);
    expect((await env.alpha.api.get(path(empty.id))).body).toEqual({ project_users: [] });
    const missing = await env.alpha.api.get(path('00000000-0000-4000-8000-000000000000'));
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('project_not_found');
  });
});
