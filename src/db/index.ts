import type BetterSqlite3 from 'better-sqlite3';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';

export * as schema from './schema/index.ts';

/** A workspace's database. */
export type Database = BetterSQLite3Database;
/**
 * The database as `scope.write` hands it to its work: the same connection, inside the write
 * transaction (src/domain/scope.ts runs it as a better-sqlite3 transaction, not a drizzle one).
 */
export type Transaction = Database;
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
