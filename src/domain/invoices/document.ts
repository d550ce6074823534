import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { clients, invoiceLines, invoices, invoiceTaxes, payments, projects, tasks, teamMembers, timeEntries, timeEntryCombos } from '../../db/schema/index.ts';
import type { Scope } from '../scope.ts';
import { readIdentity, type Identity } from '../workspace/identity.ts';
import { balanceDueMinor, isOverdue, todayIn } from './balance.ts';
import { findInvoice, lineProjectId } from './queries.ts';
import { lineHours, priceAsCharged, publicInvoiceUrl, type InvoiceRow, type TaxRow } from './records.ts';

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

/** Another document this one points to: the credit note of a void invoice, or the invoice a credit note cancels. */
export interface RelatedDocument {
  number: string;
  issueDate: string;
  publicUrl: string;
}

export interface DocumentPayment {
  paidOn: string;
  amountMinor: number;
  method: string;
  reference: string;
}

/** What a document is now, the same on the PDF stamp and the public page. */
export type DocumentState = 'draft' | 'open' | 'partially_paid' | 'paid' | 'overdue' | 'void' | 'credit_note';

/** Everything a person sees on an invoice, read in a handful of queries (PDF and public page). */
export interface InvoiceDocument {
  seller: Identity;
  client: { name: string; secondaryName: string; address: string; taxId: string };
  invoice: InvoiceRow;
  lines: DocumentLine[];
  taxes: TaxRow[];
  payments: DocumentPayment[];
  paidMinor: number;
  balanceMinor: number;
  state: DocumentState;
  /** The first and last day of the time billed (the supply period); null without time lines. */
  period: { from: string; to: string } | null;
  /** For a credit note: the invoice it cancels. For a void invoice: its credit note. */
  related: RelatedDocument | null;
  paymentUrl: string | null;
}

export interface DocumentContext {
  seller: Identity;
  publicBase: string;
  /** Today in the workspace's time zone. */
  today: string;
}

/** What an invoice's document is read with: the workspace's identity now, today, where links point. */
export const documentContext = (scope: Scope): DocumentContext => ({ seller: readIdentity(scope), publicBase: scope.links.publicBase, today: todayIn(scope) });

export function loadInvoiceDocument(db: Db, invoiceId: string, ctx: DocumentContext): InvoiceDocument {
  return documentFor(db, findInvoice(db, invoiceId), ctx);
}

/**
 * The date (or period) of supply: the days of the time billed, else the day the invoice was issued.
 * A credit note states the supply of the invoice it cancels, not its own issue date: its lines are
 * that invoice's, so their time gives the same period, and without time it is that invoice's issue date.
 * The PDF and the public page state it the same way.
 */
export function supplyOf(doc: InvoiceDocument): { from: string; to: string } {
  if (doc.period) return doc.period;
  const billed = doc.invoice.kind === 'credit_note' && doc.related ? doc.related.issueDate : doc.invoice.issueDate;
  return { from: billed, to: billed };
}

/** The state a reader should see first: credit note, void, paid, overdue, partially paid, draft, open. */
export function stateOf(invoice: InvoiceRow, paidMinor: number, today: string): DocumentState {
  if (invoice.kind === 'credit_note') return 'credit_note';
  if (invoice.status === 'void' || invoice.status === 'paid' || invoice.status === 'draft') return invoice.status;
  if (isOverdue(invoice, paidMinor, today)) return 'overdue';
  return invoice.status === 'partially_paid' ? 'partially_paid' : 'open';
}

/** The credit note of a void invoice, or the invoice a credit note cancels. */
function relatedOf(db: Db, invoice: InvoiceRow, publicBase: string): RelatedDocument | null {
  const columns = { number: invoices.number, issueDate: invoices.issueDate, token: invoices.publicToken };
  const row =
    invoice.kind === 'credit_note' && invoice.creditedInvoiceId
      ? db.select(columns).from(invoices).where(eq(invoices.id, invoice.creditedInvoiceId)).get()
      : invoice.status === 'void'
        ? db.select(columns).from(invoices).where(and(eq(invoices.creditedInvoiceId, invoice.id), eq(invoices.kind, 'credit_note'))).get()
        : undefined;
  return row ? { number: row.number, issueDate: row.issueDate, publicUrl: publicInvoiceUrl(publicBase, row.token) } : null;
}

export function documentFor(db: Db, invoice: InvoiceRow, ctx: DocumentContext): InvoiceDocument {
  const client = db
    .select({ name: clients.name, secondaryName: clients.secondaryName, address: clients.fullAddress, taxId: clients.taxId })
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
    .leftJoin(timeEntryCombos, eq(timeEntryCombos.id, invoiceLines.comboId))
    .leftJoin(projects, eq(projects.id, lineProjectId))
    .leftJoin(tasks, eq(tasks.id, timeEntryCombos.taskId))
    .leftJoin(teamMembers, eq(teamMembers.id, timeEntryCombos.userId))
    .where(eq(invoiceLines.invoiceId, invoice.id))
    .orderBy(asc(invoiceLines.position))
    .all();
  const taxes = db.select().from(invoiceTaxes).where(eq(invoiceTaxes.invoiceId, invoice.id)).orderBy(asc(invoiceTaxes.position)).all();
  const paid = db
    .select({ paidOn: payments.paidOn, amountMinor: payments.amountMinor, method: payments.method, reference: payments.reference })
    .from(payments)
    .where(eq(payments.invoiceId, invoice.id))
    .orderBy(asc(payments.paidOn), asc(payments.createdAt))
    .all();
  const paidMinor = paid.reduce((s, p) => s + p.amountMinor, 0);
  const days = rows.flatMap((r) => (r.kind === 'time_entry' && r.date ? [r.date] : [])).sort();
  const price = priceAsCharged(invoice);
  return {
    seller: ctx.seller,
    client: client ?? { name: '', secondaryName: '', address: '', taxId: '' },
    invoice,
    payments: paid,
    paidMinor,
    balanceMinor: balanceDueMinor(invoice, paidMinor),
    state: stateOf(invoice, paidMinor, ctx.today),
    period: days.length ? { from: days[0]!, to: days[days.length - 1]! } : null,
    related: relatedOf(db, invoice, ctx.publicBase),
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
      hourlyRateMinor: price(r.hourlyRateMinor),
      quantityMilli: r.quantityMilli,
      unitAmountMinor: price(r.unitAmountMinor),
      amountMinor: r.amountMinor,
    })),
    taxes,
    paymentUrl: invoice.includePaymentLink && invoice.kind === 'invoice' ? publicInvoiceUrl(ctx.publicBase, invoice.publicToken) : null,
  };
}

/** A time line's hours as printed (to 4 decimals), in ten-thousandths of an hour, so sums of them are exact. */
const printedTenThousandths = (l: DocumentLine): number => {
  const h = l.kind === 'time_entry' ? lineHours(l) : null;
  return h === null ? 0 : Math.round(h * 10_000);
};

/**
 * The time lines' hours and amounts grouped by `key` (person, task), in order of first appearance.
 * A group's hours are the sum of its lines' hours as printed, like `totalHours`: the groups then
 * add up to the total hours to the last decimal, as a reader checking the figures expects.
 */
export function hoursBy(lines: DocumentLine[], key: (l: DocumentLine) => string | null): { label: string; hours: number; amountMinor: number }[] {
  const groups = new Map<string, { label: string; tenThousandths: number; amountMinor: number }>();
  for (const l of lines) {
    if (l.kind !== 'time_entry') continue;
    const label = key(l) ?? '—';
    const g = groups.get(label) ?? { label, tenThousandths: 0, amountMinor: 0 };
    g.tenThousandths += printedTenThousandths(l);
    g.amountMinor += l.amountMinor;
    groups.set(label, g);
  }
  return [...groups.values()].map((g) => ({ label: g.label, hours: g.tenThousandths / 10_000, amountMinor: g.amountMinor }));
}

/** The hours billed by the time lines, as printed: each line's hours to 4 decimals, summed exactly. */
export function totalHours(lines: DocumentLine[]): number {
  let tenThousandths = 0;
  for (const l of lines) tenThousandths += printedTenThousandths(l);
  return tenThousandths / 10_000;
}
