import { randomUUID } from 'node:crypto';
import type * as z from 'zod';
import type { Db } from '../../db/index.ts';
import { teamMembers } from '../../db/schema/index.ts';
import { inIds } from '../queries.ts';
import type { ActingUser } from '../team-members/acting-user.ts';
import type { Problems } from './problems.ts';
import type { ProjectUserRow } from './records.ts';
import type { projectUserAttributes } from './schemas.ts';

type MemberState = { id: string; active: boolean };

/** Why a team member cannot be put on a project, or null when they can. */
export function memberProblem(member: MemberState | undefined): string | null {
  if (!member) return 'is not a team member of this workspace';
  if (!member.active) return 'is an inactive team member; reactivate them first';
  return null;
}

const membersById = (db: Db, ids: readonly string[]): Map<string, MemberState> =>
  new Map(
    db
      .select({ id: teamMembers.id, active: teamMembers.active })
      .from(teamMembers)
      .where(inIds(teamMembers.id, ids))
      .all()
      .map((m) => [m.id, m]),
  );

/**
 * The project users a new project starts with: each listed user must be an active team member and
 * appear once; the acting person joins as project manager unless listed (then their listed role is
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
