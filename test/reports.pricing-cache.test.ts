import BetterSqlite3 from 'better-sqlite3';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clients, projects, projectUsers, tasks } from '../src/db/schema/index.ts';
import { timeReport } from '../src/domain/reports/time-report.ts';
import { makeClient, makeMember, makeProject, makeProjectUser, makeTask, makeTimeEntry } from './helpers/factories.ts';
import { scopeOf, startTestEnv, type TestEnv, type TestWorkspace } from './helpers/env.ts';

/**
 * The reports keep their priced combinations between calls (src/domain/reports/combos.ts). Every
 * change a price depends on must show in the next report, whoever made it, and a write that rolls
 * back must leave the pricing of what stayed committed.
 */

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv();
});
afterAll(() => env.close());

function setup(ws: TestWorkspace) {
  const db = ws.handle.db;
  const client = makeClient(db, { name: 'Acme', currency: 'USD' });
  const project = makeProject(db, client.id, { name: 'Site', billingMethod: 'hourly_project_rate', hourlyRateMinor: 10000 });
  const task = makeTask(db, project.id, { name: 'Build', hourlyRateMinor: 7000 });
  const ann = makeMember(db, { firstName: 'Ann', lastName: 'A', email: `ann@${ws.subdomain}.test` });
  makeProjectUser(db, project.id, ann.id, { hourlyRateMinor: 15000 });
  makeTimeEntry(db, { clientId: client.id, projectId: project.id, taskId: task.id, userId: ann.id }, { recordedOn: '2026-11-02', seconds: 3600, enteredSeconds: 3600 });
  return { client, project, task, ann };
}

const input = { from: '2026-11-01', to: '2026-11-30', by: ['project'] } as const;
const usd = (ws: TestWorkspace) => timeReport(scopeOf(env.services, ws.handle), { ...input, by: [...input.by] }).totals.amounts[0]?.billable_amount;

describe('the priced combinations kept between reports', () => {
  it('follow every change a price is made from: project rate, billing method, task rate, person rate, billable task', () => {
    const ws = env.workspace('cache-changes');
    const s = setup(ws);
    const db = ws.handle.db;
    expect(usd(ws)).toBe(100);
    db.update(projects).set({ hourlyRateMinor: 12000 }).where(eq(projects.id, s.project.id)).run();
    expect(usd(ws)).toBe(120);
    db.update(projects).set({ billingMethod: 'hourly_task_rate' }).where(eq(projects.id, s.project.id)).run();
    expect(usd(ws)).toBe(70);
    db.update(tasks).set({ hourlyRateMinor: 8000 }).where(eq(tasks.id, s.task.id)).run();
    expect(usd(ws)).toBe(80);
    db.update(projects).set({ billingMethod: 'hourly_person_rate' }).where(eq(projects.id, s.project.id)).run();
    expect(usd(ws)).toBe(150);
    db.update(projectUsers).set({ hourlyRateMinor: 16000 }).where(eq(projectUsers.projectId, s.project.id)).run();
    expect(usd(ws)).toBe(160);
    db.update(tasks).set({ billable: false }).where(eq(tasks.id, s.task.id)).run();
    expect(usd(ws)).toBe(0);
  });

  it('count a combination that is new since the last report', () => {
    const ws = env.workspace('cache-new-combo');
    const s = setup(ws);
    expect(usd(ws)).toBe(100);
    const bob = makeMember(ws.handle.db, { firstName: 'Bob', lastName: 'B', email: `bob@${ws.subdomain}.test` });
    makeProjectUser(ws.handle.db, s.project.id, bob.id, {});
    makeTimeEntry(ws.handle.db, { clientId: s.client.id, projectId: s.project.id, taskId: s.task.id, userId: bob.id }, { recordedOn: '2026-11-03', seconds: 1800, enteredSeconds: 1800 });
    expect(usd(ws)).toBe(150);
  });

  it('see a rate changed by another connection to the file (the command line)', () => {
    const ws = env.workspace('cache-other-connection');
    const s = setup(ws);
    expect(usd(ws)).toBe(100);
    const other = new BetterSqlite3(ws.handle.file);
    try {
      other.prepare('UPDATE projects SET hourly_rate_minor = 9000 WHERE id = ?').run(s.project.id);
    } finally {
      other.close();
    }
    expect(usd(ws)).toBe(90);
  });

  it('after a write that rolled back, price what stayed committed, even when a report ran inside it', () => {
    const ws = env.workspace('cache-rollback');
    const s = setup(ws);
    const scope = scopeOf(env.services, ws.handle);
    expect(usd(ws)).toBe(100);
    expect(() =>
      scope.write((tx) => {
        tx.update(projects).set({ hourlyRateMinor: 50000 }).where(eq(projects.id, s.project.id)).run();
        // The report inside the transaction sees its own change, and prices with it.
        expect(timeReport(scope, { ...input, by: ['project'] }).totals.amounts[0]?.billable_amount).toBe(500);
        throw new Error('refused after the report');
      }),
    ).toThrow('refused after the report');
    expect(usd(ws)).toBe(100);
  });

  it('are priced again only after a change: a report with nothing changed reuses them', () => {
    const ws = env.workspace('cache-reuse');
    const s = setup(ws);
    expect(usd(ws)).toBe(100);
    // Marks the kept pricing (the temp table is the connection's own, no trigger sees this): a
    // report that reuses it shows the mark, one that priced again would not.
    ws.handle.sqlite.prepare('UPDATE temp.report_combos SET rate_hi = 0, rate_lo = 1800').run();
    expect(usd(ws)).toBe(18);
    // A change that leaves this combination's price alone writes nothing to it: the mark stays.
    makeTask(ws.handle.db, s.project.id, { name: 'Other' });
    expect(usd(ws)).toBe(18);
    // One that changes its price rewrites its row.
    ws.handle.db.update(projects).set({ hourlyRateMinor: 12000 }).where(eq(projects.id, s.project.id)).run();
    expect(usd(ws)).toBe(120);
  });

  it('price again only the projects a change may have moved; a change from another connection prices all', () => {
    const ws = env.workspace('cache-by-project');
    const s = setup(ws);
    const other = makeProject(ws.handle.db, s.client.id, { name: 'Other', billingMethod: 'hourly_project_rate', hourlyRateMinor: 2000 });
    const otherTask = makeTask(ws.handle.db, other.id, { name: 'Other task' });
    makeProjectUser(ws.handle.db, other.id, s.ann.id, {});
    makeTimeEntry(ws.handle.db, { clientId: s.client.id, projectId: other.id, taskId: otherTask.id, userId: s.ann.id }, { recordedOn: '2026-11-04', seconds: 3600, enteredSeconds: 3600 });
    expect(usd(ws)).toBe(100 + 20);
    // Marks the other project's kept row: only a pricing of that project would undo the mark.
    ws.handle.sqlite.prepare('UPDATE temp.report_combos SET rate_hi = 0, rate_lo = 1800 WHERE project_id = ?').run(other.id);
    expect(usd(ws)).toBe(100 + 18);
    // A new rate on the first project notes that project alone; it is priced, the other is not looked at.
    ws.handle.db.update(projects).set({ hourlyRateMinor: 12000 }).where(eq(projects.id, s.project.id)).run();
    expect(ws.handle.sqlite.prepare('SELECT project_id FROM temp.report_dirty').pluck().all()).toEqual([s.project.id]);
    expect(usd(ws)).toBe(120 + 18);
    // A task of the other project changes: that project is priced again, the mark goes.
    ws.handle.db.update(tasks).set({ name: 'Renamed' }).where(eq(tasks.id, otherTask.id)).run();
    expect(usd(ws)).toBe(120 + 18); // its price did not change, so its row was not rewritten
    ws.handle.db.update(tasks).set({ hourlyRateMinor: 1 }).where(eq(tasks.id, otherTask.id)).run();
    ws.handle.db.update(projects).set({ billingMethod: 'hourly_project_rate', hourlyRateMinor: 2500 }).where(eq(projects.id, other.id)).run();
    expect(usd(ws)).toBe(120 + 25);
    // Another connection's commit notes nothing here (its triggers are this connection's own):
    // data_version tells of it, and every combination is priced again.
    const cli = new BetterSqlite3(ws.handle.file);
    try {
      const rate = cli.prepare('UPDATE projects SET hourly_rate_minor = ? WHERE id = ?');
      rate.run(13000, s.project.id);
      rate.run(3000, other.id);
    } finally {
      cli.close();
    }
    expect(usd(ws)).toBe(130 + 30);
  });

  it('a change to a client notes every project of the client', () => {
    const ws = env.workspace('cache-client');
    const s = setup(ws);
    const second = makeProject(ws.handle.db, s.client.id, { name: 'Second' });
    const elsewhere = makeProject(ws.handle.db, makeClient(ws.handle.db, { name: 'Other client' }).id, { name: 'Elsewhere' });
    expect(usd(ws)).toBe(100);
    const noted = () => ws.handle.sqlite.prepare('SELECT project_id FROM temp.report_dirty ORDER BY project_id').pluck().all();
    expect(noted()).toEqual([]);
    ws.handle.db.update(clients).set({ currency: 'EUR' }).where(eq(clients.id, s.client.id)).run();
    expect(noted()).toEqual([s.project.id, second.id].sort());
    expect(noted()).not.toContain(elsewhere.id);
    timeReport(scopeOf(env.services, ws.handle), { ...input, by: [...input.by] });
    expect(noted()).toEqual([]);
  });

  it('price many combinations again after a change to one of them, each at its own rate', () => {
    const ws = env.workspace('cache-many');
    const s = setup(ws);
    const others = [1, 2, 3].map((n) => {
      const project = makeProject(ws.handle.db, s.client.id, { name: `Other ${n}`, billingMethod: 'hourly_project_rate', hourlyRateMinor: n * 1000 });
      const task = makeTask(ws.handle.db, project.id, { name: `Task ${n}` });
      makeProjectUser(ws.handle.db, project.id, s.ann.id, {});
      makeTimeEntry(ws.handle.db, { clientId: s.client.id, projectId: project.id, taskId: task.id, userId: s.ann.id }, { recordedOn: '2026-11-04', seconds: 3600, enteredSeconds: 3600 });
      return project;
    });
    expect(usd(ws)).toBe(100 + 10 + 20 + 30);
    ws.handle.db.update(projects).set({ hourlyRateMinor: 5000 }).where(eq(projects.id, others[1]!.id)).run();
    expect(usd(ws)).toBe(100 + 10 + 50 + 30);
  });
});
