import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import type * as schema from './schema/index.ts';

export * as schema from './schema/index.ts';

/** A workspace's database, and the same type inside `db.transaction((tx) => ...)`. */
export type Database = BetterSQLite3Database<typeof schema>;
export type Transaction = Parameters<Parameters<Database['transaction']>[0]>[0];
/** Either; domain functions that only read or write take this. */
export type Db = Database | Transaction;
