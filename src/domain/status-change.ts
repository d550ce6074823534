import { sql } from 'drizzle-orm';
import type { AnySQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Db } from '../db/index.ts';
import { inIds, missingIdsError, missingOf } from './queries.ts';

/** A table whose rows have an `id`, a `status` and an `updated_at` (clients, projects). */
type StatusTable = SQLiteTable & { id: AnySQLiteColumn; status: AnySQLiteColumn };

interface StatusChange<S extends string> {
  resource: string;
  table: StatusTable;
  /** Every id must be a row of this workspace, else 404 with `missing_ids` and nothing moves. */
  ids: readonly string[];
  to: S;
  /** Only rows currently in this status move (the projects' `filter.status`). */
  from?: S | undefined;
  at: string;
  /** Runs once every id is known to exist, before anything moves (e.g. a manager check). */
  authorize?: (ids: string[]) => void;
}

/**
 * The one bulk status change (clients' and projects' `update_status`). Rows already in the target
 * status are not touched, so their `updated_at` keeps saying when they last really changed. Returns
 * the ids of the rows that moved.
 */
export function changeStatus<S extends string>(tx: Db, change: StatusChange<S>): string[] {
  const ids = [...new Set(change.ids)];
  const { table } = change;
  const found = tx.all<{ id: string }>(sql`SELECT ${table.id} AS id FROM ${table} WHERE ${inIds(table.id, ids)}`);
  const missing = missingOf(
    ids,
    found.map((r) => r.id),
  );
  if (missing.length > 0) throw missingIdsError(change.resource, missing);
  change.authorize?.(ids);
  const onlyFrom = change.from === undefined ? sql`` : sql` AND ${table.status} = ${change.from}`;
  return tx
    .all<{ id: string }>(
      sql`UPDATE ${table} SET "status" = ${change.to}, "updated_at" = ${change.at}
           WHERE ${inIds(table.id, ids)} AND ${table.status} <> ${change.to}${onlyFrom} RETURNING "id"`,
    )
    .map((r) => r.id);
}
