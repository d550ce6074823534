import { mkdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { readMigrationFiles, type MigrationMeta } from 'drizzle-orm/migrator';
import { PACKAGE_ROOT } from '../package.ts';

export const MIGRATIONS_FOLDER = join(PACKAGE_ROOT, 'db', 'migrations');

/**
 * The table drizzle-kit's migrator keeps, one row per applied migration with the migration's
 * `when` as `created_at`. hourbook applies migrations itself (below) but keeps this exact table,
 * so a file migrated by either is understood by both.
 */
const MIGRATIONS_TABLE = '__drizzle_migrations';

export interface Migration {
  tag: string;
  /** drizzle-kit's timestamp of the migration; applied migrations are recorded by it. */
  when: number;
}

let journal: Migration[] | undefined;

/** The migrations this version knows, oldest first: db/migrations/meta/_journal.json, read once per process. */
export function knownMigrations(): Migration[] {
  journal ??= (JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as { entries: Migration[] }).entries.map(
    ({ tag, when }) => ({ tag, when }),
  );
  return journal;
}

let files: MigrationMeta[] | undefined;
/** The SQL of every migration: read (and hashed, as drizzle-kit records it) only when one is due. */
const migrationFiles = () => (files ??= readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER }));

export interface SchemaState {
  /** The tag of the newest applied migration this version knows; null for a file never migrated. */
  version: string | null;
  /** Known migrations the file has not had yet, oldest first. */
  pending: Migration[];
  /** The file carries a migration newer than any this version knows (it was upgraded by a newer hourbook). */
  newer: boolean;
}

/** The `when` of the newest migration applied to the file, or null when none ever was. */
function lastApplied(sqlite: BetterSqlite3.Database): number | null {
  const table = sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(MIGRATIONS_TABLE);
  if (!table) return null;
  const row = sqlite.prepare(`SELECT created_at AS at FROM ${MIGRATIONS_TABLE} ORDER BY created_at DESC LIMIT 1`).get() as { at: number | string } | undefined;
  return row ? Number(row.at) : null;
}

/** Where a file stands against this version's migrations: two small reads, no file hashing. */
export function schemaState(sqlite: BetterSqlite3.Database): SchemaState {
  const last = lastApplied(sqlite);
  const known = knownMigrations();
  const pending = known.filter((m) => last === null || m.when > last);
  const applied = known.filter((m) => last !== null && m.when <= last);
  const newest = known.at(-1)?.when ?? 0;
  return { version: applied.at(-1)?.tag ?? null, pending, newer: last !== null && last > newest };
}

/** True when the file has every known migration: the check run on every open. */
export function isCurrent(sqlite: BetterSqlite3.Database): boolean {
  const newest = knownMigrations().at(-1)?.when;
  const last = lastApplied(sqlite);
  return newest === undefined || (last !== null && last >= newest);
}

/**
 * Applies the pending migrations in one IMMEDIATE transaction. The applied set is read again
 * inside it, so two processes opening an old file at once never apply a migration twice: the
 * second waits for the first (busy_timeout) and then finds nothing left to do.
 */
export function applyPending(sqlite: BetterSqlite3.Database): void {
  const pending = migrationFiles();
  sqlite.exec('BEGIN IMMEDIATE');
  try {
    sqlite.exec(`CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric)`);
    const last = lastApplied(sqlite);
    const record = sqlite.prepare(`INSERT INTO ${MIGRATIONS_TABLE} (hash, created_at) VALUES (?, ?)`);
    for (const migration of pending) {
      if (last !== null && migration.folderMillis <= last) continue;
      for (const statement of migration.sql) if (statement.trim()) sqlite.exec(statement);
      record.run(migration.hash, migration.folderMillis);
    }
    sqlite.exec('COMMIT');
  } catch (err) {
    if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
    throw err;
  }
}

/** `DATA_DIR/backups/pre-migrate/`: where a file is copied before a migration changes it. */
export const preMigrationDir = (dataDir: string) => join(dataDir, 'backups', 'pre-migrate');

const stamp = (at: Date) => at.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');

/**
 * Copies a file that already holds data, consistently (`VACUUM INTO`), to
 * `DATA_DIR/backups/pre-migrate/<subdomain>-<from>-<UTC time>.sqlite` before a migration changes
 * it, so an upgrade that goes wrong can be undone with `hourbook restore`. Null for a new file.
 */
export function backupBeforeMigrating(sqlite: BetterSqlite3.Database, file: string, now = new Date()): string | null {
  const state = schemaState(sqlite);
  if (state.version === null || state.pending.length === 0) return null;
  const dir = preMigrationDir(dirname(file));
  mkdirSync(dir, { recursive: true });
  const backup = join(dir, `${basename(file, '.sqlite')}-${state.version}-${stamp(now)}.sqlite`);
  sqlite.prepare('VACUUM INTO ?').run(backup);
  return backup;
}

/**
 * Brings a workspace file up to this version's schema when it is behind, after a pre-migration
 * backup; a no-op (two small reads) when it is current, which is every open but the first after
 * an upgrade. Returns the backup's path, if one was taken.
 */
export function migrateIfBehind(sqlite: BetterSqlite3.Database, file: string, now = new Date()): string | null {
  if (isCurrent(sqlite)) return null;
  const backup = backupBeforeMigrating(sqlite, file, now);
  applyPending(sqlite);
  return backup;
}
