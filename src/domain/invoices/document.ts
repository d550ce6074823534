import { asc, eq } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { clients, invoiceLines, invoiceTaxes, projects, tasks, teamMembers, timeEntries } from '../../db/schema/index.ts';
import { findInvoice } from './queries.ts';
import { publicInvoiceUrl, type InvoiceRow, type TaxRow } from './records.ts';

export interface DocumentLine {
  kind: 'time_entry' | 'service';
  date: string | null;
  projectName: string | null;
  taskName: string | null;
  personName: string | null;
  notes: string;
  seconds: number | null;
  /** The hours the line stated itself (exact decimal text), else null. */
  hours: string | null;
  /** The entry's own (rounded) duration, for the time-entry listing; null for service lines. */
  entrySeconds: number | null;
  hourlyRateMinor: number | null;
  quantityMilli: number | null;
  unitAmountMinor: number | null;
  amountMinor: number;
}

/** Everything a person sees on an invoice, read in a handful of queries (PDF and public page). */
export interface InvoiceDocument {
  workspaceName: string;
  client: { name: string; secondaryName: string; address: string };
  invoice: InvoiceRow;
  lines: DocumentLine[];
  taxes: TaxRow[];
  paymentUrl: string | null;
}

export function loadInvoiceDocument(db: Db, invoiceId: string, ctx: { workspaceName: string; publicBase: string }): InvoiceDocument {
  return documentFor(db, findInvoice(db, invoiceId), ctx);
}

export function documentFor(db: Db, invoice: InvoiceRow, ctx: { workspaceName: string; publicBase: string }): InvoiceDocument {
  const client = db
    .select({ name: clients.name, secondaryName: clients.secondaryName, address: clients.fullAddress })
    .from(clients)
    .where(eq(clients.id, invoice.clientId))
    .get();
  const rows = db
    .select({
      kind: invoiceLines.kind,
      date: timeEntries.recordedOn,
      projectName: projects.name,
      taskName: tasks.name,
      firstName: teamMembers.firstName,
      lastName: teamMembers.lastName,
      notes: invoiceLines.notes,
      entryNotes: timeEntries.notes,
      seconds: invoiceLines.seconds,
      hours: invoiceLines.hours,
      entrySeconds: timeEntries.seconds,
      hourlyRateMinor: invoiceLines.hourlyRateMinor,
      quantityMilli: invoiceLines.quantityMilli,
      unitAmountMinor: invoiceLines.unitAmountMinor,
      amountMinor: invoiceLines.amountMinor,
    })
    .from(invoiceLines)
    .leftJoin(timeEntries, eq(timeEntries.id, invoiceLines.timeEntryId))
    .leftJoin(projects, eq(projects.id, invoiceLines.projectId))
    .leftJoin(tasks, eq(tasks.id, invoiceLines.taskId))
    .leftJoin(teamMembers, eq(teamMembers.id, invoiceLines.userId))
    .where(eq(invoiceLines.invoiceId, invoice.id))
    .orderBy(asc(invoiceLines.position))
    .all();
  const taxes = db.select().from(invoiceTaxes).where(eq(invoiceTaxes.invoiceId, invoice.id)).orderBy(asc(invoiceTaxes.position)).all();
  return {
    workspaceName: ctx.workspaceName,
    client: client ?? { name: '', secondaryName: '', address: '' },
    invoice,
    lines: rows.map((r) => ({
      kind: r.kind,
      date: r.date,
      projectName: r.projectName,
      taskName: r.taskName,
      personName: r.firstName === null ? null : `${r.firstName} ${r.lastName ?? ''}`.trim(),
      // A line without its own note shows the note written on the time entry.
      notes: r.notes || r.entryNotes || '',
      seconds: r.seconds,
      hours: r.hours,
      entrySeconds: r.entrySeconds,
      hourlyRateMinor: r.hourlyRateMinor,
      quantityMilli: r.quantityMilli,
      unitAmountMinor: r.unitAmountMinor,
      amountMinor: r.amountMinor,
    })),
    taxes,
    paymentUrl: invoice.includePaymentLink ? publicInvoiceUrl(ctx.publicBase, invoice.publicToken) : null,
  };
}

/** Hours and amount per key (person or task), in line order of first appearance. */
export function hoursBy(lines: DocumentLine[], key: (l: DocumentLine) => string | null): { label: string; seconds: number; amountMinor: number }[] {
  const groups = new Map<string, { label: string; seconds: number; amountMinor: number }>();
  for (const l of lines) {
    if (l.kind !== 'time_entry') continue;
    const label = key(l) ?? '—';
    const g = groups.get(label) ?? { label, seconds: 0, amountMinor: 0 };
    g.seconds += l.seconds ?? 0;
    g.amountMinor += l.amountMinor;
    groups.set(label, g);
  }
  return [...groups.values()];
}
