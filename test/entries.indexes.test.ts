import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestEnv, type TestEnv, type TestWorkspace } from './helpers/env.ts';
import { makeProjectSetup, makeTimeEntry } from './helpers/factories.ts';

/**
 * Billing moves every entry of an invoice through each index on a column it changes, so
 * `time_entries` has no index on `status` or `invoice_id` (db/migrations/0011_pending_index.sql).
 * These are the reads that went through those indexes: each must still find its entries through an
 * index, and none may read the whole table.
 */

let env: TestEnv;
let ws: TestWorkspace;
beforeAll(async () => {
  env = await startTestEnv();
  ws = env.alpha;
});
afterAll(() => env.close());

/** The SQL of every statement `work` prepares on the workspace's connection that touches time_entries. */
async function entryStatementsOf(work: () => Promise<unknown>): Promise<string[]> {
  const spy = vi.spyOn(ws.handle.sqlite, 'prepare');
  try {
    await work();
    return spy.mock.calls.map(([sql]) => sql).filter((sql) => /"time_entries"/.test(sql) && !/^insert/i.test(sql));
  } finally {
    spy.mockRestore();
  }
}

/** The query plan of a statement, its parameters bound to null (the plan does not depend on them). */
const planOf = (sql: string) =>
  (ws.handle.sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...Array.from(sql.matchAll(/\?/g), () => null)) as { detail: string }[]).map((r) => r.detail);

const fullScans = (plan: string[]) => plan.filter((d) => /^SCAN time_entries(?! USING)/.test(d));

function billedSetup(n: number) {
  const s = makeProjectSetup(ws.handle.db);
  const refs = { clientId: s.client.id, projectId: s.project.id, taskId: s.task.id, userId: s.member.id };
  const entries = Array.from({ length: n }, () => makeTimeEntry(ws.handle.db, refs));
  return { ...s, refs, entries, lines: entries.map((e) => ({ time_entry_id: e.id, project_id: s.project.id, task_id: s.task.id, user_id: s.member.id })) };
}

describe('reads of time entries by status or invoice', () => {
  it('the approval list reads only the pending index', async () => {
    const s = billedSetup(0);
    makeTimeEntry(ws.handle.db, s.refs, { status: 'pending_approval' });
    const statements = await entryStatementsOf(async () => expect((await ws.caller.approvals.pending({})).items).toHaveLength(1));
    expect(statements).toHaveLength(1);
    const plan = planOf(statements[0]!);
    expect(plan.some((d) => d.includes('time_entries USING INDEX time_entries_pending_idx'))).toBe(true);
    expect(fullScans(plan)).toEqual([]);
  });

  it('voiding an invoice finds its entries through its lines, and releases every one', async () => {
    const s = billedSetup(3);
    const res = await ws.api.post(`/api/external/v2/clients/${s.client.id}/invoices`, { email: ws.ownerEmail, number: 'IDX-1', total: 300, invoice_time_entries: s.lines });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const id = res.body.invoice.id as string;
    await ws.caller.invoices.markSent({ email: ws.ownerEmail, invoice_id: id });
    const statements = await entryStatementsOf(() => ws.caller.invoices.void({ email: ws.ownerEmail, invoice_id: id }));
    const release = statements.find((sql) => /^update "time_entries"/.test(sql));
    expect(release).toBeDefined();
    const plan = planOf(release!);
    expect(plan).toContain('SEARCH time_entries USING INDEX sqlite_autoindex_time_entries_1 (id=?)');
    expect(plan).toContain('SEARCH invoice_lines USING INDEX invoice_lines_invoice_idx (invoice_id=?)');
    const statuses = ws.handle.sqlite.prepare(`SELECT status, invoice_id FROM time_entries WHERE id IN (${s.entries.map(() => '?').join(', ')})`).all(...s.entries.map((e) => e.id));
    expect(statuses).toEqual(s.entries.map(() => ({ status: 'unbilled', invoice_id: null })));
  });

  it("a task made non-billable finds its entries by their combinations' numbers", async () => {
    const s = billedSetup(2);
    const statements = await entryStatementsOf(() =>
      ws.api.patch(`/api/external/v1/projects/${s.project.id}`, { email: ws.ownerEmail, project: { tasks_attributes: [{ id: s.task.id, billable: false }] } }).then((r) => expect(r.status).toBe(200)),
    );
    const move = statements.find((sql) => /^update "time_entries"/.test(sql));
    expect(move).toBeDefined();
    const plan = planOf(move!);
    expect(plan.some((d) => /^SEARCH time_entries USING (COVERING )?INDEX time_entries_report_idx \(combo_id=\?\)$/.test(d))).toBe(true);
    expect(fullScans(plan)).toEqual([]);
    expect(ws.handle.sqlite.prepare('SELECT DISTINCT status FROM time_entries WHERE task_id = ?').pluck().all(s.task.id)).toEqual(['non_billable']);
  });
});
