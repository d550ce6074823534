import { and, asc, count, eq, gte, isNotNull, lte } from 'drizzle-orm';
import { approvalDigests, projects, tasks, teamMembers, timeEntries } from '../../db/schema/index.ts';
import { enqueueMail } from '../../mail/outbox.ts';
import type { Scope } from '../scope.ts';
import { readIdentityIn } from '../workspace/identity.ts';
import { fullName } from '../team-members/records.ts';
import { addDays, dayOfWeekContaining, instantAt, localDateTime, mondayOf, type WeekDay } from '../time/calendar.ts';
import { digestMail, type PendingEntryLine } from './approval-mail.ts';
import { awaitingApproval, timeEntryStatements } from './queries.ts';

/** A digest lists this many entries at most; it says how many more there are. */
const DIGEST_MAX_LINES = 200;

/** `9:05` or `09:05` as `09:05`; null for anything that is not a time of day. */
function normalTime(value: string): string | null {
  const m = /^(\d{1,2}):(\d{2})$/.exec(value.trim());
  if (!m || Number(m[1]) > 23 || Number(m[2]) > 59) return null;
  return `${m[1]!.padStart(2, '0')}:${m[2]}`;
}

/**
 * The date of this week's (Monday to Sunday) digest of a project, once its day and time have come
 * in the workspace's time zone; null before then or when the schedule is not usable. "Come" is the
 * instant `instantAt` gives, as `nextDigestAt` uses: a time the clocks show twice is reached the
 * first time. (Comparing wall-clock readings instead, the second 02:15 of a night the clocks go
 * back read as before a missed 02:45, while `nextDigestAt` called it due: the job ran pass after
 * pass for an hour, and the digest went out an hour late.)
 */
export function dueDigestDate(now: Date, timeZone: string, day: WeekDay, time: string): string | null {
  const at = normalTime(time);
  if (!at) return null;
  const scheduled = dayOfWeekContaining(localDateTime(now, timeZone).date, day);
  return now.getTime() >= instantAt(scheduled, at, timeZone) ? scheduled : null;
}

/** Active projects with the weekly digest on and a day and time for it. */
const weeklyProjects = (db: Scope['db']) =>
  db
    .select({ id: projects.id, name: projects.name, replyTo: projects.replyTo, day: projects.notificationDay, time: projects.notificationTime })
    .from(projects)
    .where(and(eq(projects.notifyWeekly, true), eq(projects.status, 'active'), isNotNull(projects.notificationDay), isNotNull(projects.notificationTime)))
    .all();

/**
 * Projects whose digest for the Monday-to-Sunday week starting `monday` is recorded. A week is
 * recorded under the date its digest was due on, which moves with the project's digest day: the
 * week is what counts, so a day changed after the week's digest went out sends no second one.
 */
function digestedInWeek(db: Scope['db'], monday: string, projectId?: string): Set<string> {
  const inWeek = and(gte(approvalDigests.sentFor, monday), lte(approvalDigests.sentFor, addDays(monday, 6)));
  const rows = db
    .select({ projectId: approvalDigests.projectId })
    .from(approvalDigests)
    .where(projectId === undefined ? inWeek : and(eq(approvalDigests.projectId, projectId), inWeek))
    .all();
  return new Set(rows.map((r) => r.projectId));
}

/**
 * Records a project's digest for the week of `sentFor` and queues one message per project manager,
 * in one transaction; nothing when another pass recorded that week first. Returns messages queued.
 */
function sendDigest(scope: Scope, project: { id: string; name: string; replyTo: string | null }, sentFor: string): number {
  const st = scope.statements(timeEntryStatements);
  return scope.write((tx) => {
    // Checked again inside the write: the check before it was outside the transaction.
    if (digestedInWeek(tx, mondayOf(sentFor), project.id).size > 0) return 0;
    tx.insert(approvalDigests).values({ projectId: project.id, sentFor, createdAt: scope.now.toISOString() }).run();
    const pendingWhere = and(eq(timeEntries.projectId, project.id), awaitingApproval);
    const total = tx.select({ n: count() }).from(timeEntries).where(pendingWhere).get()?.n ?? 0;
    if (total === 0) return 0;
    const entries: PendingEntryLine[] = tx
      .select({
        id: timeEntries.id,
        recordedOn: timeEntries.recordedOn,
        seconds: timeEntries.seconds,
        notes: timeEntries.notes,
        firstName: teamMembers.firstName,
        lastName: teamMembers.lastName,
        userEmail: teamMembers.email,
        taskName: tasks.name,
      })
      .from(timeEntries)
      .innerJoin(teamMembers, eq(teamMembers.id, timeEntries.userId))
      .innerJoin(tasks, eq(tasks.id, timeEntries.taskId))
      .where(pendingWhere)
      .orderBy(asc(timeEntries.recordedOn), asc(teamMembers.email), asc(timeEntries.createdAt))
      .limit(DIGEST_MAX_LINES)
      .all()
      .map((r) => ({ ...r, userName: fullName(r) }));
    let n = 0;
    const locale = readIdentityIn(tx, scope.workspace.name).locale;
    // The day it goes out, which is later than the week's scheduled day when it is sent late (a
    // server started later in the week, a digest day moved to one already past).
    const asOf = localDateTime(scope.now, scope.workspace.timeZone).date;
    for (const manager of st.managers.all({ projectId: project.id })) {
      const mail = digestMail(project, manager, entries, total, asOf, locale);
      enqueueMail(scope, tx, { kind: 'approval_digest', to: { address: manager.email, name: fullName(manager) }, replyTo: project.replyTo, ...mail });
      n++;
    }
    return n;
  });
}

/**
 * One pass of the weekly approval digest for a workspace: every active project with the weekly
 * flag whose day and time have come this week, and that has no digest recorded for this week
 * (whatever day it was sent on), records one (so a restart, a second pass or a changed digest day
 * never sends twice) and queues one message per project manager listing the entries awaiting
 * approval, if there are any. A project whose week is recorded is passed over without a write.
 * Returns how many messages were queued.
 */
export function queueDueDigests(scope: Scope): number {
  const { db, now } = scope;
  const { timeZone } = scope.workspace;
  const digested = digestedInWeek(db, mondayOf(localDateTime(now, timeZone).date));
  let queued = 0;
  for (const project of weeklyProjects(db)) {
    if (!project.day || !project.time || digested.has(project.id)) continue;
    const sentFor = dueDigestDate(now, timeZone, project.day, project.time);
    if (sentFor) queued += sendDigest(scope, project, sentFor);
  }
  return queued;
}

/**
 * When the digest job next has work in this workspace (ms): now when a project's digest for this
 * week is due and not yet recorded, else the earliest coming digest time (next week's for a
 * project whose week is recorded, whatever its day is now); Infinity when no project has a weekly
 * digest.
 */
export function nextDigestAt(scope: Scope): number {
  const { db, now } = scope;
  const { timeZone } = scope.workspace;
  const today = localDateTime(now, timeZone).date;
  const digested = digestedInWeek(db, mondayOf(today));
  let next = Number.POSITIVE_INFINITY;
  for (const project of weeklyProjects(db)) {
    const at = project.day && project.time ? normalTime(project.time) : null;
    if (!at || !project.day) continue;
    const thisWeek = dayOfWeekContaining(today, project.day);
    const thisWeekAt = instantAt(thisWeek, at, timeZone);
    if (digested.has(project.id)) next = Math.min(next, instantAt(addDays(thisWeek, 7), at, timeZone));
    else if (thisWeekAt > now.getTime()) next = Math.min(next, thisWeekAt);
    else return now.getTime();
  }
  return next;
}
