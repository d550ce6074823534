import { and, asc, count, eq } from 'drizzle-orm';
import { projects, projectUsers, tasks, teamMembers, timeEntries } from '../db/schema/index.ts';
import { createTimeEntry } from '../domain/time-entries/create.ts';
import { createInput } from '../domain/time-entries/schemas.ts';
import { addDays, localDate } from '../domain/time/calendar.ts';
import { withActor, type Scope } from '../domain/scope.ts';
import { actingUserColumns } from '../domain/team-members/acting-user.ts';
import { AppError } from '../errors.ts';

const TARGET = 20;
const HOURS = ['1.5', '2', '0:45', '3', '1.25', '4', '0.5', '2:30'];
const NOTES = ['Kick-off call', 'Wireframes', 'Code review', 'Bug fixing', 'Client workshop', 'Deployment', 'Documentation', ''];

/**
 * About twenty entries over the last two weeks for the demo's project users, created through the
 * same domain function as the API (so rounding, approvals and mail behave as they would), with the
 * clock at `now`. Runs only while the workspace has no entries; entries the rules refuse (a locked
 * day, a full day) are skipped.
 */
export function seedTimeEntries(scope: Scope): void {
  const { db, now } = scope;
  if ((db.select({ n: count() }).from(timeEntries).get()?.n ?? 0) > 0) return;
  const pairs = db
    .select({
      projectId: projects.id,
      clientId: projects.clientId,
      user: actingUserColumns,
    })
    .from(projectUsers)
    .innerJoin(projects, eq(projects.id, projectUsers.projectId))
    .innerJoin(teamMembers, eq(teamMembers.id, projectUsers.userId))
    .where(and(eq(projects.status, 'active'), eq(teamMembers.active, true)))
    .orderBy(asc(projects.createdAt), asc(teamMembers.createdAt))
    .all();
  if (pairs.length === 0) return;
  const taskOf = new Map<string, string[]>();
  for (const t of db.select({ id: tasks.id, projectId: tasks.projectId }).from(tasks).where(eq(tasks.archived, false)).orderBy(asc(tasks.position)).all()) {
    taskOf.set(t.projectId, [...(taskOf.get(t.projectId) ?? []), t.id]);
  }
  for (let i = 0; i < TARGET; i++) {
    const pair = pairs[i % pairs.length]!;
    const projectTasks = taskOf.get(pair.projectId);
    if (!projectTasks || projectTasks.length === 0) continue;
    const input = createInput.parse({
      client_id: pair.clientId,
      project_id: pair.projectId,
      task_id: projectTasks[i % projectTasks.length],
      recorded_on: addDays(localDate(now, pair.user.timeZone), -((i * 3) % 14)),
      hours: HOURS[i % HOURS.length],
      notes: NOTES[i % NOTES.length],
    });
    try {
      createTimeEntry(withActor(scope, pair.user), input);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
    }
  }
}
