import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clients, projects, timeEntries } from '../src/db/schema/index.ts';
import { makeProjectSetup, makeRecipient, makeTimeEntry } from './helpers/factories.ts';
import { startTestEnv, testClock, type TestEnv } from './helpers/env.ts';

/**
 * UUIDs are read regardless of case (RFC 9562; Swift prints them in upper case), in paths and in
 * bodies, and answered in lower case: an integrator that upper-cases an id finds the same record.
 */
let env: TestEnv;
const clock = testClock('2026-11-18T10:00:00.000Z');
const up = (id: string) => id.toUpperCase();
const JSON_ACCEPT = { headers: { accept: 'application/json' } };

beforeAll(async () => {
  env = await startTestEnv({ clock });
});
afterAll(() => env.close());

describe('ids in upper case', () => {
  it('find the same client, project, task, member and entries in paths and bodies; answers carry them in lower case', async () => {
    const db = env.alpha.handle.db;
    const s = makeProjectSetup(db);
    makeRecipient(db, s.client.id);

    const read = await env.alpha.api.get(`/api/external/v1/clients/${up(s.client.id)}`);
    expect(read.status).toBe(200);
    expect(read.body.client.id).toBe(s.client.id);

    const entry = await env.alpha.api.post('/api/external/v2/time-entries', {
      client_id: up(s.client.id),
      project_id: up(s.project.id),
      task_id: up(s.task.id),
      email: s.member.email,
      recorded_on: '2026-11-18',
      hours: '1',
      checklist_items: [{ id: up(s.item.id), is_completed: true }],
    });
    expect(entry.status).toBe(201);
    expect(entry.body).toMatchObject({ task_id: s.task.id, user_id: s.member.id });
    expect(db.select().from(timeEntries).where(eq(timeEntries.id, entry.body.id)).get()).toMatchObject({ clientId: s.client.id, projectId: s.project.id });

    const other = makeTimeEntry(db, { clientId: s.client.id, projectId: s.project.id, taskId: s.task.id, userId: s.member.id }, { status: 'unbilled', seconds: 3600, enteredSeconds: 3600 });
    const invoice = await env.alpha.api.post(`/api/external/v2/clients/${up(s.client.id)}/invoices`, {
      email: env.alpha.ownerEmail,
      number: 'CASE-1',
      total: Number(s.project.hourlyRateMinor) / 100,
      invoice_time_entries: [{ time_entry_id: up(other.id), project_id: up(s.project.id), task_id: up(s.task.id), user_id: up(s.member.id) }],
    });
    expect(invoice.status, JSON.stringify(invoice.body)).toBe(201);
    expect(invoice.body.invoice.client_id).toBe(s.client.id);
    expect(db.select().from(timeEntries).where(eq(timeEntries.id, other.id)).get()?.status).toBe('billed');

    const member = await env.alpha.api.patch(`/api/external/v1/team_members/${up(s.member.id)}`, { first_name: 'Upper' }, JSON_ACCEPT);
    expect(member.status).toBe(200);
    expect(member.body.team_member).toMatchObject({ id: s.member.id, first_name: 'Upper' });

    const archived = await env.alpha.api.post('/api/external/v1/projects/update_status', { project_ids: [up(s.project.id)], status: 'archived', email: env.alpha.ownerEmail });
    expect(archived.status).toBe(200);
    expect(db.select().from(projects).where(eq(projects.id, s.project.id)).get()?.status).toBe('archived');

    const clientStatus = await env.alpha.api.post('/api/external/v1/clients/update_status', { client_ids: [up(s.client.id)], status: 'archived' });
    expect(clientStatus.status).toBe(204);
    expect(db.select().from(clients).where(eq(clients.id, s.client.id)).get()?.status).toBe('archived');
  });

  it('a string that is not a UUID is still not found, whatever its case', async () => {
    const res = await env.alpha.api.get('/api/external/v1/clients/NOT-A-UUID');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('client_not_found');
  });
});
