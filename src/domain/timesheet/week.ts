import { and, asc, eq, gte, inArray, lte, or } from 'drizzle-orm';
import type * as z from 'zod';
import { checklistItems, clients, projects, projectUsers, tasks, teamMembers, timeEntries, timers } from '../../db/schema/index.ts';
import { forbidden, invalidField, notFound } from '../../errors.ts';
import { actsAsAdmin } from '../access.ts';
import { managedProjectIds } from '../projects/access.ts';
import { groupBy, inIds } from '../queries.ts';
import type { Scope } from '../scope.ts';
import { rowWithEmailColumns, toRecords } from '../time-entries/records.ts';
import { lockStateOf } from '../time/autolock.ts';
import { addDays, localDate, mondayOf } from '../time/calendar.ts';
import type { weekInput, WeekOutput } from './schemas.ts';

type Person = WeekOutput['person'];

function personOf(scope: Scope, userId: string | undefined): Person {
  const id = userId ?? scope.actor?.id;
  if (!id) throw invalidField('user_id', 'is required when the call names no person');
  const row = scope.db
    .select({ id: teamMembers.id, email: teamMembers.email, first_name: teamMembers.firstName, last_name: teamMembers.lastName, time_zone: teamMembers.timeZone })
    .from(teamMembers)
    .where(eq(teamMembers.id, id))
    .get();
  if (!row) throw notFound('team_member', `No team member with id ${id}`);
  return row;
}

/**
 * The projects of the person's timesheet the caller may see: all for the person themselves, an
 * Owner or an Admin; for a project manager, the projects they manage. Null means all.
 */
function visibleProjects(scope: Scope, person: Person): Set<string> | null {
  if (actsAsAdmin(scope) || scope.actor?.id === person.id) return null;
  const managed = new Set(managedProjectIds(scope, scope.actor!.id).all().map((r) => r.id));
  const shared = scope.db
    .select({ id: projectUsers.projectId })
    .from(projectUsers)
    .where(eq(projectUsers.userId, person.id))
    .all()
    .filter((r) => managed.has(r.id));
  if (shared.length === 0) throw forbidden("Only the person, an Owner, an Admin or a manager of one of their projects may see this timesheet");
  return managed;
}

function projectsOf(scope: Scope, person: Person, ids: string[], days: string[], usedTasks: Set<string>): WeekOutput['projects'] {
  const { db } = scope;
  const rows = db
    .select({ project: projects, clientName: clients.name, clientStatus: clients.status })
    .from(projects)
    .innerJoin(clients, eq(clients.id, projects.clientId))
    .where(inIds(projects.id, ids))
    .orderBy(asc(clients.name), asc(projects.name))
    .all();
  const taskRows = db.select().from(tasks).where(inIds(tasks.projectId, ids)).orderBy(asc(tasks.position), asc(tasks.id)).all();
  const items = groupBy(
    db.select().from(checklistItems).where(inIds(checklistItems.taskId, taskRows.map((t) => t.id))).orderBy(asc(checklistItems.position)).all(),
    (i) => i.taskId,
  );
  const tasksOf = groupBy(taskRows, (t) => t.projectId);
  const memberships = new Map(db.select().from(projectUsers).where(and(eq(projectUsers.userId, person.id), inIds(projectUsers.projectId, ids))).all().map((m) => [m.projectId, m]));
  const actorRoles = scope.actor
    ? new Map(db.select().from(projectUsers).where(and(eq(projectUsers.userId, scope.actor.id), inIds(projectUsers.projectId, ids))).all().map((m) => [m.projectId, m.role]))
    : new Map<string, string>();
  return rows.map(({ project, clientName, clientStatus }) => {
    const settings = { enabled: project.autolockEnabled, endOfDay: project.lockEndOfDay, endOfWeek: project.lockEndOfWeek, endOfMonth: project.lockEndOfMonth };
    return {
      id: project.id,
      name: project.name,
      client_id: project.clientId,
      client_name: clientName,
      open: project.status === 'active' && clientStatus === 'active' && memberships.has(project.id),
      enable_approvals: project.enableApprovals,
      locked_days: days.filter((day) => lockStateOf(day, settings, scope.now, person.time_zone).locked),
      may_override: actsAsAdmin(scope) || actorRoles.get(project.id) === 'project_manager',
      tasks: (tasksOf.get(project.id) ?? [])
        // Archived tasks only where this week's entries still name them.
        .filter((t) => !t.archived || usedTasks.has(t.id))
        .map((t) => ({ id: t.id, name: t.name, billable: t.billable, archived: t.archived, checklist_items: (items.get(t.id) ?? []).map((i) => ({ id: i.id, description: i.description })) })),
    };
  });
}

/** Whose timesheets the caller may open: everyone active for an Owner/Admin, else themselves and the users of projects they manage. */
function peopleFor(scope: Scope, person: Person): WeekOutput['people'] {
  const columns = { id: teamMembers.id, email: teamMembers.email, first_name: teamMembers.firstName, last_name: teamMembers.lastName };
  const base = scope.db.select(columns).from(teamMembers);
  const rows = actsAsAdmin(scope)
    ? base.where(eq(teamMembers.active, true)).orderBy(asc(teamMembers.firstName), asc(teamMembers.lastName)).all()
    : base
        .where(
          or(
            eq(teamMembers.id, scope.actor!.id),
            inArray(teamMembers.id, scope.db.select({ id: projectUsers.userId }).from(projectUsers).where(inArray(projectUsers.projectId, managedProjectIds(scope, scope.actor!.id)))),
          ),
        )
        .orderBy(asc(teamMembers.firstName), asc(teamMembers.lastName))
        .all();
  const self = rows.find((r) => r.id === (scope.actor?.id ?? person.id));
  return self ? [self, ...rows.filter((r) => r !== self)] : rows;
}

/**
 * tRPC `timesheet.week`: one person's week in one call — their projects with tasks, checklist items
 * and which days autolock has closed, the week's entries, the running timer and whom else the
 * caller may look at.
 */
export function timesheetWeek(scope: Scope, input: z.output<typeof weekInput>): WeekOutput {
  const person = personOf(scope, input.user_id);
  const visible = visibleProjects(scope, person);
  const today = localDate(scope.now, person.time_zone);
  const weekStart = mondayOf(input.week_of ?? today);
  const days = Array.from({ length: 7 }, (_, i) => addDays(weekStart, i));
  const { db } = scope;

  const entryRows = db
    .select(rowWithEmailColumns)
    .from(timeEntries)
    .innerJoin(teamMembers, eq(teamMembers.id, timeEntries.userId))
    .where(and(eq(timeEntries.userId, person.id), gte(timeEntries.recordedOn, days[0]!), lte(timeEntries.recordedOn, days[6]!)))
    .orderBy(asc(timeEntries.recordedOn), asc(timeEntries.createdAt))
    .all()
    .filter((e) => !visible || visible.has(e.projectId));
  const memberOf = db
    .select({ id: projectUsers.projectId })
    .from(projectUsers)
    .where(eq(projectUsers.userId, person.id))
    .all()
    .map((r) => r.id)
    .filter((id) => !visible || visible.has(id));
  const projectIds = [...new Set([...memberOf, ...entryRows.map((e) => e.projectId)])];
  const timer = scope.actor?.id === person.id ? db.select().from(timers).where(eq(timers.memberId, person.id)).get() : undefined;

  return {
    person,
    week_start: weekStart,
    days,
    today,
    projects: projectsOf(scope, person, projectIds, days, new Set(entryRows.map((e) => e.taskId))).filter((p) => p.open || entryRows.some((e) => e.projectId === p.id)),
    entries: toRecords(db, entryRows),
    timer: timer ? { client_id: timer.clientId, project_id: timer.projectId, task_id: timer.taskId, notes: timer.notes, started_at: timer.startedAt } : null,
    people: peopleFor(scope, person),
  };
}
