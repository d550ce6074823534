import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLISHED, substitute } from './fixtures/published-examples.ts';
import { startTestEnv, testClock, type TestEnv } from './helpers/env.ts';
import { makeClient, makeMember, makeProject, makeProjectSetup, makeRecipient, makeTimeEntry } from './helpers/factories.ts';

/**
 * An integration written against the vendor's published documentation works unchanged: each
 * published request body is sent as published, only its ids (and the addresses the pages hide)
 * filled in, through the REST doors an integrator uses.
 */

let env: TestEnv;
const clock = testClock('2026-11-18T10:00:00.000Z');
const V1 = '/api/external/v1';
const V2 = '/api/external/v2';

let oliver: { id: string };
let clientId: string;

beforeAll(async () => {
  env = await startTestEnv({ clock });
  const db = env.alpha.handle.db;
  // The people the published bodies name as acting users.
  oliver = makeMember(db, { email: 'oliver@example.com', firstName: 'Oliver', lastName: 'Smith', organizationRole: 'Admin' });
  makeMember(db, { email: 'john@example.com', firstName: 'John', lastName: 'Doe', organizationRole: 'Admin' });
  clientId = makeClient(db, { currency: 'USD' }).id;
});
afterAll(() => env.close());

describe("the vendor's published project, client and project user examples", () => {
  let projectId: string;
  let addedProjectUserId: string;

  it('POST v1 /projects: flat_amount beside hourly_project_rate is accepted and kept', async () => {
    const body = substitute(PUBLISHED.createProjectV1, { client_id: clientId, reply_to: 'pm@alpha.test', user_id: oliver.id, email: env.alpha.ownerEmail });
    const res = await env.alpha.api.post(`${V1}/projects`, body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.notice_code).toBe('project_created');
    expect(res.body.project).toMatchObject({
      name: 'Website Redesign Initiative',
      billing_method: 'hourly_project_rate',
      hourly_rate: 75.5,
      flat_amount: '5000.00',
      time_round_upto: 15,
      autolock_enabled: true,
      autolock_settings: { end_of_the_day: 'true', end_of_the_week: 'false', end_of_the_month: 'false' },
      timesheet_approval_email_notification_day: 'friday',
      timesheet_approval_email_notification_time: '17:00',
      tasks: [{ name: 'UI Design Phase', billable: true, hourly_rate: 85, checklist_items: [{ description: 'Review wireframe mockups' }] }],
    });
    projectId = res.body.project.id;
  });

  it('PATCH v1 /projects/{id}: the published update, with the task and checklist ids of the project', async () => {
    const read = await env.alpha.api.get(`${V1}/projects/${projectId}`);
    const task = read.body.project.tasks[0];
    const body = substitute(PUBLISHED.updateProjectV1, { reply_to: 'pm@alpha.test', task_id: task.id, checklist_item_id: task.checklist_items[0].id, email: env.alpha.ownerEmail });
    const res = await env.alpha.api.patch(`${V1}/projects/${projectId}`, body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.project).toMatchObject({ name: 'Updated Website Redesign Initiative', flat_amount: '5000.00', tasks: [{ id: task.id, name: 'Updated UI Design Phase' }] });
  });

  it('GET v1 /projects/{id}: the project with its tasks and project users', async () => {
    const res = await env.alpha.api.get(`${V1}/projects/${projectId}`);
    expect(res.status).toBe(200);
    expect(res.body.project.project_users.map((u: { user_id: string; role: string }) => [u.user_id, u.role])).toEqual([
      [oliver.id, 'project_manager'],
      [env.alpha.ownerId, 'project_manager'],
    ]);
  });

  it('POST v2 and v1 project users: the published add bodies', async () => {
    const first = makeMember(env.alpha.handle.db);
    const v2 = await env.alpha.api.post(`${V2}/projects/${projectId}/project-users`, substitute(PUBLISHED.addProjectUserV2, { user_id: first.id }));
    expect(v2.status, JSON.stringify(v2.body)).toBe(201);
    expect(v2.body.project_user).toMatchObject({ user_id: first.id, role: 'regular_user', hourly_rate: 75.5 });
    const second = makeMember(env.alpha.handle.db);
    const v1 = await env.alpha.api.post(`${V1}/projects/${projectId}/project_users`, substitute(PUBLISHED.addProjectUserV1, { user_id: second.id, email: env.alpha.ownerEmail }));
    expect(v1.status, JSON.stringify(v1.body)).toBe(200);
    addedProjectUserId = v1.body.project_user.id;
  });

  it('PATCH v1 and v2 project user: the published update bodies', async () => {
    await env.alpha.caller.projects.updateUser({ email: env.alpha.ownerEmail, project_id: projectId, project_user_id: addedProjectUserId, project_user: { role: 'project_manager', hourly_rate: 10 } });
    const v1 = await env.alpha.api.patch(`${V1}/projects/${projectId}/project_users/${addedProjectUserId}`, substitute(PUBLISHED.updateProjectUserV1, { email: env.alpha.ownerEmail }));
    expect(v1.status, JSON.stringify(v1.body)).toBe(200);
    expect(v1.body.project_user).toMatchObject({ id: addedProjectUserId, role: 'regular_user', hourly_rate: 75.5 });
    const v2 = await env.alpha.api.patch(`${V2}/projects/${projectId}/project-users/${addedProjectUserId}`, substitute(PUBLISHED.updateProjectUserV2, {}));
    expect(v2.status, JSON.stringify(v2.body)).toBe(200);
    expect(v2.body.project_user).toEqual(v1.body.project_user);
  });

  it('POST v1 /clients and PATCH v2 /clients/{id}: the published client bodies', async () => {
    const created = await env.alpha.api.post(`${V1}/clients`, substitute(PUBLISHED.createClientV1, {}));
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toEqual({ notice_code: 'client_created', client_id: expect.any(String) });
    const updated = await env.alpha.api.patch(`${V2}/clients/${created.body.client_id}`, substitute(PUBLISHED.updateClientV2, {}));
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body).toEqual({ notice_code: 'client_updated', client_id: created.body.client_id });
    const read = await env.alpha.api.get(`${V1}/clients/${created.body.client_id}`);
    expect(read.body.client).toMatchObject({ name: 'Neeto Client Inc.', secondary_name: 'Subsidiary Alpha', default_invoice_due_in_days: 30, address: '123 Main St, Springfield, IL 62704, USA' });
  });

  it('GET v1 /team_members?email=…: the published filter', async () => {
    const res = await env.alpha.api.get(`${V1}/team_members?email=oliver@example.com`, { headers: { accept: 'application/json' } });
    expect(res.status).toBe(200);
    expect(res.body.team_members).toEqual([expect.objectContaining({ id: oliver.id, email: 'oliver@example.com' })]);
  });
});

describe("the vendor's published invoice example", () => {
  it('POST v1 /clients/{id}/invoices: the published body, its total made the sum of its own line and tax', async () => {
    const db = env.alpha.handle.db;
    const s = makeProjectSetup(db);
    const other = makeProject(db, s.client.id);
    // 3 h recorded; the published line bills 2.5 h of it at 50/h.
    const entry = makeTimeEntry(db, { clientId: s.client.id, projectId: s.project.id, taskId: s.task.id, userId: s.member.id }, { seconds: 3 * 3600, enteredSeconds: 3 * 3600 });
    const [r1, r2] = [makeRecipient(db, s.client.id), makeRecipient(db, s.client.id)];
    const body = substitute(PUBLISHED.generateInvoiceV1, {
      email: env.alpha.ownerEmail,
      time_entry_id: entry.id,
      project_id: s.project.id,
      task_id: s.task.id,
      user_id: s.member.id,
      other_project_id: other.id,
      recipient_id: r1!.id,
      other_recipient_id: r2!.id,
    }) as Record<string, unknown>;
    // The published `total` (500) is not what its own line and tax add up to (2.5 h × 50 + 10 % GST);
    // every service that checks totals refuses it. Only this value is changed.
    const refused = await env.alpha.api.post(`${V1}/clients/${s.client.id}/invoices`, body);
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: 'total_mismatch', computed_total: 137.5 });
    const res = await env.alpha.api.post(`${V1}/clients/${s.client.id}/invoices`, { ...body, total: 137.5 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.invoice).toMatchObject({
      number: 'INV-EXT-001',
      total: 137.5,
      status: 'sending',
      issue_date: '2023-12-25',
      due_date: '2024-01-25',
      notes: 'Payment terms: Net 30 days',
      client_id: s.client.id,
    });
  });
});
