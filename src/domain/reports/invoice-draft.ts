import { and, asc, eq, lte } from 'drizzle-orm';
import { projects, tasks, timeEntries } from '../../db/schema/index.ts';
import { invalidField, unprocessable } from '../../errors.ts';
import { requireAdmin } from '../access.ts';
import { getClientRow } from '../clients/queries.ts';
import { nextInvoiceNumber } from '../invoices/next-number.ts';
import { defaultHourlyRateMinor } from '../invoices/lines.ts';
import { priceInvoice } from '../invoices/price.ts';
import { billableEntries } from '../invoices/queries.ts';
import { fromMinor } from '../money.ts';
import { inIds } from '../queries.ts';
import type { Scope } from '../scope.ts';
import { hoursOf } from '../time/hours.ts';
import { todayOf } from './range.ts';
import type { InvoiceDraftInput, InvoiceDraftOutput } from './schemas.ts';

/**
 * One invoice request holds at most this many time lines: the 1 MiB body limit of both doors fits
 * about 5,000 lines of four ids (README, "Size"). Older entries go first; the rest wait for the
 * next invoice.
 */
export const MAX_DRAFT_LINES = 5000;

/** The client's projects the draft may bill: all of them, or the named ones (each must be the client's). */
function projectsToBill(scope: Scope, clientId: string, named: readonly string[] | undefined): string[] {
  const own = scope.db.select({ id: projects.id }).from(projects).where(eq(projects.clientId, clientId)).all().map((p) => p.id);
  if (!named) return own;
  const mine = new Set(own);
  named.forEach((id, i) => {
    if (!mine.has(id)) throw invalidField(`project_ids.${i}`, 'is not a project of this client');
  });
  return [...new Set(named)];
}

/**
 * tRPC `reports.invoiceDraft`: "invoice this" for one client's unbilled work. It writes nothing:
 * it answers the exact request of endpoint 1 (and `invoices.create`) that bills the client's
 * unbilled entries of billable tasks up to `to`, oldest first, with a proposed number, today's
 * issue date and the total the invoices' own pricing computes, so the app can show it for review
 * and send it as it is (adding `email`, and taxes or dates if wanted).
 */
export function invoiceDraft(scope: Scope, input: InvoiceDraftInput): InvoiceDraftOutput {
  requireAdmin(scope, 'start invoices');
  const client = getClientRow(scope.db, input.client_id);
  // The same refusal invoice creation would answer, before the work of a draft it would refuse.
  if (client.status !== 'active') throw unprocessable('client_archived', `Client ${client.name} is archived; reactivate it to invoice it`);
  const to = input.to ?? todayOf(scope);
  const projectIds = projectsToBill(scope, client.id, input.project_ids);
  const where = and(eq(timeEntries.status, 'unbilled'), eq(tasks.billable, true), inIds(timeEntries.projectId, projectIds), lte(timeEntries.recordedOn, to));
  const rows = scope.db
    .select({ id: timeEntries.id, projectId: timeEntries.projectId, taskId: timeEntries.taskId, userId: timeEntries.userId })
    .from(timeEntries)
    .innerJoin(tasks, eq(tasks.id, timeEntries.taskId))
    .where(where)
    .orderBy(asc(timeEntries.recordedOn), asc(timeEntries.createdAt), asc(timeEntries.id))
    .all();
  if (rows.length === 0) throw unprocessable('nothing_to_invoice', `${client.name} has no unbilled time of billable tasks recorded up to ${to}`);
  // Entries with no rate in the client's currency (a project billed in another one without a rate
  // of its own, a person no longer on a per-person-rate project) are left out, as the unbilled
  // report leaves them out of its amounts: endpoint 1 would refuse the whole request for one of them.
  const all = billableEntries(scope, rows.map((r) => r.id));
  const rated = rows.filter((r) => defaultHourlyRateMinor(all.get(r.id)!, client.currency) !== null);
  if (rated.length === 0) {
    throw unprocessable('nothing_to_invoice', `None of ${client.name}'s unbilled time up to ${to} has an hourly rate in ${client.currency}; give its projects a rate in ${client.currency}`);
  }
  const lines = rated.slice(0, MAX_DRAFT_LINES).map((r) => ({ time_entry_id: r.id, project_id: r.projectId, task_id: r.taskId, user_id: r.userId }));
  const priced = priceInvoice(
    { invoice_time_entries: lines },
    // Pricing looks up each line's entry: the entries read above hold them all.
    { clientId: client.id, currency: client.currency, clientProjects: new Set(projectIds), allowedProjects: null, entries: all },
  );
  const seconds = priced.lines.reduce((sum, l) => sum + (l.seconds ?? 0), 0);
  const total = fromMinor(priced.totalMinor, client.currency);
  return {
    client: { id: client.id, name: client.name },
    currency: client.currency,
    entries: lines.length,
    seconds,
    hours: hoursOf(seconds),
    amount: total,
    remaining_entries: rated.length - lines.length,
    unpriced_entries: rows.length - rated.length,
    request: {
      client_id: client.id,
      number: nextInvoiceNumber(scope).number,
      issue_date: todayOf(scope),
      total,
      project_id: [...new Set(lines.map((l) => l.project_id))].sort(),
      invoice_time_entries: lines,
    },
  };
}
