import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoices } from '../src/db/schema/index.ts';
import { balanceDueMinor, balanceDueSql, isOverdue, overdueSql, paidByInvoice, paidMinorSql, statusAfterPayments } from '../src/domain/invoices/balance.ts';
import { startTestEnv, testClock, type TestEnv } from './helpers/env.ts';
import { makeClient } from './helpers/factories.ts';

describe('the balance rule', () => {
  const base = { kind: 'invoice' as const, totalMinor: 10000, dueDate: '2026-11-20' };
  it('balance due: total − payments for issued, unsettled invoices; 0 otherwise', () => {
    expect(balanceDueMinor({ ...base, status: 'sent' }, 0)).toBe(10000);
    expect(balanceDueMinor({ ...base, status: 'sending' }, 2500)).toBe(7500);
    expect(balanceDueMinor({ ...base, status: 'partially_paid' }, 2500)).toBe(7500);
    for (const status of ['draft', 'paid', 'void'] as const) expect(balanceDueMinor({ ...base, status }, 0)).toBe(0);
    expect(balanceDueMinor({ ...base, kind: 'credit_note', totalMinor: -10000, status: 'sent' }, 0)).toBe(0);
    expect(balanceDueMinor({ ...base, status: 'sent' }, 12000)).toBe(0);
  });

  it('overdue: due before today with a balance', () => {
    expect(isOverdue({ ...base, status: 'sent' }, 0, '2026-11-20')).toBe(false);
    expect(isOverdue({ ...base, status: 'sent' }, 0, '2026-11-21')).toBe(true);
    expect(isOverdue({ ...base, status: 'partially_paid' }, 9999, '2026-11-21')).toBe(true);
    expect(isOverdue({ ...base, status: 'paid' }, 10000, '2026-11-21')).toBe(false);
    expect(isOverdue({ ...base, status: 'draft' }, 0, '2027-01-01')).toBe(false);
  });

  it('status after payments', () => {
    expect(statusAfterPayments({ totalMinor: 100, sentAt: null }, 0)).toBe('sending');
    expect(statusAfterPayments({ totalMinor: 100, sentAt: 'x' }, 0)).toBe('sent');
    expect(statusAfterPayments({ totalMinor: 100, sentAt: 'x' }, 1)).toBe('partially_paid');
    expect(statusAfterPayments({ totalMinor: 100, sentAt: null }, 100)).toBe('paid');
  });
});

describe('the SQL twins say what the functions say', () => {
  let env: TestEnv;
  const clock = testClock('2026-11-18T10:00:00.000Z');
  beforeAll(async () => {
    env = await startTestEnv({ clock });
  });
  afterAll(() => env.close());

  it('for every state an invoice can be in', async () => {
    const ws = env.alpha;
    const email = ws.ownerEmail;
    const client = makeClient(ws.handle.db);
    let n = 0;
    const make = async (due: string) =>
      (await ws.caller.invoices.create({ email, client_id: client.id, number: `B-${++n}`, total: 100, due_date: due, issue_date: '2026-11-01', invoice_services: [{ unit_amount: 100 }] })).invoice.id;
    for (const due of ['2026-11-10', '2026-11-18', '2026-12-01']) {
      await make(due); // draft
      const sent = await make(due);
      await ws.caller.invoices.markSent({ email, invoice_id: sent });
      const part = await make(due);
      await ws.caller.invoices.markSent({ email, invoice_id: part });
      await ws.caller.invoices.recordPayment({ email, invoice_id: part, amount: 30, method: 'cash' });
      const paid = await make(due);
      await ws.caller.invoices.markSent({ email, invoice_id: paid });
      await ws.caller.invoices.markPaid({ email, invoice_id: paid });
      const voided = await make(due);
      await ws.caller.invoices.markSent({ email, invoice_id: voided });
      await ws.caller.invoices.recordPayment({ email, invoice_id: voided, amount: 10, method: 'cash' });
      await ws.caller.invoices.void({ email, invoice_id: voided });
    }
    const db = ws.handle.db;
    for (const today of ['2026-11-17', '2026-11-18', '2026-11-19', '2026-12-02']) {
      const rows = db
        .select({ row: invoices, paid: paidMinorSql, balance: balanceDueSql, overdue: sql<number>`${overdueSql(today)}` })
        .from(invoices)
        .all();
      expect(rows.length).toBeGreaterThan(15);
      const paid = paidByInvoice(db, rows.map((r) => r.row.id));
      for (const r of rows) {
        const p = paid.get(r.row.id) ?? 0;
        expect(r.paid).toBe(p);
        expect(r.balance, `${r.row.number} ${r.row.status}`).toBe(balanceDueMinor(r.row, p));
        expect(Boolean(r.overdue), `${r.row.number} ${r.row.status} on ${today}`).toBe(isOverdue(r.row, p, today));
      }
    }
  });
});
