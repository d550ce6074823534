import { and, asc, eq, gt, sql } from 'drizzle-orm';
import { connectionOf, type Database, type Db } from '../../db/index.ts';
import { invoiceLines, invoices, timeEntryCombos } from '../../db/schema/index.ts';
import { notFound } from '../../errors.ts';
import type { Scope } from '../scope.ts';
import type { BillableEntry, ComputedLine } from './lines.ts';
import { rateFactsOf, readPricingFacts } from './rate-facts.ts';
import type { InvoiceRow } from './records.ts';

export function findInvoice(db: Db, invoiceId: string): InvoiceRow {
  const row = db.select().from(invoices).where(eq(invoices.id, invoiceId)).get();
  if (!row) throw notFound('invoice', `No invoice with id ${invoiceId}`);
  return row;
}

/**
 * A line's project: a time line's is its combination's, a service line's its own (see the table's
 * comment in src/db/schema/invoices.ts). For queries that join `time_entry_combos` on the line.
 */
export const lineProjectId = sql<string | null>`coalesce(${invoiceLines.projectId}, ${timeEntryCombos.projectId})`;

/** A stored line as every reader sees it: a time line's project, task and person read from its combination. */
const lineFields = {
  id: invoiceLines.id,
  kind: invoiceLines.kind,
  position: invoiceLines.position,
  timeEntryId: invoiceLines.timeEntryId,
  projectId: lineProjectId,
  taskId: timeEntryCombos.taskId,
  userId: timeEntryCombos.userId,
  notes: invoiceLines.notes,
  seconds: invoiceLines.seconds,
  hours: invoiceLines.hours,
  hourlyRateMinor: invoiceLines.hourlyRateMinor,
  quantityMilli: invoiceLines.quantityMilli,
  unitAmountMinor: invoiceLines.unitAmountMinor,
  file: invoiceLines.file,
  amountMinor: invoiceLines.amountMinor,
};

/** An invoice's lines in position order; with `page`, only the `limit` lines after position `after`. */
export function readLines(db: Db, invoiceId: string, page?: { after: number; limit: number }) {
  const query = db
    .select(lineFields)
    .from(invoiceLines)
    .leftJoin(timeEntryCombos, eq(timeEntryCombos.id, invoiceLines.comboId))
    .where(page ? and(eq(invoiceLines.invoiceId, invoiceId), gt(invoiceLines.position, page.after)) : eq(invoiceLines.invoiceId, invoiceId))
    .orderBy(asc(invoiceLines.position));
  return page ? query.limit(page.limit).all() : query.all();
}
export type LineRow = ReturnType<typeof readLines>[number];

/** The columns of an invoice line, in the order `insertLine` binds them (`id` is the row number SQLite gives). */
const LINE_COLUMNS = [
  'invoice_id', 'kind', 'position', 'time_entry_id', 'combo_id', 'project_id', 'notes',
  'seconds', 'hours', 'hourly_rate_minor', 'quantity_milli', 'unit_amount_minor', 'file', 'amount_minor',
] as const;

/**
 * The statements of invoice creation, prepared once per open workspace file: the entries named by
 * a request are read in one query and marked billed in one statement, however many there are.
 * They are better-sqlite3 statements (see `connectionOf`): an invoice of 5,000 entries spent most
 * of its time in drizzle's per-row mapping before.
 */
export const invoiceStatements = (db: Database) => {
  const sqlite = connectionOf(db);
  return {
    /**
     * Every entry named by a request (ids as a JSON array), with its rowid and its place in the
     * request (so its id is the request's own string) and its combination's number rather than
     * the combination's three ids: each text column read is a string made per entry, about a
     * millisecond per column for 5,000 entries. The ids drive the join, one lookup each, so no
     * list of them is sorted first.
     */
    entries: sqlite
      .prepare<[string], EntryRow>(
        `SELECT e.rowid, named.key, e.combo_id, e.client_id, e.seconds, e.status, e.invoice_id
         FROM json_each(?) AS named CROSS JOIN time_entries AS e ON e.id = named.value`,
      )
      .raw(),
    /** The (project, task, person) of each combination number (a JSON array); the rates come from `readPricingFacts`. */
    combinations: sqlite
      .prepare<[string], [id: number, projectId: string, taskId: string, userId: string]>(
        'SELECT id, project_id, task_id, user_id FROM time_entry_combos WHERE id IN (SELECT value FROM json_each(?))',
      )
      .raw(),
    insertLine: sqlite.prepare(`INSERT INTO invoice_lines (${LINE_COLUMNS.join(', ')}) VALUES (${LINE_COLUMNS.map(() => '?').join(', ')})`),
    /**
     * Only entries still `unbilled` move: if another invoice billed one in between, fewer rows change
     * and the caller rolls back, so an entry can never be billed twice. The entries are found by the
     * rowids read in the same transaction (SQLite visits them in rowid order), not by id again;
     * `+status` keeps the unbilled index out of the plan.
     */
    markBilled: sqlite.prepare<[invoiceId: string, at: string, rowids: string]>(
      `UPDATE time_entries SET status = 'billed', invoice_id = ?, updated_at = ?
       WHERE rowid IN (SELECT value FROM json_each(?)) AND +status = 'unbilled'`,
    ),
  };
};

/**
 * Inserts an invoice's priced lines, one prepared statement run per line. A time line is stored
 * with its combination's number, not the three ids it stands for; only a line without one keeps
 * its project.
 */
export function insertLines(scope: Pick<Scope, 'statements'>, invoiceId: string, lines: readonly ComputedLine[]): void {
  const { insertLine } = scope.statements(invoiceStatements);
  for (const l of lines) {
    insertLine.run(invoiceId, l.kind, l.position, l.timeEntryId, l.comboId, l.comboId === null ? l.projectId : null, l.notes, l.seconds, l.hours, l.hourlyRateMinor, l.quantityMilli, l.unitAmountMinor, l.file, l.amountMinor);
  }
}

/**
 * The lines of invoice `from` copied onto `to` with their amounts negated: a credit note's, which
 * cancels the invoice line by line. One statement, whatever the number of lines.
 */
export function copyLinesNegated(db: Db, from: string, to: string): void {
  const columns = LINE_COLUMNS.filter((c) => c !== 'invoice_id' && c !== 'amount_minor').join(', ');
  connectionOf(db)
    .prepare(`INSERT INTO invoice_lines (invoice_id, ${columns}, amount_minor) SELECT ?, ${columns}, -amount_minor FROM invoice_lines WHERE invoice_id = ? ORDER BY position`)
    .run(to, from);
}

/**
 * An entry as `entries` reads it: an array, not an object (the driver's row objects, only copied
 * into `BillableEntry`, cost 5 ms more for 5,000 entries).
 */
type EntryRow = [rowid: number, place: number, comboId: number, clientId: string, seconds: number, status: BillableEntry['status'], invoiceId: string | null];

/**
 * The entries named by a request, by id, each with the facts its rate is chosen from and whether
 * its task is billable now (a task made non-billable after the entry was recorded must not be
 * invoiced either). One query for the entries, one for their combinations and three small ones for
 * the rates of their projects; the rates are chosen once per combination, not per entry.
 * When a draft is edited (`editing`), its own entries count as unbilled: keeping them on the draft
 * is not billing them again.
 */
export function billableEntries(scope: Pick<Scope, 'statements' | 'db'>, ids: readonly string[], editing?: string): Map<string, BillableEntry> {
  const st = scope.statements(invoiceStatements);
  const rows = st.entries.all(JSON.stringify(ids));
  const combinations = st.combinations.all(JSON.stringify([...new Set(rows.map((e) => e[2]))]));
  const facts = readPricingFacts(scope.db, [...new Set(combinations.map((c) => c[1]))]);
  const combos = new Map(combinations.map(([comboId, projectId, taskId, userId]) => [comboId, { projectId, taskId, userId, rates: rateFactsOf(facts, projectId, taskId, userId) }]));
  const out = new Map<string, BillableEntry>();
  for (const [rowid, place, comboId, clientId, seconds, stored, invoiceId] of rows) {
    const id = ids[place]!;
    const combo = combos.get(comboId);
    const rates = combo?.rates;
    if (!rates) throw new Error(`time entry ${id} names a project or task that does not exist`);
    const status = editing && stored === 'billed' && invoiceId === editing ? 'unbilled' : stored;
    // Field by field: spreading the rate facts into each entry cost ten times as much (35 ms for 5,000).
    out.set(id, {
      rowid,
      id,
      comboId,
      clientId,
      projectId: combo.projectId,
      taskId: combo.taskId,
      userId: combo.userId,
      seconds,
      status,
      invoiceId,
      billingMethod: rates.billingMethod,
      projectRateMinor: rates.projectRateMinor,
      projectCurrency: rates.projectCurrency,
      taskRateMinor: rates.taskRateMinor,
      personRateMinor: rates.personRateMinor,
      taskBillable: rates.taskBillable,
    });
  }
  return out;
}
