import { setTimeout as sleep } from 'node:timers/promises';
import BetterSqlite3 from 'better-sqlite3';
import type { Logger } from 'pino';
import { applyPending, backupBeforeMigrating, isCurrent } from './migrate.ts';
import type { WorkspaceRegistry } from './registry.ts';

/** How long the pass waits before trying a file again whose write lock another process holds. */
const BUSY_RETRY_MS = 250;

const isBusy = (err: unknown) => err instanceof Error && 'code' in err && (err.code === 'SQLITE_BUSY' || err.code === 'SQLITE_LOCKED');

/** What one file's upgrade has done so far; `backup` is set once the pre-migration copy exists. */
interface Upgrade {
  backup?: string | null;
}

/**
 * Brings one file up to date from its own connection; true when it had to be migrated. The
 * connection never waits for a lock (no busy_timeout: waiting would block the whole event loop);
 * a locked file throws SQLITE_BUSY and the caller tries again later, keeping `upgrade`, so the
 * pre-migration backup is taken only once.
 */
function tryUpgrade(file: string, upgrade: Upgrade): boolean {
  const sqlite = new BetterSqlite3(file, { fileMustExist: true, timeout: 0 });
  try {
    if (isCurrent(sqlite)) return false;
    if (upgrade.backup === undefined) upgrade.backup = backupBeforeMigrating(sqlite, file);
    applyPending(sqlite);
    return true;
  } finally {
    sqlite.close();
  }
}

/**
 * The start-up pass of `serve`: every workspace file is checked against this version's migrations
 * and migrated (after a backup) when behind, one file at a time, yielding to requests in between.
 * Requests are served meanwhile (a workspace opened by one is migrated on open, as always); the
 * server reports not-ready until the pass ends. Resolves with the number of files migrated.
 */
export async function migrateAllAtStart(registry: WorkspaceRegistry, logger: Logger, progress: (left: number) => void): Promise<number> {
  const all = registry.list();
  let migrated = 0;
  for (const [i, subdomain] of all.entries()) {
    progress(all.length - i);
    await new Promise((r) => setImmediate(r));
    if (registry.gate.isHeld(subdomain)) continue;
    const upgrade: Upgrade = {};
    for (let attempt = 0; ; attempt++) {
      try {
        if (tryUpgrade(registry.fileFor(subdomain), upgrade)) {
          migrated++;
          logger.info({ workspace: subdomain, backup: upgrade.backup }, 'migrated workspace');
        }
        break;
      } catch (err) {
        if (!isBusy(err)) {
          logger.error({ err, workspace: subdomain }, 'could not migrate workspace; it is migrated when first opened');
          break;
        }
        if (attempt % 20 === 0) logger.warn({ workspace: subdomain }, 'workspace is locked by another process; waiting to migrate it');
        await sleep(BUSY_RETRY_MS);
      }
    }
  }
  progress(0);
  return migrated;
}
