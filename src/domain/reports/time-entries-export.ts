import type BetterSqlite3 from 'better-sqlite3';
import { invoices, timeEntryStatuses } from '../../db/schema/index.ts';
import { currencyDecimals, minorToDecimalString, timeAmountMinor } from '../money.ts';
import { inIds } from '../queries.ts';
import type { Scope } from '../scope.ts';
import { hoursOf } from '../time/hours.ts';
import { connectionOf } from './combos.ts';
import { csvHeader, csvLines, type CsvColumn } from './csv.ts';
import { clientNames, nameOf, peopleNames, projectNames, taskNames } from './labels.ts';
import { comboFacts, isBillable, readPricingFacts, type ComboFacts } from './pricing.ts';
import { resolveRange, type DateRange } from './range.ts';
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

/** What the export writes per entry. */
interface EntryLine {
  id: string;
  recordedOn: string;
  clientId: string;
  projectId: string;
  taskId: string;
  userId: string;
  seconds: number;
  status: TimeEntryStatus;
  notes: string;
  invoiceId: string | null;
  createdAt: string;
  updatedAt: string;
  facts: ComboFacts | null;
  billable: boolean;
  invoiceNumber: string | null;
}

type Names = ReturnType<typeof loadNames>;

/** Every client, project, task and person: small tables, read once per export. */
const loadNames = (scope: Scope) => ({
  clients: clientNames(scope.db, null),
  projects: projectNames(scope.db, null),
  tasks: taskNames(scope.db, null),
  people: peopleNames(scope.db, null),
});

function columns(names: Names): CsvColumn<EntryLine>[] {
  const rate = (e: EntryLine) => (e.billable && e.facts && e.facts.rateMinor !== null ? e.facts.rateMinor : null);
  return [
    { header: 'id', kind: 'text', value: (e) => e.id },
    { header: 'recorded_on', kind: 'text', value: (e) => e.recordedOn },
    { header: 'client', kind: 'text', value: (e) => nameOf(names.clients, e.clientId) },
    { header: 'client_id', kind: 'text', value: (e) => e.clientId },
    { header: 'project_identifier', kind: 'text', value: (e) => names.projects.get(e.projectId)?.identifier ?? '' },
    { header: 'project', kind: 'text', value: (e) => nameOf(names.projects, e.projectId) },
    { header: 'project_id', kind: 'text', value: (e) => e.projectId },
    { header: 'task', kind: 'text', value: (e) => nameOf(names.tasks, e.taskId) },
    { header: 'task_id', kind: 'text', value: (e) => e.taskId },
    { header: 'person', kind: 'text', value: (e) => nameOf(names.people, e.userId) },
    { header: 'person_email', kind: 'text', value: (e) => names.people.get(e.userId)?.email ?? '' },
    { header: 'user_id', kind: 'text', value: (e) => e.userId },
    { header: 'status', kind: 'text', value: (e) => e.status },
    { header: 'billable', kind: 'text', value: (e) => (e.billable ? 'true' : 'false') },
    { header: 'hours', kind: 'number', value: (e) => hoursOf(e.seconds) },
    { header: 'seconds', kind: 'number', value: (e) => e.seconds },
    { header: 'notes', kind: 'text', value: (e) => e.notes },
    { header: 'currency', kind: 'text', value: (e) => e.facts?.currency ?? '' },
    {
      header: 'current_hourly_rate',
      kind: 'number',
      value: (e) => {
        const r = rate(e);
        return r === null ? null : minorToDecimalString(r, currencyDecimals(e.facts!.currency));
      },
    },
    {
      header: 'current_amount',
      kind: 'number',
      value: (e) => {
        const r = rate(e);
        return r === null ? null : minorToDecimalString(timeAmountMinor(e.seconds, r), currencyDecimals(e.facts!.currency));
      },
    },
    { header: 'invoice_number', kind: 'text', value: (e) => e.invoiceNumber },
    { header: 'invoice_id', kind: 'text', value: (e) => e.invoiceId },
    { header: 'created_at', kind: 'text', value: (e) => e.createdAt },
    { header: 'updated_at', kind: 'text', value: (e) => e.updatedAt },
  ];
}

/** The chunk statement for this scope and these filters (statuses are the enum's own literals). */
function chunkStatement(sqlite: BetterSqlite3.Database, entries: EntryScope, statuses: readonly TimeEntryStatus[] | undefined) {
  const where: string[] = ['(e.recorded_on, e.rowid) > (:day, :rid)', 'e.recorded_on <= :to'];
  if (entries.projects) where.push('e.project_id IN (SELECT value FROM json_each(:projects))');
  if (entries.users) where.push('e.user_id IN (SELECT value FROM json_each(:users))');
  if (entries.member) where.push('(e.user_id = :me OR e.project_id IN (SELECT value FROM json_each(:managed)))');
  if (statuses) where.push(`e.status IN (${timeEntryStatuses.filter((s) => statuses.includes(s)).map((s) => `'${s}'`).join(', ')})`);
  return sqlite
    .prepare(
      `SELECT e.rowid, e.id, e.recorded_on, e.client_id, e.project_id, e.task_id, e.user_id, e.seconds, e.status, e.notes, e.invoice_id, e.created_at, e.updated_at
       FROM time_entries e INDEXED BY time_entries_day_idx
       WHERE ${where.join(' AND ')}
       ORDER BY e.recorded_on, e.rowid LIMIT ${CHUNK}`,
    )
    .raw();
}

type RawEntry = [number, string, string, string, string, string, string, number, TimeEntryStatus, string, string | null, string, string];

function* chunks(scope: Scope, range: DateRange, entries: EntryScope, input: TimeEntriesExportInput): Generator<EntryLine[]> {
  const statement = chunkStatement(connectionOf(scope.db), entries, input.status);
  const facts = readPricingFacts(scope.db, null);
  const combos = new Map<string, ComboFacts | null>();
  const factsOf = (p: string, t: string, u: string) => {
    const key = `${p}|${t}|${u}`;
    let f = combos.get(key);
    if (f === undefined) {
      f = comboFacts(facts, p, t, u);
      combos.set(key, f);
    }
    return f;
  };
  const params: Record<string, string | number> = { day: range.from, rid: -1, to: range.to };
  if (entries.projects) params.projects = JSON.stringify([...entries.projects]);
  if (entries.users) params.users = JSON.stringify([...entries.users]);
  if (entries.member) Object.assign(params, { me: entries.member.id, managed: JSON.stringify([...entries.member.managed]) });
  for (;;) {
    const rows = statement.all(params) as RawEntry[];
    if (rows.length === 0) return;
    const last = rows[rows.length - 1]!;
    params.day = last[2];
    params.rid = last[0];
    const invoiceIds = [...new Set(rows.flatMap((r) => (r[10] ? [r[10]] : [])))];
    const numbers = new Map(
      invoiceIds.length ? scope.db.select({ id: invoices.id, number: invoices.number }).from(invoices).where(inIds(invoices.id, invoiceIds)).all().map((i) => [i.id, i.number]) : [],
    );
    const lines: EntryLine[] = [];
    for (const [, id, recordedOn, clientId, projectId, taskId, userId, seconds, status, notes, invoiceId, createdAt, updatedAt] of rows) {
      const f = factsOf(projectId, taskId, userId);
      const billable = isBillable(status, f?.billableNow ?? false);
      if (input.billable !== undefined && billable !== input.billable) continue;
      lines.push({ id, recordedOn, clientId, projectId, taskId, userId, seconds, status, notes, invoiceId, createdAt, updatedAt, facts: f, billable, invoiceNumber: invoiceId ? (numbers.get(invoiceId) ?? null) : null });
    }
    yield lines;
    if (rows.length < CHUNK) return;
  }
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
    const names = loadNames(scope);
    const cols = columns(names);
    yield csvHeader(cols, bom);
    for (const lines of chunks(scope, range, entries, input)) yield csvLines(cols, lines);
  }
  return { range, pieces: pieces() };
}
