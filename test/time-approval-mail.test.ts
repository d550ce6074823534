import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvalDigests, outbox, workspace } from '../src/db/schema/index.ts';
import { dueDigestDate, nextDigestAt, queueDueDigests } from '../src/domain/time-entries/digest.ts';
import { addDays, instantAt, localDateTime } from '../src/domain/time/calendar.ts';
import { approvalDigestJob } from '../src/jobs/approval-digest.ts';
import { jobs } from '../src/jobs/index.ts';
import { runJobOnce } from '../src/jobs/runner.ts';
import { WorkspaceRegistry } from '../src/workspaces/registry.ts';
import { makeMember, makeProjectSetup, makeProjectUser, makeTask, makeTimeEntry } from './helpers/factories.ts';
import { callerFor, scopeOf, startTestEnv, testClock, type TestEnv, type TestWorkspace } from './helpers/env.ts';

let env: TestEnv;
const clock = testClock('2026-11-18T10:00:00.000Z');
let ws: TestWorkspace;
let kicks = 0;

beforeAll(async () => {
  env = await startTestEnv({ clock });
  ws = env.workspace('digest');
  // Before anything reads it: this workspace keeps New York time (EST, UTC-5, in November).
  ws.handle.db.update(workspace).set({ timeZone: 'America/New_York' }).where(eq(workspace.subdomain, 'digest')).run();
});
afterAll(() => env.close());

const services = () => ({ ...env.services, wake: (job: string) => void (job === 'outbox' && kicks++) });
const runJob = () => runJobOnce(approvalDigestJob, services());
const mails = (kind: string) => ws.handle.db.select().from(outbox).where(eq(outbox.kind, kind)).all();

function approvalsProject(over: NonNullable<Parameters<typeof makeProjectSetup>[1]>['project'] = {}) {
  const db = ws.handle.db;
  const s = makeProjectSetup(db, { project: { enableApprovals: true, replyTo: 'studio@agency.test', ...over } });
  const pms = [makeMember(db, { firstName: 'Pia' }), makeMember(db, { firstName: 'Max' })];
  for (const pm of pms) makeProjectUser(db, s.project.id, pm.id, { role: 'project_manager' });
  return { ...s, pms };
}

describe('dueDigestDate', () => {
  const due = (iso: string, zone: string, day: Parameters<typeof dueDigestDate>[2], time: string) => dueDigestDate(new Date(iso), zone, day, time);

  it("is this week's scheduled date once its local day and time have come", () => {
    expect(due('2026-11-20T08:59:00Z', 'UTC', 'friday', '09:00')).toBeNull();
    expect(due('2026-11-20T09:00:00Z', 'UTC', 'friday', '09:00')).toBe('2026-11-20');
    expect(due('2026-11-22T23:59:00Z', 'UTC', 'friday', '9:00')).toBe('2026-11-20');
    // Monday starts a new week: last Friday's slot is no longer this week's
    expect(due('2026-11-23T00:00:00Z', 'UTC', 'friday', '09:00')).toBeNull();
    expect(due('2026-11-22T17:59:00Z', 'UTC', 'sunday', '18:00')).toBeNull();
    expect(due('2026-11-22T18:00:00Z', 'UTC', 'sunday', '18:00')).toBe('2026-11-22');
  });

  it("uses the workspace's zone: Monday 08:00 in Tokyo is Sunday 23:00 UTC", () => {
    expect(due('2026-11-22T22:59:00Z', 'Asia/Tokyo', 'monday', '08:00')).toBeNull();
    expect(due('2026-11-22T23:00:00Z', 'Asia/Tokyo', 'monday', '08:00')).toBe('2026-11-23');
  });

  it('a time skipped by the clocks going forward is reached when the clocks pass it', () => {
    // Berlin, Sunday 29 March 2026: 02:00 CET jumps to 03:00 CEST, so 02:30 never shows
    expect(due('2026-03-29T00:59:00Z', 'Europe/Berlin', 'sunday', '02:30')).toBeNull();
    expect(due('2026-03-29T01:00:00Z', 'Europe/Berlin', 'sunday', '02:30')).toBe('2026-03-29');
  });

  it('a time the clocks show twice is reached the first time, also when that was missed', () => {
    // Berlin, Sunday 25 October 2026: 03:00 CEST goes back to 02:00 CET at 01:00Z, so 02:45 shows at 00:45Z and 01:45Z.
    expect(due('2026-10-25T00:44:00Z', 'Europe/Berlin', 'sunday', '02:45')).toBeNull();
    expect(due('2026-10-25T00:45:00Z', 'Europe/Berlin', 'sunday', '02:45')).toBe('2026-10-25');
    // The second 02:15, the first 02:45 passed unsent (the server was down): due now, not at the second 02:45.
    expect(due('2026-10-25T01:15:00Z', 'Europe/Berlin', 'sunday', '02:45')).toBe('2026-10-25');
  });

  it('agrees with nextDigestAt in the repeated hour: a digest it calls due now is queued now', async () => {
    const berlin = env.workspace('digestdst');
    berlin.handle.db.update(workspace).set({ timeZone: 'Europe/Berlin' }).where(eq(workspace.subdomain, 'digestdst')).run();
    const s = makeProjectSetup(berlin.handle.db, { project: { enableApprovals: true, notifyWeekly: true, notificationDay: 'sunday', notificationTime: '02:45' } });
    makeProjectUser(berlin.handle.db, s.project.id, makeMember(berlin.handle.db).id, { role: 'project_manager' });
    makeTimeEntry(berlin.handle.db, { clientId: s.client.id, projectId: s.project.id, taskId: s.task.id, userId: s.member.id }, { recordedOn: '2026-10-23', status: 'pending_approval' });
    const at = new Date('2026-10-25T01:15:00.000Z');
    const scope = scopeOf(env.services, berlin.handle, at);
    expect(nextDigestAt(scope)).toBe(at.getTime());
    expect(queueDueDigests(scope)).toBe(1);
    // Recorded for the week: the job is not due again until next Sunday's 02:45 (before the fix it
    // answered "now" pass after pass for an hour without sending).
    expect(nextDigestAt(scope)).toBe(Date.parse('2026-11-01T01:45:00.000Z'));
  });

  it('ignores a time that is not HH:MM', () => {
    for (const time of ['25:00', '9', 'noon', '09:60', '']) expect(due('2026-11-20T12:00:00Z', 'UTC', 'monday', time)).toBeNull();
  });
});

describe('weekly approval digest', () => {
  it('is one of the jobs the server runs', () => {
    expect(jobs).toContain(approvalDigestJob);
  });

  it("is sent once a week, at the project's day and time in the workspace's time zone", async () => {
    const s = approvalsProject({ notifyWeekly: true, notificationDay: 'friday', notificationTime: '09:00', name: 'Website relaunch' });
    const refs = { clientId: s.client.id, projectId: s.project.id, taskId: s.task.id, userId: s.member.id };
    makeTimeEntry(ws.handle.db, refs, { recordedOn: '2026-11-17', seconds: 5400, status: 'pending_approval', notes: 'Wireframes' });
    makeTimeEntry(ws.handle.db, refs, { recordedOn: '2026-11-16', seconds: 3600, status: 'pending_approval' });
    makeTimeEntry(ws.handle.db, refs, { recordedOn: '2026-11-16', seconds: 7200, status: 'unbilled', notes: 'already approved' });

    clock.set('2026-11-18T10:00:00.000Z'); // Wednesday
    await runJob();
    clock.set('2026-11-20T13:59:00.000Z'); // Friday 08:59 in New York (14:00 in UTC would already be past 09:00)
    await runJob();
    expect(mails('approval_digest')).toEqual([]);

    kicks = 0;
    clock.set('2026-11-20T14:00:00.000Z'); // Friday 09:00 in New York
    await runJob();
    const sent = mails('approval_digest');
    expect(sent.map((m) => m.toAddress).sort()).toEqual(s.pms.map((p) => p.email).sort());
    expect(kicks).toBe(1);
    for (const m of sent) {
      expect(m).toMatchObject({ replyTo: 'studio@agency.test', status: 'pending', subject: '2 time entries awaiting approval on Website relaunch' });
      // Every entry still pending on the day it is sent, dated as the workspace writes dates.
      expect(m.text).toContain('await your approval as of Nov 20, 2026:');
      expect(m.text).toMatch(/ {2}Nov 16, 2026 +1:00 h {2}/);
      expect(m.text).toMatch(/ {2}Nov 17, 2026 +1:30 h {2}.* — Wireframes/);
      expect(m.text).toContain('Listed: 2 entries, 2:30 h.');
      expect(m.text).not.toContain('already approved');
    }
    expect(ws.handle.db.select().from(approvalDigests).where(eq(approvalDigests.projectId, s.project.id)).all()).toEqual([
      { projectId: s.project.id, sentFor: '2026-11-20', createdAt: '2026-11-20T14:00:00.000Z' },
    ]);

    // later the same week, and after a restart (a fresh registry over the same files): nothing more
    clock.set('2026-11-22T20:00:00.000Z');
    await runJob();
    const reopened = new WorkspaceRegistry({ dataDir: env.dataDir, synchronous: 'NORMAL' });
    const handle = reopened.get('digest');
    expect(handle && queueDueDigests(scopeOf(env.services, handle, clock()))).toBe(0);
    handle?.close();
    expect(mails('approval_digest')).toHaveLength(2);

    // the next week's Friday sends again
    clock.set('2026-11-27T14:00:00.000Z');
    await runJob();
    expect(mails('approval_digest')).toHaveLength(4);
  });

  it('a late start in the same week still sends; nothing pending sends nothing but counts as sent', async () => {
    const before = mails('approval_digest').length;
    const empty = approvalsProject({ notifyWeekly: true, notificationDay: 'monday', notificationTime: '8:30' });
    const busy = approvalsProject({ notifyWeekly: true, notificationDay: 'monday', notificationTime: '08:30' });
    makeTimeEntry(ws.handle.db, { clientId: busy.client.id, projectId: busy.project.id, taskId: busy.task.id, userId: busy.member.id }, { status: 'pending_approval' });
    clock.set('2026-12-02T15:00:00.000Z'); // Wednesday: Monday 08:30 has passed this week
    await runJob();
    const sent = mails('approval_digest').slice(before);
    expect(sent.map((m) => m.toAddress).sort()).toEqual(busy.pms.map((p) => p.email).sort());
    // As of the day it goes out, Wednesday, not the Monday it was due (entries of Tuesday may be in it).
    for (const m of sent) expect(m.text).toContain('await your approval as of Dec 2, 2026:');
    expect(ws.handle.db.select().from(approvalDigests).where(eq(approvalDigests.projectId, empty.project.id)).all()).toHaveLength(1);
  });

  it('needs the weekly flag, a day and a time, and an active project', async () => {
    const variants = [
      { notifyWeekly: false, notificationDay: 'monday' as const, notificationTime: '08:00' },
      { notifyWeekly: true, notificationDay: null, notificationTime: '08:00' },
      { notifyWeekly: true, notificationDay: 'monday' as const, notificationTime: null },
      { notifyWeekly: true, notificationDay: 'monday' as const, notificationTime: '08:00', status: 'archived' as const },
    ];
    const managers: string[] = [];
    for (const v of variants) {
      const s = approvalsProject(v);
      managers.push(...s.pms.map((p) => p.email));
      makeTimeEntry(ws.handle.db, { clientId: s.client.id, projectId: s.project.id, taskId: s.task.id, userId: s.member.id }, { status: 'pending_approval' });
    }
    clock.set('2026-12-09T15:00:00.000Z');
    await runJob();
    expect(mails('approval_digest').filter((m) => managers.includes(m.toAddress))).toEqual([]);
    // the projects of the test before, which are due, did send: the pass ran
    expect(mails('approval_digest').filter((m) => m.createdAt === '2026-12-09T15:00:00.000Z').length).toBeGreaterThan(0);
  });
});

describe('a digest day changed within a week', () => {
  it('sends no second digest that week; the next week sends on the new day', async () => {
    const week = env.workspace('daychange');
    const db = week.handle.db;
    const s = makeProjectSetup(db, { project: { enableApprovals: true, notifyWeekly: true, notificationDay: 'wednesday', notificationTime: '09:00' } });
    makeProjectUser(db, s.project.id, makeMember(db, { firstName: 'Pia' }).id, { role: 'project_manager' });
    makeTimeEntry(db, { clientId: s.client.id, projectId: s.project.id, taskId: s.task.id, userId: s.member.id }, { status: 'pending_approval', recordedOn: '2026-11-17' });
    const digests = () => db.select().from(outbox).where(eq(outbox.kind, 'approval_digest')).all().map((m) => m.createdAt);
    const pass = async (iso: string) => {
      clock.set(iso);
      await runJobOnce(approvalDigestJob, services(), ['daychange']);
    };
    const next = () => new Date(nextDigestAt(scopeOf(env.services, week.handle, clock()))).toISOString();
    const setDay = async (day: string) => {
      const res = await week.api.patch(`/api/external/v1/projects/${s.project.id}`, { email: week.ownerEmail, project: { timesheet_approval_email_notification_day: day } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    };

    await pass('2026-11-18T10:00:00.000Z'); // Wednesday 10:00 UTC: this week's digest goes out
    expect(digests()).toEqual(['2026-11-18T10:00:00.000Z']);

    // Monday has passed this week, but the week had its digest: the next is next Monday's.
    await setDay('monday');
    await pass('2026-11-18T11:00:00.000Z');
    expect(digests()).toHaveLength(1);
    expect(next()).toBe('2026-11-23T09:00:00.000Z');

    // Friday is still ahead this week, but the week had its digest: the next is next week's Friday.
    await setDay('friday');
    expect(next()).toBe('2026-11-27T09:00:00.000Z');
    await pass('2026-11-20T09:00:00.000Z');
    await pass('2026-11-23T09:00:00.000Z');
    expect(digests()).toHaveLength(1);

    await pass('2026-11-27T09:00:00.000Z');
    expect(digests()).toEqual(['2026-11-18T10:00:00.000Z', '2026-11-27T09:00:00.000Z']);
    expect(db.select().from(approvalDigests).all().map((r) => r.sentFor)).toEqual(['2026-11-18', '2026-11-27']);
  });
});

describe('instant approval requests', () => {
  it('are queued with the entry and wake the outbox worker after the commit', async () => {
    clock.set('2026-11-18T10:00:00.000Z');
    const s = approvalsProject({ notifyInstantly: true });
    const nonBillable = makeTask(ws.handle.db, s.project.id, { billable: false });
    kicks = 0;
    const caller = callerFor(services(), 'digest', ws.key);
    const res = await caller.timeEntries.create({
      email: s.member.email,
      client_id: s.client.id,
      project_id: s.project.id,
      task_id: nonBillable.id,
      recorded_on: '2026-11-18',
      hours: '0.75',
    });
    expect(res.status).toBe('pending_approval');
    expect(kicks).toBe(1);
    const queued = mails('approval_request').filter((m) => m.text.includes(res.id));
    expect(queued.map((m) => m.toAddress).sort()).toEqual(s.pms.map((p) => p.email).sort());
    // Durations as the app writes them (H:MM), dates in the workspace's locale.
    expect(queued[0]?.text).toContain('Hours:   0:45 h');
    expect(queued[0]?.text).toContain('Date:    Nov 18, 2026');

    // approving needs no mail; an entry that is not pending wakes nobody
    await caller.timeEntries.approve({ email: s.pms[0]!.email, time_entry_id: res.id });
    expect(kicks).toBe(1);
  });
});

describe('instantAt', () => {
  const at = (date: string, time: string, zone: string) => new Date(instantAt(date, time, zone)).toISOString();

  it('is the instant the wall clock of the zone reads the date and time', () => {
    expect(at('2026-11-24', '09:00', 'Europe/Berlin')).toBe('2026-11-24T08:00:00.000Z');
    expect(at('2026-11-24', '00:00', 'Pacific/Kiritimati')).toBe('2026-11-23T10:00:00.000Z');
    expect(at('2026-11-24', '23:59', 'America/Los_Angeles')).toBe('2026-11-25T07:59:00.000Z');
  });

  it('a reading skipped by the clocks is the moment they jump past it; a doubled one its first time', () => {
    expect(at('2026-03-29', '02:30', 'Europe/Berlin')).toBe('2026-03-29T01:00:00.000Z');
    expect(at('2026-03-08', '02:30', 'America/New_York')).toBe('2026-03-08T07:00:00.000Z');
    expect(at('2026-10-25', '02:30', 'Europe/Berlin')).toBe('2026-10-25T00:30:00.000Z');
  });

  it('a doubled reading is its first time also where the clocks go back by other than an hour', () => {
    // Lord Howe goes back 30 minutes (02:00 +11 to 01:30 +10:30): 01:45 is first 14:45 UTC, again at 15:15.
    expect(at('2026-04-05', '01:45', 'Australia/Lord_Howe')).toBe('2026-04-04T14:45:00.000Z');
    // Troll goes back 2 hours (03:00 +02 to 01:00 +00): 01:15 is first 23:15 UTC the day before.
    expect(at('2026-10-25', '01:15', 'Antarctica/Troll')).toBe('2026-10-24T23:15:00.000Z');
  });

  it("agrees with a search of the zone's clock around every change of 2026", () => {
    const wall = (date: string, time: string) => Date.parse(`${date}T${time}:00Z`);
    const reading = (t: number, zone: string) => {
      const local = localDateTime(new Date(t), zone);
      return wall(local.date, local.time);
    };
    const quarter = 15 * 60_000;
    for (const zone of ['Australia/Lord_Howe', 'Antarctica/Troll', 'Europe/Berlin', 'America/St_Johns', 'Pacific/Chatham']) {
      // The days around each change of the zone's offset in 2026.
      const days = new Set<string>();
      for (let d = '2026-01-01'; d < '2027-01-01'; d = addDays(d, 1)) {
        const noon = wall(d, '12:00');
        if (reading(noon, zone) - noon !== reading(noon + 86_400_000, zone) - noon - 86_400_000) for (const k of [0, 1, 2]) days.add(addDays(d, k));
      }
      expect(days.size, zone).toBeGreaterThan(0);
      for (const date of days) {
        for (let m = 0; m < 1440; m += 15) {
          const time = `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
          const wanted = wall(date, time);
          // Offsets and their changes fall on quarter hours: the first quarter hour reading `wanted` or later.
          let expected = wanted - 15 * 3_600_000;
          while (reading(expected, zone) < wanted) expected += quarter;
          expect(at(date, time, zone), `${zone} ${date} ${time}`).toBe(new Date(expected).toISOString());
        }
      }
    }
  });
});

describe('nextDigestAt', () => {
  it("is this week's digest time until it is recorded, then next week's; never without a weekly project", () => {
    const zone = env.workspace('next-digest');
    zone.handle.db.update(workspace).set({ timeZone: 'Asia/Tokyo' }).where(eq(workspace.subdomain, 'next-digest')).run();
    const at = (iso: string) => scopeOf(env.services, zone.handle, new Date(iso));
    expect(nextDigestAt(at('2026-11-18T00:00:00Z'))).toBe(Number.POSITIVE_INFINITY);
    makeProjectSetup(zone.handle.db, { project: { notifyWeekly: true, notificationDay: 'friday', notificationTime: '09:00' } });
    // Friday 09:00 in Tokyo is Friday 00:00 UTC
    expect(new Date(nextDigestAt(at('2026-11-18T00:00:00Z'))).toISOString()).toBe('2026-11-20T00:00:00.000Z');
    const due = at('2026-11-20T00:00:00Z');
    expect(nextDigestAt(due)).toBe(due.now.getTime());
    queueDueDigests(due);
    expect(new Date(nextDigestAt(at('2026-11-20T00:01:00Z'))).toISOString()).toBe('2026-11-27T00:00:00.000Z');
  });
});
