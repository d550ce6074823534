import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { invoices } from '../../db/schema/index.ts';
import { inIds } from '../queries.ts';
import type { Scope } from '../scope.ts';
import { paidByInvoice, todayIn } from './balance.ts';
import { toInvoiceSummary, type InvoiceRow } from './records.ts';
import type { InvoiceSummary } from './schemas.ts';

/** The credit note of each of these (void) invoices, one query. */
function creditNotesOf(db: Db, invoiceIds: readonly string[]): Map<string, string> {
  if (invoiceIds.length === 0) return new Map();
  const rows = db
    .select({ id: invoices.id, credited: invoices.creditedInvoiceId })
    .from(invoices)
    .where(and(eq(invoices.kind, 'credit_note'), inIds(invoices.creditedInvoiceId, invoiceIds)))
    .all();
  return new Map(rows.flatMap((r) => (r.credited ? [[r.credited, r.id] as const] : [])));
}

/**
 * Invoices as the API shows them, with what each derives (amount paid, balance due, overdue, its
 * credit note), in two queries however many rows there are. `db` is the caller's transaction when
 * it has one, so a summary written into an event reflects the change being made.
 */
export function summariesOf(scope: Pick<Scope, 'now' | 'workspace' | 'links'>, db: Db, rows: readonly InvoiceRow[]): InvoiceSummary[] {
  const ids = rows.map((r) => r.id);
  const paid = paidByInvoice(db, ids);
  const voided = rows.filter((r) => r.status === 'void').map((r) => r.id);
  const creditNotes = creditNotesOf(db, voided);
  const today = todayIn(scope);
  return rows.map((r) =>
    toInvoiceSummary(r, scope.workspace.id, scope.links.publicBase, { paidMinor: paid.get(r.id) ?? 0, creditNoteId: creditNotes.get(r.id) ?? null, today }),
  );
}

export const summaryOf = (scope: Pick<Scope, 'now' | 'workspace' | 'links'>, db: Db, row: InvoiceRow): InvoiceSummary => summariesOf(scope, db, [row])[0]!;
