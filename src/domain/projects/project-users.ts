import { randomUUID } from 'node:crypto';
import { eq, inArray } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '../../db/index.ts';
import { projectUsers, teamMembers } from '../../db/schema/index.ts';
import { conflict, invalidField } from '../../errors.ts';
import type { ActingUser } from '../team-members/acting-user.ts';
import type { WorkspaceHandle } from '../../workspaces/handle.ts';
import { requireProjectAdmin } from './access.ts';
import { Problems } from './problems.ts';
import { getProjectRow, projectStatements, toProjectUserRecord, type ProjectUserRow } from './records.ts';
import type { AddProjectUserInput, ProjectUserRecord, projectUserAttributes } from './schemas.ts';

type MemberState = { id: string; active: boolean };

/** Why a team member cannot be put on a project, or null when they can. */
function memberProblem(member: MemberState | undefined): string | null {
  if (!member) return 'is not a team member of this workspace';
  if (!member.active) return 'is an inactive team member; reactivate them first';
  return null;
}

const membersById = (db: Db, ids: readonly string[]): Map<string, MemberState> =>
  ids.length === 0
    ? new Map()
    : new Map(
        db
          .select({ id: teamMembers.id, active: teamMembers.active })
          .from(teamMembers)
          .where(inArray(teamMembers.id, [...ids]))
          .all()
          .map((m) => [m.id, m]),
      );

/**
 * The project users a new project starts with: each listed user must be an active team member and
 * appear once; the acting user joins as project manager unless listed (then their listed role is
 * kept). A user without `hourly_rate` gets the project's rate.
 */
export function planInitialProjectUsers(opts: {
  db: Db;
  projectId: string;
  attributes: readonly z.output<typeof projectUserAttributes>[];
  actor: ActingUser;
  currency: string;
  defaultRateMinor: number;
  now: string;
  problems: Problems;
}): ProjectUserRow[] {
  const { attributes, currency, now, problems } = opts;
  const members = membersById(opts.db, [...new Set(attributes.map((a) => a.user_id))]);
  const rows: ProjectUserRow[] = [];
  const seen = new Set<string>();
  attributes.forEach((attrs, i) => {
    const path = `project.project_users_attributes.${i}`;
    const problem = memberProblem(members.get(attrs.user_id));
    if (problem) problems.add(`${path}.user_id`, problem);
    else if (seen.has(attrs.user_id)) problems.add(`${path}.user_id`, 'lists the same user twice');
    seen.add(attrs.user_id);
    const rate = attrs.hourly_rate === undefined ? opts.defaultRateMinor : problems.minor(`${path}.hourly_rate`, attrs.hourly_rate, currency);
    rows.push({
      id: randomUUID(),
      projectId: opts.projectId,
      userId: attrs.user_id,
      role: attrs.role,
      hourlyRateMinor: rate ?? 0,
      approvalType: attrs.approval_type,
      createdAt: now,
      updatedAt: now,
    });
  });
  if (!seen.has(opts.actor.id)) {
    rows.push({
      id: randomUUID(),
      projectId: opts.projectId,
      userId: opts.actor.id,
      role: 'project_manager',
      hourlyRateMinor: opts.defaultRateMinor,
      approvalType: 'manual_approval',
      createdAt: now,
      updatedAt: now,
    });
  }
  return rows;
}

/** Endpoints 4 and 5: puts a team member on a project. */
export function addProjectUser(handle: WorkspaceHandle, actor: ActingUser, input: AddProjectUserInput, now: Date): ProjectUserRecord {
  return handle.db.transaction((tx) => {
    const project = getProjectRow(handle, input.project_id);
    requireProjectAdmin(handle, actor, project.id, 'add users to this project');
    const { user_id: userId } = input.project_user;
    const member = tx.select().from(teamMembers).where(eq(teamMembers.id, userId)).get();
    const problem = memberProblem(member);
    if (problem || !member) throw invalidField('project_user.user_id', problem ?? 'is not a team member of this workspace');
    if (handle.memo(projectStatements).roleOnProject.get({ projectId: project.id, userId })) {
      throw conflict('project_user_exists', `${member.email} is already a user of this project`);
    }
    const problems = new Problems();
    const rate =
      input.project_user.hourly_rate === undefined
        ? project.hourlyRateMinor
        : problems.minor('project_user.hourly_rate', input.project_user.hourly_rate, project.currency);
    problems.throwIfAny();
    const at = now.toISOString();
    const row: ProjectUserRow = {
      id: randomUUID(),
      projectId: project.id,
      userId,
      role: input.project_user.role,
      hourlyRateMinor: rate ?? 0,
      approvalType: input.project_user.approval_type,
      createdAt: at,
      updatedAt: at,
    };
    tx.insert(projectUsers).values(row).run();
    return toProjectUserRecord(
      { ...row, firstName: member.firstName, lastName: member.lastName, memberEmail: member.email, timeZone: member.timeZone, active: member.active },
      project.currency,
    );
  });
}

/** Endpoint 6: every user of a project, in the order they joined. */
export function listProjectUsers(handle: WorkspaceHandle, projectId: string): ProjectUserRecord[] {
  const project = getProjectRow(handle, projectId);
  return handle
    .memo(projectStatements)
    .usersOfProject.all({ projectId: project.id })
    .map((row) => toProjectUserRecord(row, project.currency));
}
