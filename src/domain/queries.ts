import { and, sql, type SQL } from 'drizzle-orm';
import type { AnySQLiteColumn, SQLiteInsertValue, SQLiteSelect, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Db } from '../db/index.ts';
import { AppError } from '../errors.ts';
import { afterCursor, keysetOrder, pageOf, type CursorPosition, type KeysetColumns, type KeysetDirection } from './pagination.ts';

/**
 * `column IN (the given ids)` as one bound JSON parameter, however many ids there are. The one way
 * the domain asks for "rows by many ids": no chunking, no statement cache blown up by list lengths,
 * and SQLite still probes the column's index for each value.
 */
export const inIds = (column: AnySQLiteColumn, ids: readonly string[]): SQL =>
  sql`${column} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`;

/** The same condition for a prepared statement: run it with `{ [name]: JSON.stringify(ids) }`. */
export const inIdsPlaceholder = (column: AnySQLiteColumn, name: string): SQL => sql`${column} IN (SELECT value FROM json_each(${sql.placeholder(name)}))`;

/** Rows per multi-row INSERT: far below SQLite's limit of bound values per statement. */
const INSERT_ROWS = 200;

/** Inserts any number of rows in statements of bounded size (inside the caller's transaction). */
export function insertMany<T extends SQLiteTable>(db: Db, table: T, rows: readonly SQLiteInsertValue<T>[]): void {
  for (let i = 0; i < rows.length; i += INSERT_ROWS) {
    db.insert(table)
      .values(rows.slice(i, i + INSERT_ROWS) as SQLiteInsertValue<T>[])
      .run();
  }
}

interface PageInput {
  cursor?: string | undefined;
  limit: number;
  /** Default `asc`: creation order. */
  direction?: KeysetDirection;
}

interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/**
 * The one keyset listing of every tRPC list: `query` is the select with its joins (from
 * `.$dynamic()`), `filters` its conditions; pages run in creation order (or its reverse) after the cursor.
 */
export function keysetPage<Q extends SQLiteSelect>(
  query: Q,
  keyset: KeysetColumns,
  filters: (SQL | undefined)[],
  page: PageInput,
): Page<ReturnType<Q['all']> extends (infer R)[] ? R : never> {
  type Row = ReturnType<Q['all']> extends (infer R)[] ? R : never;
  const rows = query
    .where(and(...filters, afterCursor(keyset, page.cursor, page.direction)))
    .orderBy(...keysetOrder(keyset, page.direction))
    .limit(page.limit + 1)
    .all() as (Row & CursorPosition)[];
  return pageOf(rows, page.limit);
}

/** Maps the items of a page, keeping its cursor. */
export const mapPage = <T, U>(page: Page<T>, map: (items: T[]) => U[]): Page<U> => ({ items: map(page.items), next_cursor: page.next_cursor });

/**
 * Whether a write failed on the UNIQUE constraint of `target` (`"invoices.number"`, or the name of
 * an expression index such as `recipients_client_email_live`): the index is the last word when two
 * writers pass the same check at once.
 */
export function isUniqueViolation(err: unknown, target: string): boolean {
  if (!(err instanceof Error) || !('code' in err)) return false;
  const code = (err as { code?: unknown }).code;
  return (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') && err.message.includes(target);
}

/** Ids shown in a message; the full list is in `missing_ids`. */
const MISSING_IDS_IN_MESSAGE = 5;

/**
 * 404 for a request naming ids that are not rows of this workspace: nothing was changed, the
 * message names the first few and `missing_ids` all of them.
 */
export function missingIdsError(resource: string, missing: readonly string[]): AppError {
  const shown = missing.slice(0, MISSING_IDS_IN_MESSAGE).join(', ');
  const more = missing.length > MISSING_IDS_IN_MESSAGE ? ` and ${missing.length - MISSING_IDS_IN_MESSAGE} more` : '';
  return new AppError('not_found', `${resource}_not_found`, `No ${resource.replaceAll('_', ' ')} with id ${shown}${more} in this workspace; nothing was changed`, {
    extra: { missing_ids: [...missing] },
  });
}

/** The ids of `wanted` not among `found`, in request order. */
export const missingOf = (wanted: readonly string[], found: Iterable<string>): string[] => {
  const have = new Set(found);
  return wanted.filter((id) => !have.has(id));
};

/** Rows grouped by a key, each group in the rows' order (Map.groupBy needs Node 21). */
export function groupBy<T, K>(rows: Iterable<T>, key: (row: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const row of rows) {
    const k = key(row);
    const list = groups.get(k);
    if (list) list.push(row);
    else groups.set(k, [row]);
  }
  return groups;
}
