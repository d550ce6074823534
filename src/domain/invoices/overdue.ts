import { and, eq, isNull } from 'drizzle-orm';
import { invoices } from '../../db/schema/index.ts';
import { recordEvent } from '../events.ts';
import type { Scope } from '../scope.ts';
import { overdueSql, todayIn } from './balance.ts';
import { summaryOf } from './summaries.ts';

/**
 * Records `invoice.overdue` once per invoice, the first time a pass finds it overdue (balance.ts),
 * and stamps `overdue_at` in the same transaction so it is never recorded twice. Run by the
 * reminders job; returns how many invoices became overdue.
 */
export function recordOverdueInvoices(scope: Scope): number {
  const today = todayIn(scope);
  const due = scope.db
    .select({ id: invoices.id })
    .from(invoices)
    .where(and(isNull(invoices.overdueAt), overdueSql(today)))
    .all();
  let count = 0;
  for (const { id } of due) {
    count += scope.write((tx) => {
      const at = scope.now.toISOString();
      // Checked again inside the write: a payment may have landed since the read above.
      const [row] = tx
        .update(invoices)
        .set({ overdueAt: at })
        .where(and(eq(invoices.id, id), isNull(invoices.overdueAt), overdueSql(today)))
        .returning()
        .all();
      if (!row) return 0;
      recordEvent(scope, 'invoice.overdue', { invoice: summaryOf(scope, tx, row) });
      return 1;
    });
  }
  return count;
}
