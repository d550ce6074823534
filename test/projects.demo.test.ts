import { count } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projects } from '../src/db/schema/index.ts';
import { seedProjects } from '../src/demo/projects.ts';
import { seedTeamAndClients } from '../src/demo/team-and-clients.ts';
import { asOwner } from '../src/demo/owner.ts';
import { scopeOf, startTestEnv, type TestEnv } from './helpers/env.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv();
});
afterAll(() => env.close());

describe('demo projects', () => {
  it('creates one project per billing style through the domain, once', async () => {
    const ws = env.workspace('demoprojects');
    const now = new Date('2026-11-18T10:00:00.000Z');
    seedTeamAndClients(scopeOf(env.services, ws.handle, now));
    seedProjects(asOwner(scopeOf(env.services, ws.handle, now))!);
    seedProjects(asOwner(scopeOf(env.services, ws.handle, now))!);
    expect(ws.handle.db.select({ n: count() }).from(projects).get()?.n).toBe(3);

    const { items } = await ws.caller.projects.list({});
    expect(items.map((p) => [p.name, p.billing_method, p.currency, p.identifier])).toEqual([
      ['Website relaunch', 'hourly_project_rate', 'USD', 'ACME-0001'],
      ['Support retainer', 'hourly_person_rate', 'EUR', 'GLOBEX-0001'],
      ['Mobile app MVP', 'fixed_price_project', 'JPY', 'UMBREL-0001'],
    ]);
    expect(items[2]?.flat_amount).toBe('2500000');
    const website = (await ws.caller.projects.get({ project_id: items[0]!.id })).project;
    expect(website.tasks.map((t) => t.name)).toEqual(['Design', 'Development', 'Internal meetings']);
    expect(website.tasks[0]?.checklist_items).toHaveLength(2);
    expect(website.project_users.map((u) => [u.email, u.role])).toEqual([
      ['ada@demo.localhost', 'project_manager'],
      ['grace@demo.localhost', 'regular_user'],
      ['linus@demo.localhost', 'regular_user'],
      [ws.ownerEmail, 'project_manager'],
    ]);
  });
});
