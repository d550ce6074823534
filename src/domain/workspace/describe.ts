import BetterSqlite3 from 'better-sqlite3';
import { schemaState } from '../../workspaces/migrate.ts';

// Apart from provision.ts (which validates with zod), so listing workspaces loads no validation.

/** A summary of one workspace for `workspace list`. */
export interface WorkspaceSummary {
  subdomain: string;
  id: string;
  name: string;
  time_zone: string;
  team_members: number;
  created_at: string;
  /** `current`; `needs_migration` (the next open or `hourbook migrate` migrates it); `newer` (migrated by a newer hourbook). */
  schema: 'current' | 'needs_migration' | 'newer';
}

/** A file under a workspace's name that is no workspace one can serve, and why, in a few words. */
export interface WorkspaceProblem {
  subdomain: string;
  problem: string;
}

/**
 * Summarises one workspace file on a read-only connection of its own, never through the registry:
 * the registry's open migrates a file that is behind (and copies it first), and listing must change
 * nothing — a new version's `workspace list` would otherwise migrate files under an old server that
 * still serves them. A file SQLite cannot read, or one without its workspace row (left by a
 * `workspace create` of an earlier version that was killed half-way), is a problem, not skipped.
 */
export function describeWorkspace(file: string, subdomain: string): WorkspaceSummary | WorkspaceProblem {
  let sqlite: BetterSqlite3.Database | null = null;
  try {
    sqlite = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
    sqlite.pragma('busy_timeout = 5000');
    const state = schemaState(sqlite);
    const hasTable = (name: string) => sqlite!.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
    // Columns every schema version has had since the first, so a file that is behind reads too.
    const row = hasTable('workspace')
      ? (sqlite.prepare('SELECT id, name, time_zone, created_at FROM workspace LIMIT 1').get() as { id: string; name: string; time_zone: string; created_at: string } | undefined)
      : undefined;
    if (!row) return { subdomain, problem: 'has no workspace row (an interrupted "workspace create"?); delete it or restore it from a backup' };
    const members = hasTable('team_members') ? (sqlite.prepare('SELECT count(*) FROM team_members').pluck().get() as number) : 0;
    const schema = state.newer ? 'newer' : state.pending.length > 0 ? 'needs_migration' : 'current';
    return { subdomain, id: row.id, name: row.name, time_zone: row.time_zone, team_members: members, created_at: row.created_at, schema };
  } catch (err) {
    // "file is not a database", "database disk image is malformed": `hourbook check` tells more.
    return { subdomain, problem: `cannot be read: ${err instanceof Error ? err.message : String(err)}` };
  } finally {
    sqlite?.close();
  }
}
