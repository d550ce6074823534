import type BetterSqlite3 from 'better-sqlite3';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import type * as schema from './schema/index.ts';

export * as schema from './schema/index.ts';

/** A workspace's database, and the same type inside `db.transaction((tx) => ...)`. */
export type Database = BetterSQLite3Database<typeof schema>;
export type Transaction = Parameters<Parameters<Database['transaction']>[0]>[0];
/** Either; domain functions that only read or write take this. */
export type Db = Database | Transaction;

/**
 * The better-sqlite3 connection under a workspace's drizzle database. Hot paths that run one
 * statement per row (invoice lines, report streams) prepare on it directly: drizzle's per-call
 * placeholder filling and row mapping cost several times the statement itself there.
 */
export function connectionOf(db: Database): BetterSqlite3.Database {
  const client = (db as Database & { $client?: BetterSqlite3.Database }).$client;
  if (!client) throw new Error('the workspace database has no better-sqlite3 connection');
  return client;
}
