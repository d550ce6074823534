import type { Db } from '../../db/index.ts';
import { clients, projects, tasks, teamMembers } from '../../db/schema/index.ts';
import { inIds } from '../queries.ts';
import { fullName } from '../team-members/records.ts';

/**
 * Names for the ids a report shows, read for exactly those ids (one query per kind; null reads
 * every row, for exports). An id whose row is gone keeps the id as its name rather than failing
 * the report.
 */

export interface Named {
  id: string;
  name: string;
}

export const clientNames = (db: Db, ids: readonly string[] | null): Map<string, Named> =>
  new Map(
    db
      .select({ id: clients.id, name: clients.name })
      .from(clients)
      .where(ids ? inIds(clients.id, ids) : undefined)
      .all()
      .map((r) => [r.id, r]),
  );

export const projectNames = (db: Db, ids: readonly string[] | null): Map<string, Named & { identifier: string }> =>
  new Map(
    db
      .select({ id: projects.id, name: projects.name, identifier: projects.identifier })
      .from(projects)
      .where(ids ? inIds(projects.id, ids) : undefined)
      .all()
      .map((r) => [r.id, r]),
  );

export const taskNames = (db: Db, ids: readonly string[] | null): Map<string, Named> =>
  new Map(
    db
      .select({ id: tasks.id, name: tasks.name })
      .from(tasks)
      .where(ids ? inIds(tasks.id, ids) : undefined)
      .all()
      .map((r) => [r.id, r]),
  );

export const peopleNames = (db: Db, ids: readonly string[] | null): Map<string, Named & { email: string }> =>
  new Map(
    db
      .select({ id: teamMembers.id, firstName: teamMembers.firstName, lastName: teamMembers.lastName, email: teamMembers.email })
      .from(teamMembers)
      .where(ids ? inIds(teamMembers.id, ids) : undefined)
      .all()
      .map((r) => [r.id, { id: r.id, name: fullName(r), email: r.email }]),
  );

/** The name of an id, or the id itself when its row is gone. */
export const nameOf = <T extends Named>(names: Map<string, T>, id: string): string => names.get(id)?.name ?? id;

/** Plain code-unit order of ids, days and currency codes (names use `localeCompare`). */
export const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
