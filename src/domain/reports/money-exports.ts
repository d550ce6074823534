import { and, asc, between, eq, gt, or, type SQL } from 'drizzle-orm';
import { invoices, payments, teamMembers } from '../../db/schema/index.ts';
import { currencyDecimals, minorToDecimalString } from '../money.ts';
import { inIds } from '../queries.ts';
import type { Scope } from '../scope.ts';
import { hoursOf } from '../time/hours.ts';
import { balanceDueMinor, paidMinorSql } from '../invoices/balance.ts';
import { readLines, type LineRow } from '../invoices/queries.ts';
import { priceAsCharged } from '../invoices/records.ts';
import { csvHeader, csvLines, type CsvColumn } from './csv.ts';
import { clientNames, nameOf, peopleNames, projectNames, taskNames } from './labels.ts';
import { resolveRange, type DateRange } from './range.ts';
import type { InvoicesExportInput, PaymentsExportInput } from './schemas.ts';
import { requireMoneyReader } from './visibility.ts';

/**
 * The exports for the accountant: invoices with their lines (one CSV row per line, the invoice's
 * figures repeated on each) and payments. Both are read in keyset chunks, so a long export holds
 * one chunk in memory; Owner, Admin or the workspace key only.
 */

const INVOICE_CHUNK = 200;
const LINE_CHUNK = 2000;
const PAYMENT_CHUNK = 5000;

const money = (minor: number | null, currency: string) => (minor === null ? null : minorToDecimalString(minor, currencyDecimals(currency)));

const invoiceColumns = {
  id: invoices.id,
  number: invoices.number,
  kind: invoices.kind,
  status: invoices.status,
  clientId: invoices.clientId,
  currency: invoices.currency,
  issueDate: invoices.issueDate,
  dueDate: invoices.dueDate,
  subtotalMinor: invoices.subtotalMinor,
  taxMinor: invoices.taxMinor,
  totalMinor: invoices.totalMinor,
  paidMinor: paidMinorSql,
};

interface LineOut {
  invoice: InvoiceOut;
  line: LineRow;
}

function lineColumns(scope: Scope): CsvColumn<LineOut>[] {
  const clients = clientNames(scope.db, null);
  const projects = projectNames(scope.db, null);
  const tasks = taskNames(scope.db, null);
  const people = peopleNames(scope.db, null);
  const t = (header: string, value: (r: LineOut) => string | null): CsvColumn<LineOut> => ({ header, kind: 'text', value });
  const n = (header: string, value: (r: LineOut) => string | number | null): CsvColumn<LineOut> => ({ header, kind: 'number', value });
  return [
    t('invoice_id', (r) => r.invoice.id),
    t('number', (r) => r.invoice.number),
    t('kind', (r) => r.invoice.kind),
    t('status', (r) => r.invoice.status),
    t('client', (r) => nameOf(clients, r.invoice.clientId)),
    t('client_id', (r) => r.invoice.clientId),
    t('currency', (r) => r.invoice.currency),
    t('issue_date', (r) => r.invoice.issueDate),
    t('due_date', (r) => r.invoice.dueDate),
    n('subtotal', (r) => money(r.invoice.subtotalMinor, r.invoice.currency)),
    n('tax', (r) => money(r.invoice.taxMinor, r.invoice.currency)),
    n('total', (r) => money(r.invoice.totalMinor, r.invoice.currency)),
    n('paid', (r) => money(r.invoice.paidMinor, r.invoice.currency)),
    n('balance_due', (r) => money(balanceDueMinor(r.invoice, r.invoice.paidMinor), r.invoice.currency)),
    n('line', (r) => r.line.position + 1),
    t('line_kind', (r) => r.line.kind),
    t('description', (r) => r.line.notes),
    t('project', (r) => (r.line.projectId ? nameOf(projects, r.line.projectId) : null)),
    t('project_id', (r) => r.line.projectId),
    t('task', (r) => (r.line.taskId ? nameOf(tasks, r.line.taskId) : null)),
    t('person', (r) => (r.line.userId ? nameOf(people, r.line.userId) : null)),
    t('time_entry_id', (r) => r.line.timeEntryId),
    n('hours', (r) => r.line.hours ?? (r.line.seconds === null ? null : hoursOf(r.line.seconds))),
    n('quantity', (r) => (r.line.quantityMilli === null ? null : minorToDecimalString(r.line.quantityMilli, 3))),
    n('unit_price', (r) => money(priceAsCharged(r.invoice)(r.line.hourlyRateMinor ?? r.line.unitAmountMinor), r.invoice.currency)),
    n('amount', (r) => money(r.line.amountMinor, r.invoice.currency)),
  ];
}

const invoicePage = (scope: Scope, where: SQL | undefined) =>
  scope.db.select(invoiceColumns).from(invoices).where(where).orderBy(asc(invoices.issueDate), asc(invoices.id)).limit(INVOICE_CHUNK).all();
type InvoiceOut = ReturnType<typeof invoicePage>[number];

/** Invoices issued in the range (of the clients and statuses asked for), in issue-date order, chunk by chunk. */
function* invoiceChunks(scope: Scope, range: DateRange, input: InvoicesExportInput): Generator<InvoiceOut[]> {
  const filters: (SQL | undefined)[] = [
    between(invoices.issueDate, range.from, range.to),
    input.client_ids ? inIds(invoices.clientId, input.client_ids) : undefined,
    input.status ? inIds(invoices.status, input.status) : undefined,
  ];
  let after: { issueDate: string; id: string } | null = null;
  for (;;) {
    const cursor: SQL | undefined = after
      ? or(gt(invoices.issueDate, after.issueDate), and(eq(invoices.issueDate, after.issueDate), gt(invoices.id, after.id)))
      : undefined;
    const chunk = invoicePage(scope, and(...filters, cursor));
    if (chunk.length === 0) return;
    yield chunk;
    const last = chunk[chunk.length - 1]!;
    after = { issueDate: last.issueDate, id: last.id };
  }
}

/** The lines of one invoice in position order, a chunk at a time. */
function* linesOf(scope: Scope, invoiceId: string): Generator<LineRow[]> {
  let after = -1;
  for (;;) {
    const chunk = readLines(scope.db, invoiceId, { after, limit: LINE_CHUNK });
    if (chunk.length === 0) return;
    yield chunk;
    after = chunk[chunk.length - 1]!.position;
  }
}

/** The invoice export: checked now (role, range), read as its pieces are taken. */
export function invoicesExport(scope: Scope, input: InvoicesExportInput, bom: boolean): { range: DateRange; pieces: Generator<string> } {
  requireMoneyReader(scope);
  const range = resolveRange(scope, input);
  function* pieces(): Generator<string> {
    const columns = lineColumns(scope);
    yield csvHeader(columns, bom);
    for (const chunk of invoiceChunks(scope, range, input)) {
      for (const invoice of chunk) {
        for (const lines of linesOf(scope, invoice.id)) yield csvLines(columns, lines.map((line) => ({ invoice, line })));
      }
    }
  }
  return { range, pieces: pieces() };
}

const paymentColumns = {
  id: payments.id,
  paidOn: payments.paidOn,
  amountMinor: payments.amountMinor,
  method: payments.method,
  reference: payments.reference,
  providerPaymentId: payments.providerPaymentId,
  recordedByEmail: teamMembers.email,
  createdAt: payments.createdAt,
  invoiceId: invoices.id,
  invoiceNumber: invoices.number,
  clientId: invoices.clientId,
  currency: invoices.currency,
};
const paymentPage = (scope: Scope, where: SQL | undefined) =>
  scope.db
    .select(paymentColumns)
    .from(payments)
    .innerJoin(invoices, eq(invoices.id, payments.invoiceId))
    .leftJoin(teamMembers, eq(teamMembers.id, payments.recordedBy))
    .where(where)
    .orderBy(asc(payments.paidOn), asc(payments.id))
    .limit(PAYMENT_CHUNK)
    .all();
type PaymentOut = ReturnType<typeof paymentPage>[number];

/** The payment export: payments received in the range, by day, checked now and read as taken. */
export function paymentsExport(scope: Scope, input: PaymentsExportInput, bom: boolean): { range: DateRange; pieces: Generator<string> } {
  requireMoneyReader(scope);
  const range = resolveRange(scope, input);
  const filters = [between(payments.paidOn, range.from, range.to), input.client_ids ? inIds(invoices.clientId, input.client_ids) : undefined];
  function* pieces(): Generator<string> {
    const clients = clientNames(scope.db, null);
    const t = (header: string, value: (r: PaymentOut) => string | null): CsvColumn<PaymentOut> => ({ header, kind: 'text', value });
    const columns: CsvColumn<PaymentOut>[] = [
      t('payment_id', (r) => r.id),
      t('paid_on', (r) => r.paidOn),
      t('invoice_number', (r) => r.invoiceNumber),
      t('invoice_id', (r) => r.invoiceId),
      t('client', (r) => nameOf(clients, r.clientId)),
      t('client_id', (r) => r.clientId),
      t('currency', (r) => r.currency),
      { header: 'amount', kind: 'number', value: (r) => money(r.amountMinor, r.currency) },
      t('method', (r) => r.method),
      t('reference', (r) => r.reference),
      t('provider_payment_id', (r) => r.providerPaymentId),
      t('recorded_by', (r) => r.recordedByEmail),
      t('created_at', (r) => r.createdAt),
    ];
    yield csvHeader(columns, bom);
    let after: { paidOn: string; id: string } | null = null;
    for (;;) {
      const cursor: SQL | undefined = after ? or(gt(payments.paidOn, after.paidOn), and(eq(payments.paidOn, after.paidOn), gt(payments.id, after.id))) : undefined;
      const chunk = paymentPage(scope, and(...filters, cursor));
      if (chunk.length === 0) return;
      yield csvLines(columns, chunk);
      const last = chunk[chunk.length - 1]!;
      after = { paidOn: last.paidOn, id: last.id };
    }
  }
  return { range, pieces: pieces() };
}


