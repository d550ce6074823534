import { and, asc, count, eq } from 'drizzle-orm';
import { publicUrlFor, type Config } from '../config.ts';
import { clients, invoices, teamMembers, timeEntries } from '../db/schema/index.ts';
import { createInvoice, invoiceStatements, type InvoiceDeps } from '../domain/invoices/create.ts';
import { computeServiceLines, computeTaxes, computeTimeLines, sumMinor } from '../domain/invoices/lines.ts';
import { domainOfAddress } from '../domain/invoices/mail.ts';
import { fromMinor } from '../domain/money.ts';
import type { WorkspaceHandle } from '../workspaces/handle.ts';
import { workspaceInfo } from '../workspaces/info.ts';

const DEMO_SERVICES = [
  { notes: 'Monthly retainer', quantity: 1, unit_amount: 1500 },
  { notes: 'Hosting and maintenance', quantity: 3, unit_amount: 49.9 },
];
const DEMO_TAX = [{ name: 'VAT', percentage: 19, notes: '', selected: true }];

/**
 * Two invoices for the demo workspace, once: one from some unbilled demo time entries of the client
 * that has most (when the time-entry seeder left any), and one of service lines with VAT. Totals are
 * computed with the same functions the API checks them with, so the seeder never guesses.
 */
export function seedInvoices(handle: WorkspaceHandle, now: Date, config?: Pick<Config, 'publicUrl' | 'mailFrom'>): void {
  const db = handle.db;
  if ((db.select({ n: count() }).from(invoices).get()?.n ?? 0) > 0) return;
  const owner = db.select().from(teamMembers).where(and(eq(teamMembers.organizationRole, 'Owner'), eq(teamMembers.active, true))).orderBy(asc(teamMembers.createdAt)).get();
  if (!owner) return;
  const actor = { id: owner.id, email: owner.email, firstName: owner.firstName, lastName: owner.lastName, timeZone: owner.timeZone, organizationRole: owner.organizationRole };
  const info = workspaceInfo(handle);
  const deps: InvoiceDeps = {
    db,
    handle,
    organizationId: info.id,
    timeZone: info.timeZone,
    mail: {
      workspaceName: info.name,
      publicBase: publicUrlFor({ publicUrl: config?.publicUrl ?? 'http://{subdomain}.localhost:3000' } as Config, handle.subdomain),
      messageIdDomain: domainOfAddress(config?.mailFrom ?? 'hourbook <no-reply@localhost>'),
    },
    now,
  };
  let seq = 1;
  const number = () => `INV-${String(seq++).padStart(4, '0')}`;

  const active = db.select().from(clients).where(eq(clients.status, 'active')).orderBy(asc(clients.createdAt)).all();
  const unbilled = db
    .select({ id: timeEntries.id, clientId: timeEntries.clientId, projectId: timeEntries.projectId, taskId: timeEntries.taskId, userId: timeEntries.userId })
    .from(timeEntries)
    .where(eq(timeEntries.status, 'unbilled'))
    .orderBy(asc(timeEntries.recordedOn), asc(timeEntries.id))
    .all();
  const perClient = new Map<string, typeof unbilled>();
  for (const e of unbilled) perClient.set(e.clientId, [...(perClient.get(e.clientId) ?? []), e]);
  const busiest = active.filter((c) => perClient.has(c.id)).sort((a, b) => perClient.get(b.id)!.length - perClient.get(a.id)!.length)[0];
  if (busiest) {
    const candidates = perClient.get(busiest.id)!.slice(0, 12);
    const entries = new Map(invoiceStatements(handle).entries.all(JSON.stringify(candidates.map((e) => e.id))).map((e) => [e.id, e]));
    // Only entries whose project bills in the client's currency can take their default rate.
    const lines = candidates
      .filter((e) => entries.get(e.id)?.projectCurrency === busiest.currency)
      .map((e) => ({ time_entry_id: e.id, project_id: e.projectId, task_id: e.taskId, user_id: e.userId }));
    const computed = computeTimeLines(lines, entries, { clientId: busiest.id, currency: busiest.currency, allowedProjects: null });
    const total = sumMinor(
      computed.map((l) => l.amountMinor),
      busiest.currency,
    );
    if (lines.length > 0) createInvoice(deps, actor, {
      client_id: busiest.id,
      number: number(),
      total: fromMinor(total, busiest.currency),
      notes: 'Thank you for your business.',
      include_hours_by_person: true,
      include_payment_link: true,
      invoice_time_entries: lines,
    });
  }

  const serviceClient = active.find((c) => c.currency === 'EUR') ?? active[0];
  if (serviceClient) {
    const lines = computeServiceLines(DEMO_SERVICES, { currency: serviceClient.currency, clientProjects: new Set() });
    const subtotal = sumMinor(
      lines.map((l) => l.amountMinor),
      serviceClient.currency,
    );
    const tax = sumMinor(
      computeTaxes(DEMO_TAX, subtotal).map((t) => t.amountMinor),
      serviceClient.currency,
    );
    createInvoice(deps, actor, {
      client_id: serviceClient.id,
      number: number(),
      total: fromMinor(subtotal + tax, serviceClient.currency),
      notes: 'Retainer for the current month.',
      include_payment_link: true,
      tax_details: DEMO_TAX,
      invoice_services: DEMO_SERVICES,
    });
  }
}
