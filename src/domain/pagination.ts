import { and, asc, desc, eq, gt, lt, or, type SQL } from 'drizzle-orm';
import type { AnySQLiteColumn } from 'drizzle-orm/sqlite-core';
import * as z from 'zod';
import { invalidField } from '../errors.ts';

/**
 * Keyset pagination for the tRPC list procedures: rows are ordered by (created_at, id), oldest
 * first unless a list offers newest first, and the cursor is the last row's pair, encoded opaquely.
 * Stable under inserts, no OFFSET scans; the (created_at, id) index serves both directions.
 */
export const cursorInput = {
  cursor: z.string().max(200).optional(),
  limit: z.number().int().min(1).max(200).default(50),
};

export interface CursorPosition {
  createdAt: string;
  id: string;
}

function decodeCursor(cursor: string | undefined): CursorPosition | null {
  if (!cursor) return null;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(parsed) && parsed.length === 2 && parsed.every((p) => typeof p === 'string')) {
      return { createdAt: parsed[0] as string, id: parsed[1] as string };
    }
  } catch {
    // fall through to the error below
  }
  throw invalidField('cursor', 'is not a cursor returned by this list');
}

function encodeCursor(row: CursorPosition): string {
  return Buffer.from(JSON.stringify([row.createdAt, row.id])).toString('base64url');
}

/** Given `limit + 1` rows, the page and the cursor of the next page (null on the last page). */
export function pageOf<T extends CursorPosition>(rows: T[], limit: number): { items: T[]; next_cursor: string | null } {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, next_cursor: rows.length > limit && last ? encodeCursor(last) : null };
}

/** The two columns every keyset page is ordered by; any table with `createdAt` and `id` fits. */
export interface KeysetColumns {
  createdAt: AnySQLiteColumn;
  id: AnySQLiteColumn;
}

/** Oldest first (`asc`, every list's default) or newest first (`desc`). */
export type KeysetDirection = 'asc' | 'desc';

/** The condition that starts a page after the cursor (in the page's direction); undefined for the first page. */
export function afterCursor(cols: KeysetColumns, cursor: string | undefined, direction: KeysetDirection = 'asc'): SQL | undefined {
  const after = decodeCursor(cursor);
  if (!after) return undefined;
  const beyond = direction === 'asc' ? gt : lt;
  return or(beyond(cols.createdAt, after.createdAt), and(eq(cols.createdAt, after.createdAt), beyond(cols.id, after.id)));
}

/** The order of every keyset page: creation, then id (both reversed for newest first). */
export const keysetOrder = (cols: KeysetColumns, direction: KeysetDirection = 'asc') =>
  direction === 'asc' ? ([asc(cols.createdAt), asc(cols.id)] as const) : ([desc(cols.createdAt), desc(cols.id)] as const);
