import { randomUUID } from 'node:crypto';
import type * as z from 'zod';
import { AppError } from '../../errors.ts';
import type { Db } from '../../db/index.ts';
import { teamMembers } from '../../db/schema/index.ts';
import { isAdmin, requireAdmin } from '../access.ts';
import type { Scope } from '../scope.ts';
import { assertEmailFree, assertRoleExists } from './queries.ts';
import { toTeamMemberRecord, type TeamMemberRow } from './records.ts';
import type { createInput, createManyInput, createManyOutput, TeamMemberRecord } from './schemas.ts';

type NewTeamMember = z.output<typeof createInput>;

/**
 * Inserts a team member inside the caller's transaction. Workspace creation uses it for the Owner,
 * before the workspace has any other member to act.
 */
export function insertTeamMember(tx: Db, input: NewTeamMember, defaultTimeZone: string, now: Date): TeamMemberRecord {
  assertEmailFree(tx, input.email);
  assertRoleExists(tx, input.organization_role);
  const at = now.toISOString();
  const row: TeamMemberRow = {
    id: randomUUID(),
    email: input.email,
    firstName: input.first_name,
    lastName: input.last_name,
    timeZone: input.time_zone ?? defaultTimeZone,
    profileImageUrl: '',
    active: true,
    organizationRole: input.organization_role,
    createdAt: at,
    updatedAt: at,
  };
  tx.insert(teamMembers).values(row).run();
  return toTeamMemberRecord(row);
}

/** Adds a team member (the command line's `member add`); the time zone defaults to the workspace's. */
export function createTeamMember(scope: Scope, input: NewTeamMember): TeamMemberRecord {
  requireAdmin(scope, 'add team members');
  return scope.write((tx) => insertTeamMember(tx, input, scope.workspace.timeZone, scope.now));
}

/** An error about one member of a batch, with its place in the batch in the path and the message. */
function forMember(err: unknown, index: number): unknown {
  if (!(err instanceof AppError)) return err;
  const details = (err.details ?? [{ path: 'email', message: err.message }]).map((d) => ({ path: `members.${index}.${d.path}`, message: d.message }));
  return new AppError(err.kind, err.code, `members.${index}: ${err.message}`, { details, extra: err.extra });
}

const ADD = 'add team members';

/**
 * Whether the members added include an Owner or Admin, which from a session takes the adder's
 * password (src/trpc/step-up.ts): a sign-in link sent to one (`accounts.sendLink`) would make
 * whoever reads its address an Admin, as an invitation would. 403 first for a Member.
 */
export function createNeedsPassword(scope: Scope, input: z.output<typeof createManyInput>): boolean {
  requireAdmin(scope, ADD);
  return input.members.some((m) => isAdmin({ organizationRole: m.organization_role }));
}

/**
 * Adds many team members at once (`teamMembers.create`, `hourbook member import`): all of them or,
 * when one is refused, none, with the refused one's place in the error.
 */
export function createTeamMembers(scope: Scope, input: z.output<typeof createManyInput>): z.output<typeof createManyOutput> {
  requireAdmin(scope, ADD);
  return scope.write((tx) => ({
    team_members: input.members.map((member, i) => {
      try {
        return insertTeamMember(tx, member, scope.workspace.timeZone, scope.now);
      } catch (err) {
        throw forMember(err, i);
      }
    }),
  }));
}
