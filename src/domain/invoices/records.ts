import { randomBytes } from 'node:crypto';
import type { invoices, invoiceTaxes } from '../../db/schema/index.ts';
import { fromMinor } from '../money.ts';
import { balanceDueMinor, isOverdue } from './balance.ts';
import { hoursOf } from '../time/hours.ts';
import type { LineRow } from './queries.ts';
import type { InvoiceRecord, InvoiceSummary } from './schemas.ts';

export type InvoiceRow = typeof invoices.$inferSelect;
export type TaxRow = typeof invoiceTaxes.$inferSelect;

/** The spec's `invoice` object. */
export const toInvoiceRecord = (row: InvoiceRow, organizationId: string): InvoiceRecord => ({
  id: row.id,
  number: row.number,
  total: fromMinor(row.totalMinor, row.currency),
  status: row.status,
  issue_date: row.issueDate,
  due_date: row.dueDate,
  notes: row.notes,
  client_id: row.clientId,
  organization_id: organizationId,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
});

/** 43 characters of base64url: 256 random bits, never derived from the invoice's id or number. */
export const newPublicToken = () => randomBytes(32).toString('base64url');

/** The columns of a document issued now: its own public page, nothing sent, paid or voided yet. */
export const freshDocument = (at: string) => ({
  publicToken: newPublicToken(),
  sentAt: null,
  paidAt: null,
  voidedAt: null,
  overdueAt: null,
  createdAt: at,
  updatedAt: at,
});

export const publicInvoiceUrl = (publicBase: string, token: string) => `${publicBase}/invoices/${token}`;

/** What an invoice's summary derives from other rows: its payments, its credit note, today. */
export interface InvoiceFacts {
  paidMinor: number;
  /** For a void invoice: the credit note that cancels it. */
  creditNoteId: string | null;
  /** Today in the workspace's time zone (overdue is measured against it). */
  today: string;
}

export const toInvoiceSummary = (row: InvoiceRow, organizationId: string, publicBase: string, facts: InvoiceFacts): InvoiceSummary => ({
  ...toInvoiceRecord(row, organizationId),
  kind: row.kind,
  currency: row.currency,
  subtotal: fromMinor(row.subtotalMinor, row.currency),
  tax_total: fromMinor(row.taxMinor, row.currency),
  amount_paid: fromMinor(facts.paidMinor, row.currency),
  balance_due: fromMinor(balanceDueMinor(row, facts.paidMinor), row.currency),
  overdue: isOverdue(row, facts.paidMinor, facts.today),
  credited_invoice_id: row.creditedInvoiceId,
  credit_note_id: facts.creditNoteId,
  public_url: publicInvoiceUrl(publicBase, row.publicToken),
  sent_at: row.sentAt,
  paid_at: row.paidAt,
  voided_at: row.voidedAt,
});

/** A time line's hours: those it stated (exact), else its entry's seconds in hours (4 decimals). */
export const lineHours = (line: { hours: string | null; seconds: number | null }): number | null =>
  line.hours !== null ? Number(line.hours) : line.seconds === null ? null : hoursOf(line.seconds);

export const toLineRecord = (row: LineRow, currency: string) => ({
  id: String(row.id),
  kind: row.kind,
  position: row.position,
  time_entry_id: row.timeEntryId,
  project_id: row.projectId,
  task_id: row.taskId,
  user_id: row.userId,
  notes: row.notes,
  hours: lineHours(row),
  hourly_rate: row.hourlyRateMinor === null ? null : fromMinor(row.hourlyRateMinor, currency),
  quantity: row.quantityMilli === null ? null : row.quantityMilli / 1000,
  unit_amount: row.unitAmountMinor === null ? null : fromMinor(row.unitAmountMinor, currency),
  file: row.file,
  amount: fromMinor(row.amountMinor, currency),
});

export const toTaxRecord = (row: TaxRow, currency: string) => ({
  name: row.name,
  // The stored text is the exact decimal; as a JSON number it is the same shortest decimal.
  percentage: Number(row.percentage),
  notes: row.notes,
  selected: row.selected,
  amount: fromMinor(row.amountMinor, currency),
});

/**
 * A line's rate or unit price as the documents and the invoices export print it. A credit note's
 * lines keep the cancelled invoice's prices and negate their amounts (queries.ts,
 * `copyLinesNegated`); printed as stored, a line would read "1 × £1,000.50 = −£1,000.50". The
 * price takes the amount's sign instead, so each line's own arithmetic holds: "1 × −£1,000.50 =
 * −£1,000.50".
 */
export const priceAsCharged = (invoice: Pick<InvoiceRow, 'kind'>) => (minor: number | null): number | null =>
  invoice.kind === 'credit_note' && minor !== null && minor !== 0 ? -minor : minor;
