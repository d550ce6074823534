import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import type { Database } from '../db/index.ts';

export const MIGRATIONS_FOLDER = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'db', 'migrations');

/** Brings a workspace file up to the current schema; a no-op when it already is. */
export function applyMigrations(db: Database): void {
  migrate(db, { migrationsFolder: MIGRATIONS_FOLDER });
}
