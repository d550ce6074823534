import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timeEntries, timeEntryCombos } from '../src/db/schema/index.ts';
import { totalsSql, type TotalsRequest } from '../src/domain/reports/entry-totals.ts';
import { connectionOf } from '../src/db/index.ts';
import { comboStatements } from '../src/domain/reports/combos.ts';
import { scopeOf, startTestEnv, type TestEnv } from './helpers/env.ts';
import { makeProjectSetup, makeTask, makeTimeEntry } from './helpers/factories.ts';

/**
 * What the hand-written migration (db/migrations/0010_entry_combination_ids.sql) must
 * leave in every workspace file: if it is lost when migrations are regenerated, this fails.
 */

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv();
});
afterAll(() => env.close());

const plan = (sql: string, params: Record<string, string>) =>
  (env.alpha.handle.sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[]).map((r) => r.detail);

describe('the reports schema', () => {
  it('has the covering report index on the month expression, and the triggers', () => {
    const objects = env.alpha.handle.sqlite.prepare("SELECT type, name, sql FROM sqlite_master WHERE name LIKE 'time_entr%' ORDER BY name").all() as { type: string; name: string; sql: string }[];
    const named = new Map(objects.map((o) => [o.name, o]));
    expect(named.get('time_entries_report_idx')?.sql).toContain('(`combo_id`, substr(`recorded_on`, 1, 7), `status`, `recorded_on`, `seconds`)');
    expect(named.get('time_entries_unbilled_idx')?.sql).toContain('(`combo_id`,`recorded_on`,`seconds`)');
    expect(named.get('time_entries_unbilled_idx')?.sql).toContain(`WHERE "time_entries"."status" = 'unbilled'`);
    expect(named.get('time_entry_combos_after_insert')?.type).toBe('trigger');
    expect(named.get('time_entry_combos_after_update')?.type).toBe('trigger');
  });

  it('keeps time_entry_combos a superset (new combinations, wider days, never narrower) and each entry on its combination', () => {
    const db = env.alpha.handle.db;
    const s = makeProjectSetup(db);
    const other = makeTask(db, s.project.id);
    const refs = { clientId: s.client.id, projectId: s.project.id, taskId: s.task.id, userId: s.member.id };
    const combo = (taskId: string) => db.select().from(timeEntryCombos).where(eq(timeEntryCombos.taskId, taskId)).get();
    const comboOf = (entryId: string) => db.select({ comboId: timeEntries.comboId }).from(timeEntries).where(eq(timeEntries.id, entryId)).get()?.comboId;
    const a = makeTimeEntry(db, refs, { recordedOn: '2026-03-10' });
    const b = makeTimeEntry(db, refs, { recordedOn: '2026-01-05' });
    expect(combo(s.task.id)).toMatchObject({ firstOn: '2026-01-05', lastOn: '2026-03-10' });
    expect(comboOf(a.id)).toBe(combo(s.task.id)!.id);
    expect(comboOf(b.id)).toBe(combo(s.task.id)!.id);
    db.update(timeEntries).set({ recordedOn: '2026-05-01' }).where(eq(timeEntries.id, a.id)).run();
    expect(combo(s.task.id)).toMatchObject({ firstOn: '2026-01-05', lastOn: '2026-05-01' });
    db.update(timeEntries).set({ taskId: other.id }).where(eq(timeEntries.id, a.id)).run();
    expect(combo(other.id)).toMatchObject({ firstOn: '2026-05-01', lastOn: '2026-05-01' });
    expect(comboOf(a.id)).toBe(combo(other.id)!.id);
    expect(combo(other.id)!.id).not.toBe(combo(s.task.id)!.id);
    expect(comboOf(b.id)).toBe(combo(s.task.id)!.id);
    db.delete(timeEntries).where(eq(timeEntries.id, a.id)).run();
    expect(combo(other.id)).toBeDefined();
  });

  it('reads the report index covering, combination by combination, without sorting the entries', () => {
    const scope = scopeOf(env.services, env.alpha.handle);
    scope.statements(comboStatements);
    expect(connectionOf(scope.db)).toBe(env.alpha.handle.sqlite);
    const request = (over: Partial<TotalsRequest>): TotalsRequest => ({
      source: 'all',
      from: '2026-01-01',
      to: '2026-12-31',
      statuses: null,
      billable: null,
      entries: { projects: null, users: null, member: null },
      group: ['project', 'month'],
      ...over,
    });
    const all = plan(totalsSql(request({})), { from: '2026-01-01', to: '2026-12-31', fromMonth: '2026-01', toMonth: '2026-12' });
    expect(all).toContain('SEARCH e USING COVERING INDEX time_entries_report_idx (combo_id=? AND <expr>>? AND <expr><?)');
    // The only sort is of the per-combination totals (the outer GROUP BY), never of the entries.
    expect(all.filter((d) => d.includes('TEMP B-TREE'))).toEqual(['USE TEMP B-TREE FOR GROUP BY']);
    expect(all.indexOf('USE TEMP B-TREE FOR GROUP BY')).toBeGreaterThan(all.indexOf('SCAN i'));
    const unbilled = plan(totalsSql(request({ source: 'unbilled', from: null, group: ['client', 'project'] })), { to: '2026-12-31' });
    expect(unbilled).toContain('SEARCH e USING COVERING INDEX time_entries_unbilled_idx (combo_id=? AND recorded_on<?)');
  });
});
