import { parse } from 'csv-parse/sync';
import { and, eq, gte, lte } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timeEntries } from '../src/db/schema/index.ts';
import { CHUNK } from '../src/domain/reports/time-entries-export.ts';
import { makeClient, makeMember, makeProject, makeProjectUser, makeTask, makeTimeEntry } from './helpers/factories.ts';
import { startTestEnv, testClock, type TestEnv } from './helpers/env.ts';

/**
 * The time-entries export while entries change under a long download (docs/reports.md, "Entries
 * that change during a download"): every entry in the range at the end is written exactly once,
 * whatever changed about it meanwhile, through the tRPC door (createCaller) on a real file.
 */

const ENTRIES = 12_000;
const RANGE = { report: 'time-entries' as const, from: '2026-01-01', to: '2026-12-31' };

let env: TestEnv;
let refs: { clientId: string; projectId: string; taskId: string; userId: string };
let ann: ReturnType<typeof makeMember>;
let bob: ReturnType<typeof makeMember>;
beforeAll(async () => {
  env = await startTestEnv({ clock: testClock('2026-11-18T10:00:00.000Z') });
  const db = env.alpha.handle.db;
  const client = makeClient(db, { currency: 'EUR' });
  const project = makeProject(db, client.id, { currency: 'EUR', hourlyRateMinor: 9550 });
  const task = makeTask(db, project.id);
  ann = makeMember(db);
  bob = makeMember(db);
  makeProjectUser(db, project.id, ann.id);
  makeProjectUser(db, project.id, bob.id);
  refs = { clientId: client.id, projectId: project.id, taskId: task.id, userId: ann.id };
  env.alpha.handle.sqlite.transaction(() => {
    for (let i = 0; i < ENTRIES; i++) makeTimeEntry(db, refs, { recordedOn: `2026-0${1 + (i % 9)}-1${i % 10}`, seconds: 3600 });
  })();
}, 60_000);
afterAll(() => env.close());

type Row = { id: string; recorded_on: string; task: string; person_email: string };

/** Starts an export and reads its header and first piece: its first chunk of entries has been read. */
async function started(input: Parameters<typeof env.alpha.caller.reports.exportCsv>[0]) {
  const csv = await env.alpha.caller.reports.exportCsv(input);
  const pieces = csv.pieces[Symbol.asyncIterator]();
  let text = '';
  text += (await pieces.next()).value ?? '';
  text += (await pieces.next()).value ?? '';
  return {
    async rest(): Promise<Row[]> {
      for (;;) {
        const r = await pieces.next();
        if (r.done) break;
        text += r.value;
      }
      return parse(text, { columns: true }) as Row[];
    },
  };
}

const entryOn = (day: string) => env.alpha.handle.db.select().from(timeEntries).where(eq(timeEntries.recordedOn, day)).limit(1).get()!;
const moveTo = (id: string, change: Partial<typeof timeEntries.$inferInsert>) => env.alpha.handle.db.update(timeEntries).set(change).where(eq(timeEntries.id, id)).run();

describe('entries changed or recorded while a time-entries export runs', () => {
  it('every entry in the range at the end is written exactly once: new or changed combinations, days moved across the read position, entries recorded on days already read', async () => {
    // The download must take several chunks for the changes to fall between them.
    expect(ENTRIES).toBeGreaterThan(2 * CHUNK);
    const db = env.alpha.handle.db;
    const oldTask = makeTask(db, refs.projectId, { name: 'Only last year' });
    makeTimeEntry(db, { ...refs, taskId: oldTask.id }, { recordedOn: '2025-06-01' });
    const firstRead = entryOn('2026-01-10');
    const download = await started(RANGE);

    const sameCombo = makeTimeEntry(db, refs, { recordedOn: '2026-12-01', seconds: 1800 });
    const newTask = makeTask(db, refs.projectId, { name: 'Added meanwhile' });
    const newCombo = makeTimeEntry(db, { ...refs, taskId: newTask.id }, { recordedOn: '2026-12-01', seconds: 1800 });
    // A combination whose entries were all outside the range when the download started.
    const oldCombo = makeTimeEntry(db, { ...refs, taskId: oldTask.id }, { recordedOn: '2026-12-02' });
    // An entry that exists throughout, not read yet, moved to the new task.
    const retasked = entryOn('2026-09-19');
    moveTo(retasked.id, { taskId: newTask.id });
    // Not read yet, moved to a day already read; read already, moved to a day not read yet.
    const movedBack = entryOn('2026-08-15');
    moveTo(movedBack.id, { recordedOn: '2026-01-12' });
    moveTo(firstRead.id, { recordedOn: '2026-11-30' });
    // Recorded meanwhile on a day already read.
    const backdated = makeTimeEntry(db, refs, { recordedOn: '2026-02-11', seconds: 900 });
    const deleted = entryOn('2026-07-17');
    db.delete(timeEntries).where(eq(timeEntries.id, deleted.id)).run();

    const rows = await download.rest();
    const ids = rows.map((r) => r.id);
    const inRange = db
      .select({ id: timeEntries.id })
      .from(timeEntries)
      .where(and(gte(timeEntries.recordedOn, RANGE.from), lte(timeEntries.recordedOn, RANGE.to)))
      .all()
      .map((r) => r.id);
    expect(ids.length).toBe(new Set(ids).size);
    expect([...ids].sort()).toEqual([...inRange].sort());
    for (const entry of [sameCombo, newCombo, oldCombo, retasked, movedBack, firstRead, backdated]) expect(ids).toContain(entry.id);
    expect(ids).not.toContain(deleted.id);
    // Each as it was when it was read: the moved-back entry on its new day, the retasked one on its new task.
    expect(rows.find((r) => r.id === movedBack.id)?.recorded_on).toBe('2026-01-12');
    expect(rows.find((r) => r.id === retasked.id)?.task).toBe('Added meanwhile');
    expect(rows.find((r) => r.id === firstRead.id)?.recorded_on).toBe('2026-01-10');
  });

  it("a Member's export takes new combinations they may see, and only those", async () => {
    const db = env.alpha.handle.db;
    const other = makeProject(db, refs.clientId, { currency: 'EUR', hourlyRateMinor: 1000 });
    const otherTask = makeTask(db, other.id);
    makeProjectUser(db, other.id, ann.id);
    makeProjectUser(db, other.id, bob.id);
    const download = await started({ ...RANGE, email: ann.email });
    const own = makeTimeEntry(db, { ...refs, projectId: other.id, taskId: otherTask.id }, { recordedOn: '2026-12-03' });
    const someoneElses = makeTimeEntry(db, { ...refs, projectId: other.id, taskId: otherTask.id, userId: bob.id }, { recordedOn: '2026-12-03' });
    const rows = await download.rest();
    const ids = new Set(rows.map((r) => r.id));
    expect(ids.has(own.id)).toBe(true);
    expect(ids.has(someoneElses.id)).toBe(false);
    expect(rows.every((r) => r.person_email === ann.email)).toBe(true);
    expect(ids.size).toBe(rows.length);
  });
});
