import type BetterSqlite3 from 'better-sqlite3';
import { eq } from 'drizzle-orm';
import type { Database } from '../../db/index.ts';
import { invoices, timeEntryStatuses } from '../../db/schema/index.ts';
import { currencyDecimals, minorToDecimalString } from '../money.ts';
import type { Scope } from '../scope.ts';
import { hoursOf } from '../time/hours.ts';
import { connectionOf } from '../../db/index.ts';
import { amountSql, comboStatements, createTempSchema, ensurePriced, statementFor } from './combos.ts';
import { csvHeader, textCell, TextBuffer } from './csv.ts';
import { clientNames, nameOf, peopleNames, projectNames, taskNames } from './labels.ts';
import { billableSql } from './pricing.ts';
import { resolveRange, type DateRange } from './range.ts';
import { DEFAULT_STATUSES } from './time-report.ts';
import type { TimeEntriesExportInput, TimeEntryStatus } from './schemas.ts';
import { entryScope, visibleSql, type EntryScope } from './visibility.ts';

/**
 * The time-entry export: every entry a request counts, one CSV row each, in day order. Entries are
 * read in keyset chunks of `CHUNK` (day, then rowid, on the day index), each chunk read whole before
 * it is written, so the connection is free for other requests between chunks and memory holds one
 * chunk however many entries there are.
 *
 * A long download does not read one snapshot (a read transaction that long would stop the WAL's
 * checkpoints), so entries change under it. The rule (docs/reports.md): every entry in the range
 * when the download ends is written, none twice, each as it was when it was read. Two things keep it:
 * - the export's combinations are topped up before each chunk with those it may read that appeared
 *   since (a new task, a person's first entry on a project, a combination's first entry in the
 *   range), so a changed or new entry is never left out for want of its combination;
 * - temporary triggers tell the running exports of every entry recorded, or moved to another day,
 *   across their read position (`noteMove`): one moved ahead after it was written is not written
 *   again, and one recorded or moved behind it is owed and written at the end.
 * Both keep memory proportional to what changed during the download, never to its size.
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
 * Where a running export has read to, and the entries that crossed that place meanwhile: `written`
 * ones are skipped if met again, `owed` ones are written at the end.
 */
interface ReadPosition {
  from: string;
  /** The last entry (day, rowid) read: every entry from `from` up to it has been read. */
  day: string;
  rid: number;
  marks: Map<number, 'written' | 'owed'>;
}

/** Whether an entry at (day, rid) is at or before the export's read position, within its days. */
const isRead = (p: ReadPosition, day: string, rid: number) => day >= p.from && (day < p.day || (day === p.day && rid <= p.rid));

/**
 * An entry was recorded (`oldDay` null) or moved from `oldDay` to `newDay`: notes what the export
 * at `p` owes it. Called by the temporary triggers, inside the write (a write rolled back after it
 * leaves a mark that only costs a lookup: see `unmarked`).
 */
function noteMove(p: ReadPosition, rid: number, oldDay: string | null, newDay: string): void {
  const mark = p.marks.get(rid);
  const behind = isRead(p, newDay, rid);
  if (mark === 'written') return;
  if (mark === 'owed') {
    // Ahead again: the chunks will meet it where it is now.
    if (!behind) p.marks.delete(rid);
    return;
  }
  const wasBehind = oldDay !== null && isRead(p, oldDay, rid);
  if (wasBehind && !behind) p.marks.set(rid, 'written');
  else if (!wasBehind && behind) p.marks.set(rid, 'owed');
}

/**
 * The temporary table of an export's combinations, keyed by (export, combination): each export
 * tags its own rows, so exports running side by side on one connection never see each other's.
 * And the triggers that tell the running exports of this connection of entries recorded or moved
 * to another day: every write to a workspace goes through this connection (the command line
 * writes no time entries).
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
  const running = new Set<ReadPosition>();
  sqlite.function('hourbook_export_entry_moved', { deterministic: false }, (rid, oldDay, newDay) => {
    for (const p of running) noteMove(p, Number(rid), oldDay as string | null, newDay as string);
    return null;
  });
  sqlite.exec(`CREATE TEMP TRIGGER IF NOT EXISTS export_entry_recorded AFTER INSERT ON main.time_entries
      BEGIN SELECT hourbook_export_entry_moved(NEW.rowid, NULL, NEW.recorded_on); END;
    CREATE TEMP TRIGGER IF NOT EXISTS export_entry_moved AFTER UPDATE OF recorded_on ON main.time_entries
      WHEN OLD.recorded_on IS NOT NEW.recorded_on
      BEGIN SELECT hourbook_export_entry_moved(NEW.rowid, OLD.recorded_on, NEW.recorded_on); END;`);
  return {
    sqlite,
    running,
    /** The combinations loaded under an export from number `n` on, in that order. */
    loaded: sqlite
      .prepare<[number, number]>(
        `SELECT r.project_id, r.task_id, r.user_id, r.client_id, r.currency, r.rate_hi * 3600 + r.rate_lo, r.unpriced
         FROM temp.export_combos x JOIN temp.report_combos r ON r.id = x.combo_id WHERE x.export_id = ? AND x.n >= ? ORDER BY x.n`,
      )
      .raw(),
    /** Whether anything changed since: this connection's writes, or another's commit. */
    changes: sqlite.prepare<[], number>('SELECT total_changes()').pluck(),
    dataVersion: sqlite.prepare<[], number>('PRAGMA data_version').pluck(),
    drop: sqlite.prepare<[number]>('DELETE FROM temp.export_combos WHERE export_id = ?'),
    next: { id: 0 },
  };
};

/** A priced combination the export reads, as `report_combos` holds it. */
type ScopedCombo = [projectId: string, taskId: string, userId: string, clientId: string, currency: string, rateMinor: number, unpriced: number];

/**
 * The combinations an export reads, priced (the reports' own priced combinations, combos.ts) and
 * loaded under `exportId` with their shared cells by number: those with entries in the range that
 * the caller may see. `topUp` adds the ones that appeared since, each numbered after the last, and
 * is cheap when nothing was written meanwhile. A combination keeps the names, rate and billable
 * rule it had when it was loaded, so one download prices every entry of a combination alike.
 */
function exportCombos(scope: Scope, exportId: number, range: DateRange, entries: EntryScope) {
  const st = scope.statements(exportStatements);
  const priced = scope.statements(comboStatements);
  const visible = visibleSql(entries, 'r.project_id', 'r.user_id');
  const load = statementFor(
    priced,
    `INSERT INTO temp.export_combos (export_id, combo_id, n, rate_hi, rate_lo, priced, billable_now)
     SELECT :export, r.id, :base + row_number() OVER (ORDER BY r.id) - 1, r.rate_hi, r.rate_lo, 1 - r.unpriced, r.billable_now
     FROM temp.report_combos r JOIN main.time_entry_combos t ON t.id = r.id
     WHERE t.first_on <= :to AND t.last_on >= :from
       AND NOT EXISTS (SELECT 1 FROM temp.export_combos x WHERE x.export_id = :export AND x.combo_id = r.id)${visible.sql ? ` AND ${visible.sql}` : ''}`,
  );
  const cells: ComboCells[] = [];
  let seen = '';
  const topUp = () => {
    const now = `${st.dataVersion.get()}:${st.changes.get()}`;
    if (now === seen) return;
    const added = st.sqlite.transaction(() => {
      ensurePriced(priced);
      load.run({ export: exportId, base: cells.length, from: range.from, to: range.to, ...visible.params });
      return st.loaded.all(exportId, cells.length) as ScopedCombo[];
    })();
    // Its own writes (the loaded rows) are counted too: the next look compares with them included.
    seen = `${st.dataVersion.get()}:${st.changes.get()}`;
    if (added.length > 0) cells.push(...cellsOf(scope, added));
  };
  return { cells, topUp };
}

/** The shared cells of combinations, with the names they have now. */
function cellsOf(scope: Scope, combos: ScopedCombo[]): ComboCells[] {
  const names = {
    clients: clientNames(scope.db, null),
    projects: projectNames(scope.db, null),
    tasks: taskNames(scope.db, null),
    people: peopleNames(scope.db, null),
  };
  return combos.map(([projectId, taskId, userId, clientId, currency, rateMinor, unpriced]) => {
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
 * The statements reading entries joined to the export's combinations; the billable rule and each
 * entry's amount are the reports' own SQL (pricing.ts, combos.ts). `chunk`: the next chunk in day
 * order after (day, rowid). `owed`: the entries of a list of rowids still in the range, in day order.
 */
function entryStatements(sqlite: BetterSqlite3.Database, input: TimeEntriesExportInput) {
  const billable = billableSql('e.status', 'c.billable_now');
  const filters: string[] = [];
  // The same statuses as the time report it is downloaded beside: rejected entries only when asked for.
  const statuses = input.status ?? DEFAULT_STATUSES;
  filters.push(`e.status IN (${timeEntryStatuses.filter((s) => statuses.includes(s)).map((s) => `'${s}'`).join(', ')})`);
  if (input.billable !== undefined) filters.push(input.billable ? billable : `NOT ${billable}`);
  const select = `SELECT e.rowid, e.id, e.recorded_on, c.n, e.status, ${billable}, e.seconds, e.notes,
      CASE WHEN ${billable} AND c.priced = 1 THEN ${amountSql('e', 'c')} END, e.invoice_id, e.created_at, e.updated_at`;
  const combo = 'CROSS JOIN temp.export_combos c ON c.export_id = :export AND c.combo_id = e.combo_id';
  const where = (...more: string[]) => [...more, ...filters].join(' AND ');
  return {
    chunk: sqlite
      .prepare(
        `${select} FROM time_entries e INDEXED BY time_entries_day_idx ${combo}
         WHERE ${where('(e.recorded_on, e.rowid) > (:day, :rid)', 'e.recorded_on <= :to')}
         ORDER BY e.recorded_on, e.rowid LIMIT ${CHUNK}`,
      )
      .raw(),
    owed: sqlite
      .prepare(
        `${select} FROM json_each(:owed) o CROSS JOIN time_entries e ON e.rowid = o.value ${combo}
         WHERE ${where('e.recorded_on >= :from', 'e.recorded_on <= :to')}
         ORDER BY e.recorded_on, e.rowid`,
      )
      .raw(),
  };
}

type RawEntry = [number, string, string, number, TimeEntryStatus, number, number, string, number | null, string | null, string, string];

/**
 * A chunk's entries less those written already (moved ahead after they were read); an owed entry
 * met here (its move was rolled back) is written here and no more at the end. Runs as soon as the
 * chunk is read, before any write can come between.
 */
function unmarked(p: ReadPosition, rows: RawEntry[]): RawEntry[] {
  if (p.marks.size === 0) return rows;
  return rows.filter(([rid]) => {
    const mark = p.marks.get(rid);
    if (mark === 'written') return false;
    if (mark === 'owed') p.marks.set(rid, 'written');
    return true;
  });
}

/**
 * One entry's CSV line. A line is its combination's cells (written once per combination) and the
 * entry's own: a hot loop, so it concatenates the cells itself rather than going through
 * `CsvColumn`s, with the same encoding (`textCell`) for every cell a person wrote (names, notes,
 * invoice numbers). Ids, days and timestamps are written by the service itself as UUIDs and ISO
 * 8601 text, which never need quoting or neutralising.
 */
function lineWriter(scope: Scope, combos: ComboCells[]): (row: RawEntry) => string {
  // An entry holds at most 24 hours: its hours as text are worked out once per duration.
  const hoursText: string[] = [];
  const numberOf = invoiceNumbers(scope);
  return ([, id, recordedOn, n, status, billable, seconds, notes, amount, invoiceId, createdAt, updatedAt]) => {
    const combo = combos[n]!;
    return (
      `${id},${recordedOn},${combo.cells},${status},${billable === 1},${(hoursText[seconds] ??= String(hoursOf(seconds)))},${seconds},${textCell(notes)},${combo.currency},` +
      `${amount === null ? '' : combo.rateCell},${amount === null ? '' : minorToDecimalString(amount, combo.decimals)},` +
      `${invoiceId ? textCell(numberOf(invoiceId)) : ''},${invoiceId ?? ''},${createdAt},${updatedAt}\r\n`
    );
  };
}

/**
 * The CSV lines of the entries, a chunk at a time, then those owed (recorded or moved behind the
 * read position meanwhile).
 */
function* lines(scope: Scope, range: DateRange, entries: EntryScope, input: TimeEntriesExportInput): Generator<string> {
  const st = scope.statements(exportStatements);
  const exportId = ++st.next.id;
  const position: ReadPosition = { from: range.from, day: range.from, rid: -1, marks: new Map() };
  st.running.add(position);
  try {
    const combos = exportCombos(scope, exportId, range, entries);
    const read = entryStatements(st.sqlite, input);
    const line = lineWriter(scope, combos.cells);
    const params = { day: range.from, rid: -1, from: range.from, to: range.to, export: exportId, owed: '[]' };
    const out = new TextBuffer();
    const pieces = function* (rows: RawEntry[]) {
      for (const row of rows) {
        out.add(line(row));
        if (out.length >= PIECE_CHARS) yield out.take();
      }
      if (out.length > 0) yield out.take();
    };
    for (let done = false; !done; ) {
      combos.topUp();
      // A chunk is read whole (one call into SQLite, 15 % faster than stepping row by row) and the
      // connection is free again before the first piece waits for the client.
      const rows = read.chunk.all(params) as RawEntry[];
      done = rows.length < CHUNK;
      const last = rows.at(-1);
      if (last) [params.day, params.rid] = [last[2], last[0]];
      // The last chunk read the range to its end: from now on every move into it is behind.
      [position.day, position.rid] = done ? [range.to, Infinity] : [params.day, params.rid];
      yield* pieces(unmarked(position, rows));
    }
    const owed = [...position.marks].filter(([, mark]) => mark === 'owed').map(([rid]) => rid);
    if (owed.length > 0) {
      combos.topUp();
      yield* pieces(read.owed.all({ ...params, owed: JSON.stringify(owed) }) as RawEntry[]);
    }
  } finally {
    st.running.delete(position);
    // A download cut because its file is being closed has its temp rows go with the connection.
    if (st.sqlite.open) st.drop.run(exportId);
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
