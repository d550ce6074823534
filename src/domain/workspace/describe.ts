import { count } from 'drizzle-orm';
import { teamMembers, workspace } from '../../db/schema/index.ts';
import type { WorkspaceRegistry } from '../../workspaces/registry.ts';

// Apart from provision.ts (which validates with zod), so listing workspaces loads no validation.
/** A summary of one workspace for `workspace list`. */
export function describeWorkspace(registry: WorkspaceRegistry, subdomain: string) {
  const handle = registry.get(subdomain);
  if (!handle) return null;
  const row = handle.db.select().from(workspace).get();
  const members = handle.db.select({ n: count() }).from(teamMembers).get()?.n ?? 0;
  if (!row) return null;
  return { subdomain, id: row.id, name: row.name, time_zone: row.timeZone, team_members: members, created_at: row.createdAt };
}
