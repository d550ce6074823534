import { asc, count, eq } from 'drizzle-orm';
import { clients, invoices, timeEntries } from '../db/schema/index.ts';
import { createInvoice } from '../domain/invoices/create.ts';
import { priceInvoice, type PricingRequest } from '../domain/invoices/price.ts';
import { billableEntries } from '../domain/invoices/queries.ts';
import type { ClientRow } from '../domain/clients/records.ts';
import { fromMinor } from '../domain/money.ts';
import { groupBy } from '../domain/queries.ts';
import type { ActorScope } from '../domain/scope.ts';

const DEMO_SERVICES = [
  { notes: 'Monthly retainer', quantity: 1, unit_amount: 1500 },
  { notes: 'Hosting and maintenance', quantity: 3, unit_amount: 49.9 },
];
const DEMO_TAX = [{ name: 'VAT', percentage: 19, notes: '', selected: true }];

/** The total the API will compute for these lines, from the same pricing step. */
function totalOf(owner: ActorScope, client: ClientRow, request: PricingRequest): number {
  const entries = billableEntries(owner, request.invoice_time_entries?.map((l) => l.time_entry_id) ?? []);
  const priced = priceInvoice(request, { clientId: client.id, currency: client.currency, clientProjects: new Set(), allowedProjects: null, entries });
  return fromMinor(priced.totalMinor, client.currency);
}

/** Up to twelve unbilled entries of the client with most, whose project bills in the client's currency. */
function timeLinesOfBusiestClient(owner: ActorScope, active: ClientRow[]) {
  const unbilled = owner.db
    .select({ id: timeEntries.id, clientId: timeEntries.clientId, projectId: timeEntries.projectId, taskId: timeEntries.taskId, userId: timeEntries.userId })
    .from(timeEntries)
    .where(eq(timeEntries.status, 'unbilled'))
    .orderBy(asc(timeEntries.recordedOn), asc(timeEntries.id))
    .all();
  const perClient = groupBy(unbilled, (e) => e.clientId);
  const busiest = active.filter((c) => perClient.has(c.id)).sort((a, b) => perClient.get(b.id)!.length - perClient.get(a.id)!.length)[0];
  if (!busiest) return null;
  const candidates = perClient.get(busiest.id)!.slice(0, 12);
  const entries = billableEntries(
    owner,
    candidates.map((e) => e.id),
  );
  const lines = candidates
    .filter((e) => entries.get(e.id)?.projectCurrency === busiest.currency)
    .map((e) => ({ time_entry_id: e.id, project_id: e.projectId, task_id: e.taskId, user_id: e.userId }));
  return lines.length > 0 ? { client: busiest, lines } : null;
}

/**
 * Two invoices for the demo workspace, once: one from some unbilled demo time entries of the client
 * that has most (when the time-entry seeder left any), and one of service lines with VAT. Totals come
 * from the same pricing step the API checks them with, so the seeder never guesses.
 */
export function seedInvoices(owner: ActorScope): void {
  if ((owner.db.select({ n: count() }).from(invoices).get()?.n ?? 0) > 0) return;
  let seq = 1;
  const number = () => `INV-${String(seq++).padStart(4, '0')}`;
  const active = owner.db.select().from(clients).where(eq(clients.status, 'active')).orderBy(asc(clients.createdAt)).all();

  const time = timeLinesOfBusiestClient(owner, active);
  if (time) {
    const request = { invoice_time_entries: time.lines };
    createInvoice(owner, {
      client_id: time.client.id,
      number: number(),
      total: totalOf(owner, time.client, request),
      notes: 'Thank you for your business.',
      include_hours_by_person: true,
      include_payment_link: true,
      ...request,
    });
  }
  const serviceClient = active.find((c) => c.currency === 'EUR') ?? active[0];
  if (serviceClient) {
    const request = { invoice_services: DEMO_SERVICES, tax_details: DEMO_TAX };
    createInvoice(owner, {
      client_id: serviceClient.id,
      number: number(),
      total: totalOf(owner, serviceClient, request),
      notes: 'Retainer for the current month.',
      include_payment_link: true,
      ...request,
    });
  }
}
