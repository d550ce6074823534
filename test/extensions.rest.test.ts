import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { clients, events, projectUsers } from '../src/db/schema/index.ts';
import { startTestEnv, testClock, type TestEnv } from './helpers/env.ts';
import { makeClient, makeMember, makeProjectSetup, makeProjectUser, makeTask, makeChecklistItem, makeTimeEntry } from './helpers/factories.ts';

/**
 * The operations the vendor publishes beyond the spec's 18 (route table rows marked `extension`).
 * The shared cases (keys, other workspaces, malformed bodies) run for them in route-table.test.ts.
 */

let env: TestEnv;
const clock = testClock('2026-11-18T10:00:00.000Z');
const V1 = '/api/external/v1';
const V2 = '/api/external/v2';

beforeAll(async () => {
  env = await startTestEnv({ clock });
});
afterAll(() => env.close());

const clientRow = (id: string) => env.alpha.handle.db.select().from(clients).where(eq(clients.id, id)).get();
const lastEvent = () => env.alpha.handle.db.select().from(events).all().at(-1);

describe('POST v1 /clients (extension)', () => {
  const create = (client: unknown) => env.alpha.api.post(`${V1}/clients`, { client });


  it('creates the client and answers 200 {notice_code, client_id}', async () => {
    const res = await create({ name: ' Globex ', currency: 'eur', secondary_name: 'GX', default_invoice_due_in_days: '14', internal_notes: 'n', address_attributes: { full_address: '1 Road' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ notice_code: 'client_created', client_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(clientRow(res.body.client_id)).toMatchObject({ name: 'Globex', currency: 'EUR', secondaryName: 'GX', defaultInvoiceDueInDays: 14, internalNotes: 'n', fullAddress: '1 Road', status: 'active' });
    const read = await env.alpha.api.get(`${V1}/clients/${res.body.client_id}`);
    expect(read.body.client).toMatchObject({ id: res.body.client_id, name: 'Globex', identifier: expect.any(String) });
    expect(lastEvent()).toMatchObject({ type: 'client.created' });
  });

  it('defaults: USD, due in 30 days, active; status may be given', async () => {
    const res = await create({ name: 'Defaults Ltd' });
    expect(clientRow(res.body.client_id)).toMatchObject({ currency: 'USD', defaultInvoiceDueInDays: 30, status: 'active' });
    const archived = await create({ name: 'Old Ltd', status: 'archived' });
    expect(clientRow(archived.body.client_id)?.status).toBe('archived');
  });

  it('422 naming the field: no client, no name, a due period that is not digits, a bad currency or status', async () => {
    const cases: [unknown, string][] = [
      [undefined, 'client'],
      [{}, 'client.name'],
      [{ name: '  ' }, 'client.name'],
      [{ name: 'X', default_invoice_due_in_days: 30 }, 'client.default_invoice_due_in_days'],
      [{ name: 'X', currency: 'EURO' }, 'client.currency'],
      [{ name: 'X', status: 'deleted' }, 'client.status'],
    ];
    const before = env.alpha.handle.db.select().from(clients).all().length;
    for (const [client, path] of cases) {
      const res = await create(client);
      expect(res.status, JSON.stringify(client)).toBe(422);
      expect(res.body.details[0].path).toBe(path);
    }
    expect(env.alpha.handle.db.select().from(clients).all().length).toBe(before);
  });
});

describe('PATCH v2 /clients/{client_id} (extension)', () => {
  let clientId: string;
  beforeEach(() => {
    clientId = makeClient(env.alpha.handle.db, { name: 'Before' }).id;
  });


  it('updates like PUT v1 and answers 200 {notice_code, client_id}', async () => {
    const res = await env.alpha.api.patch(`${V2}/clients/${clientId}`, { client: { name: 'After', default_invoice_due_in_days: '7' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ notice_code: 'client_updated', client_id: clientId });
    expect(clientRow(clientId)).toMatchObject({ name: 'After', defaultInvoiceDueInDays: 7 });
  });
});

describe('GET v1 /projects/{project_id} (extension)', () => {
  let setup: ReturnType<typeof makeProjectSetup>;
  beforeAll(() => {
    setup = makeProjectSetup(env.alpha.handle.db, { member: { firstName: 'Rea', lastName: 'Der' } });
  });


  it("answers the project response's fields plus tasks and project_users", async () => {
    const res = await env.alpha.api.get(`${V1}/projects/${setup.project.id}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['project']);
    const { project } = res.body;
    expect(project).toMatchObject({ id: setup.project.id, client_id: setup.client.id, name: setup.project.name, hourly_rate: 100, flat_amount: null, status: 'active' });
    expect(project.tasks).toEqual([
      { id: setup.task.id, name: setup.task.name, billable: true, hourly_rate: 0, archived: false, checklist_items: [{ id: setup.item.id, description: setup.item.description }] },
    ]);
    expect(project.project_users).toEqual([
      {
        id: setup.projectUser.id,
        user_id: setup.member.id,
        role: 'regular_user',
        hourly_rate: 0,
        name: 'Rea Der',
        email: setup.member.email,
        time_zone: 'UTC',
        approval_type: 'manual_approval',
        active: true,
      },
    ]);
  });

  it('404 project_not_found for unknown and malformed ids', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'nope']) {
      const res = await env.alpha.api.get(`${V1}/projects/${id}`);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('project_not_found');
    }
  });
});

describe.each([
  ['v1', `${V1}/projects/{project}/project_users/{user}`],
  ['v2', `${V2}/projects/{project}/project-users/{user}`],
] as const)('PATCH %s project user (extension)', (_version, template) => {
  const pathFor = (projectId: string, projectUserId: string) => template.replace('{project}', projectId).replace('{user}', projectUserId);
  let setup: ReturnType<typeof makeProjectSetup>;
  beforeEach(() => {
    setup = makeProjectSetup(env.alpha.handle.db, { project: { currency: 'USD' } });
  });
  const patch = (body: Record<string, unknown>, projectUserId = setup.projectUser.id, projectId = setup.project.id) =>
    env.alpha.api.patch(pathFor(projectId, projectUserId), { email: env.alpha.ownerEmail, ...body });
  const row = (id: string) => env.alpha.handle.db.select().from(projectUsers).where(eq(projectUsers.id, id)).get();


  it('changes role, rate and approval type; answers 200 with the project_user', async () => {
    clock.advance(60_000);
    const res = await patch({ project_user: { role: 'project_manager', hourly_rate: 80.5, approval_type: 'auto_approval' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      notice_code: 'project_user_updated',
      project_user: {
        id: setup.projectUser.id,
        user_id: setup.member.id,
        role: 'project_manager',
        hourly_rate: 80.5,
        name: `${setup.member.firstName} ${setup.member.lastName}`,
        email: setup.member.email,
        time_zone: 'UTC',
      },
    });
    expect(row(setup.projectUser.id)).toMatchObject({ role: 'project_manager', hourlyRateMinor: 8050, approvalType: 'auto_approval', updatedAt: clock().toISOString() });
  });

  it('changes only what is given; a body without project_user (the vendor’s v2 example) changes nothing', async () => {
    const before = row(setup.projectUser.id)!;
    const same = await patch({});
    expect(same.status).toBe(200);
    expect(row(setup.projectUser.id)).toEqual(before);
    await patch({ project_user: { hourly_rate: 12 } });
    expect(row(setup.projectUser.id)).toMatchObject({ role: before.role, approvalType: before.approvalType, hourlyRateMinor: 1200 });
  });

  it('a project manager of the project may; a regular member may not (403); email is required', async () => {
    const manager = makeMember(env.alpha.handle.db);
    makeProjectUser(env.alpha.handle.db, setup.project.id, manager.id, { role: 'project_manager' });
    expect((await patch({ email: manager.email, project_user: { hourly_rate: 5 } })).status).toBe(200);
    const outsider = makeMember(env.alpha.handle.db);
    const refused = await patch({ email: outsider.email, project_user: { hourly_rate: 6 } });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('forbidden');
    expect(row(setup.projectUser.id)?.hourlyRateMinor).toBe(500);
    const noEmail = await env.alpha.api.patch(pathFor(setup.project.id, setup.projectUser.id), { project_user: { hourly_rate: 7 } });
    expect(noEmail.status).toBe(422);
    expect(noEmail.body.details[0].path).toBe('email');
  });

  it('404 project_user_not_found for an unknown id or a user of another project', async () => {
    const other = makeProjectSetup(env.alpha.handle.db);
    for (const id of ['00000000-0000-4000-8000-000000000000', other.projectUser.id]) {
      const res = await patch({ project_user: { role: 'regular_user' } }, id);
      expect(res.status, id).toBe(404);
      expect(res.body.code).toBe('project_user_not_found');
    }
  });

  it('422 for a bad role, approval type or rate', async () => {
    for (const [projectUser, path] of [
      [{ role: 'boss' }, 'project_user.role'],
      [{ approval_type: 'never' }, 'project_user.approval_type'],
      [{ hourly_rate: -1 }, 'project_user.hourly_rate'],
      [{ hourly_rate: 1.001 }, 'project_user.hourly_rate'],
      ['x', 'project_user'],
    ] as const) {
      const res = await patch({ project_user: projectUser });
      expect(res.status, JSON.stringify(projectUser)).toBe(422);
      expect(res.body.details[0].path).toBe(path);
    }
  });
});

describe('POST v1 /clients/{client_id}/invoices (extension: the v1 twin of endpoint 1)', () => {
  let common: ReturnType<typeof makeProjectSetup>;
  beforeAll(() => {
    common = makeProjectSetup(env.alpha.handle.db);
  });


  it('answers 200 with the same body endpoint 1 answers with 201', async () => {
    const task = makeTask(env.alpha.handle.db, common.project.id);
    makeChecklistItem(env.alpha.handle.db, task.id);
    const entry = makeTimeEntry(env.alpha.handle.db, { clientId: common.client.id, projectId: common.project.id, taskId: task.id, userId: common.member.id });
    const res = await env.alpha.api.post(`${V1}/clients/${common.client.id}/invoices`, {
      email: env.alpha.ownerEmail,
      number: 'V1-TWIN',
      total: 100,
      invoice_time_entries: [{ time_entry_id: entry.id, project_id: common.project.id, task_id: task.id, user_id: common.member.id }],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ notice_code: 'invoice_created', invoice: { number: 'V1-TWIN', total: 100, status: 'draft', client_id: common.client.id } });
  });
});
