import type BetterSqlite3 from 'better-sqlite3';
import { eq } from 'drizzle-orm';
import type { Database } from '../../db/index.ts';
import { invoices, timeEntryStatuses } from '../../db/schema/index.ts';
import { currencyDecimals, minorToDecimalString } from '../money.ts';
import type { Scope } from '../scope.ts';
import { hoursOf } from '../time/hours.ts';
import { connectionOf } from '../../db/index.ts';
import { amountSql, comboStatements, createTempSchema, ensurePriced, fillScope } from './combos.ts';
import { csvHeader, textCell, TextBuffer } from './csv.ts';
import { clientNames, nameOf, peopleNames, projectNames, taskNames } from './labels.ts';
import { billableSql } from './pricing.ts';
import { resolveRange, type DateRange } from './range.ts';
import { DEFAULT_STATUSES } from './time-report.ts';
import type { TimeEntriesExportInput, TimeEntryStatus } from './schemas.ts';
import { entryScope, type EntryScope } from './visibility.ts';

/**
 * The time-entry export: every entry a request counts, one CSV row each, in day order. Entries are
 * read in keyset chunks of `CHUNK` (day, then rowid, on the day index), each chunk read whole before
 * it is written, so the connection is free for other requests between chunks and memory holds one
 * chunk however many entries there are. An entry changed while a long download runs appears as it
 * was when its chunk was read.
 */

export const CHUNK = 5000;
/**
 * A chunk's text is handed out in pieces of about this many characters: small enough to be young
 * objects the garbage collector frees at once (a 2 MB string would be a large object, kept until a
 * full collection, and a 1,000,000-row export would then hold hundreds of MB).
 */
const PIECE_CHARS = 64 * 1024;

/** The columns, in order; `client` to `user_id` depend only on the entry's combination. */
const HEADERS = [
  'id',
  'recorded_on',
  'client',
  'client_id',
  'project_identifier',
  'project',
  'project_id',
  'task',
  'task_id',
  'person',
  'person_email',
  'user_id',
  'status',
  'billable',
  'hours',
  'seconds',
  'notes',
  'currency',
  'current_hourly_rate',
  'current_amount',
  'invoice_number',
  'invoice_id',
  'created_at',
  'updated_at',
].map((header) => ({ header }));

/** What every entry of one (project, task, person) shares, its CSV cells written once. */
interface ComboCells {
  /** `client` to `user_id`, already encoded and joined. */
  cells: string;
  currency: string;
  rateCell: string;
  decimals: number;
}

/**
 * The temporary table of an export's combinations, keyed by (export, combination): each export
 * tags its own rows, so exports running side by side on one connection never see each other's.
 */
const exportStatements = (db: Database) => {
  const sqlite = connectionOf(db);
  createTempSchema(sqlite);
  sqlite.exec(`CREATE TEMP TABLE IF NOT EXISTS export_combos (
    export_id INTEGER NOT NULL,
    combo_id INTEGER NOT NULL,
    n INTEGER NOT NULL,
    rate_hi INTEGER NOT NULL,
    rate_lo INTEGER NOT NULL,
    priced INTEGER NOT NULL,
    billable_now INTEGER NOT NULL,
    PRIMARY KEY (export_id, combo_id)
  ) WITHOUT ROWID`);
  return {
    sqlite,
    /** The combinations in `report_scope`, numbered in id order (the order `scoped` reads them in). */
    load: sqlite.prepare<[number]>(
      `INSERT INTO temp.export_combos
       SELECT ?, r.id, row_number() OVER (ORDER BY s.id) - 1, r.rate_hi, r.rate_lo, 1 - r.unpriced, r.billable_now
       FROM temp.report_scope s JOIN temp.report_combos r ON r.id = s.id`,
    ),
    scoped: sqlite
      .prepare('SELECT r.project_id, r.task_id, r.user_id, r.client_id, r.currency, r.rate_hi * 3600 + r.rate_lo, r.unpriced FROM temp.report_scope s JOIN temp.report_combos r ON r.id = s.id ORDER BY s.id')
      .raw(),
    drop: sqlite.prepare<[number]>('DELETE FROM temp.export_combos WHERE export_id = ?'),
    next: { id: 0 },
  };
};

/** A priced combination the export reads, as `report_combos` holds it. */
type ScopedCombo = [projectId: string, taskId: string, userId: string, clientId: string, currency: string, rateMinor: number, unpriced: number];

/**
 * The combinations the export reads, priced (the reports' own priced combinations, combos.ts) and
 * loaded under `exportId`, with their shared cells by position. The caller's filters and
 * visibility are applied here, so an entry of any other combination is simply not joined.
 */
function loadExportCombos(scope: Scope, exportId: number, range: DateRange, entries: EntryScope): ComboCells[] {
  const st = scope.statements(exportStatements);
  const priced = scope.statements(comboStatements);
  const scoped = st.sqlite.transaction(() => {
    ensurePriced(priced);
    fillScope(priced, { source: 'all', from: range.from, to: range.to, entries });
    st.load.run(exportId);
    return st.scoped.all() as ScopedCombo[];
  })();
  const names = {
    clients: clientNames(scope.db, null),
    projects: projectNames(scope.db, null),
    tasks: taskNames(scope.db, null),
    people: peopleNames(scope.db, null),
  };
  return scoped.map(([projectId, taskId, userId, clientId, currency, rateMinor, unpriced]) => {
    const decimals = currencyDecimals(currency);
    const shared = [
      nameOf(names.clients, clientId),
      clientId,
      names.projects.get(projectId)?.identifier ?? '',
      nameOf(names.projects, projectId),
      projectId,
      nameOf(names.tasks, taskId),
      taskId,
      nameOf(names.people, userId),
      names.people.get(userId)?.email ?? '',
      userId,
    ];
    return { cells: shared.map(textCell).join(','), currency: textCell(currency), rateCell: unpriced ? '' : minorToDecimalString(rateMinor, decimals), decimals };
  });
}

/**
 * One chunk of entries in day order after (day, rowid), joined to the export's combinations; the
 * billable rule and each entry's amount are the reports' own SQL (pricing.ts, combos.ts).
 */
function chunkStatement(sqlite: BetterSqlite3.Database, input: TimeEntriesExportInput) {
  const billable = billableSql('e.status', 'c.billable_now');
  const where: string[] = ['(e.recorded_on, e.rowid) > (:day, :rid)', 'e.recorded_on <= :to'];
  // The same statuses as the time report it is downloaded beside: rejected entries only when asked for.
  const statuses = input.status ?? DEFAULT_STATUSES;
  where.push(`e.status IN (${timeEntryStatuses.filter((s) => statuses.includes(s)).map((s) => `'${s}'`).join(', ')})`);
  if (input.billable !== undefined) where.push(input.billable ? billable : `NOT ${billable}`);
  return sqlite
    .prepare(
      `SELECT e.rowid, e.id, e.recorded_on, c.n, e.status, ${billable}, e.seconds, e.notes,
         CASE WHEN ${billable} AND c.priced = 1 THEN ${amountSql('e', 'c')} END, e.invoice_id, e.created_at, e.updated_at
       FROM time_entries e INDEXED BY time_entries_day_idx
         CROSS JOIN temp.export_combos c ON c.export_id = :export AND c.combo_id = e.combo_id
       WHERE ${where.join(' AND ')}
       ORDER BY e.recorded_on, e.rowid LIMIT ${CHUNK}`,
    )
    .raw();
}

type RawEntry = [number, string, string, number, TimeEntryStatus, number, number, string, number | null, string | null, string, string];

/**
 * The CSV lines of the entries, a chunk at a time. A line is its combination's cells (written
 * once per combination) and the entry's own: a hot loop, so it concatenates the cells itself
 * rather than going through `CsvColumn`s, with the same encoding (`textCell`) for every cell a
 * person wrote (names, notes, invoice numbers). Ids, days and timestamps are written by the
 * service itself as UUIDs and ISO 8601 text, which never need quoting or neutralising.
 */
function* lines(scope: Scope, range: DateRange, entries: EntryScope, input: TimeEntriesExportInput): Generator<string> {
  const st = scope.statements(exportStatements);
  const exportId = ++st.next.id;
  try {
    const combos = loadExportCombos(scope, exportId, range, entries);
    const statement = chunkStatement(st.sqlite, input);
    const params: Record<string, string | number> = { day: range.from, rid: -1, to: range.to, export: exportId };
    // An entry holds at most 24 hours: its hours as text are worked out once per duration.
    const hoursText: string[] = [];
    const out = new TextBuffer();
    const numberOf = invoiceNumbers(scope);
    for (;;) {
      // A chunk is read whole (one call into SQLite, 15 % faster than stepping row by row) and the
      // connection is free again before the first piece waits for the client.
      const rows = statement.all(params) as RawEntry[];
      for (const row of rows) {
        const [rowid, id, recordedOn, n, status, billable, seconds, notes, amount, invoiceId, createdAt, updatedAt] = row;
        const combo = combos[n]!;
        out.add(
          `${id},${recordedOn},${combo.cells},${status},${billable === 1},${(hoursText[seconds] ??= String(hoursOf(seconds)))},${seconds},${textCell(notes)},${combo.currency},` +
            `${amount === null ? '' : combo.rateCell},${amount === null ? '' : minorToDecimalString(amount, combo.decimals)},` +
            `${invoiceId ? textCell(numberOf(invoiceId)) : ''},${invoiceId ?? ''},${createdAt},${updatedAt}\r\n`,
        );
        params.day = recordedOn;
        params.rid = rowid;
        if (out.length >= PIECE_CHARS) yield out.take();
      }
      if (out.length > 0) yield out.take();
      if (rows.length < CHUNK) return;
    }
  } finally {
    st.drop.run(exportId);
  }
}

/** An invoice's number by id, each read once per export (an export meets few invoices). */
function invoiceNumbers(scope: Scope): (id: string) => string {
  const known = new Map<string, string>();
  return (id) => {
    let number = known.get(id);
    if (number === undefined) {
      number = scope.db.select({ number: invoices.number }).from(invoices).where(eq(invoices.id, id)).get()?.number ?? '';
      known.set(id, number);
    }
    return number;
  };
}

/**
 * The export's CSV, as pieces to stream. The range and the caller's right to see the entries are
 * checked now (a refused export fails before its first byte); the entries are read as the pieces
 * are taken.
 */
export function timeEntriesExport(scope: Scope, input: TimeEntriesExportInput, bom: boolean): { range: DateRange; pieces: Generator<string> } {
  const range = resolveRange(scope, input);
  const entries = entryScope(scope, input);
  function* pieces(): Generator<string> {
    yield csvHeader(HEADERS, bom);
    yield* lines(scope, range, entries, input);
  }
  return { range, pieces: pieces() };
}
