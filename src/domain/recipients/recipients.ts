import { randomUUID } from 'node:crypto';
import { and, eq, gt, inArray, ne, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Database, Db } from '../../db/index.ts';
import { recipients } from '../../db/schema/index.ts';
import { conflict, notFound } from '../../errors.ts';
import { getClientRow } from '../clients/clients.ts';
import { afterCursor, keysetOrder, pageOf } from '../pagination.ts';
import type { listInput, newRecipient, RecipientRecord, recipientChanges } from './schemas.ts';

export type RecipientRow = typeof recipients.$inferSelect;

export const toRecipientRecord = (row: RecipientRow): RecipientRecord => ({
  id: row.id,
  creator_id: row.creatorId,
  client_id: row.clientId,
  name: row.name,
  email: row.email,
  deleted: row.deleted,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
});

const live = (clientId: string) => and(eq(recipients.clientId, clientId), eq(recipients.deleted, false));

const duplicate = (email: string) =>
  conflict('recipient_exists', `This client already has a recipient with the e-mail ${email}`);

/**
 * One live recipient per address and client, ignoring case in the whole address (the unique index
 * on `lower(email)` says the same; this check gives the readable error).
 */
function assertEmailFree(db: Db, clientId: string, email: string, exceptId?: string): void {
  const taken = db
    .select({ id: recipients.id })
    .from(recipients)
    .where(and(live(clientId), sql`lower(${recipients.email}) = lower(${email})`, exceptId ? ne(recipients.id, exceptId) : undefined))
    .get();
  if (taken) throw duplicate(email);
}

/** The index is the last word: another process (the command line) may have written in between. */
function guardUnique<T>(email: string, write: () => T): T {
  try {
    return write();
  } catch (err) {
    if ((err as { code?: unknown }).code === 'SQLITE_CONSTRAINT_UNIQUE') throw duplicate(email);
    throw err;
  }
}

/**
 * A live recipient of this client. The client is checked first so an unknown client is reported as
 * such; a recipient of another client, or a deleted one, is `recipient_not_found`.
 */
export function getRecipientRow(db: Db, clientId: string, recipientId: string): RecipientRow {
  getClientRow(db, clientId);
  const row = db
    .select()
    .from(recipients)
    .where(and(eq(recipients.id, recipientId), live(clientId)))
    .get();
  if (!row) throw notFound('recipient', `No recipient with id ${recipientId} for client ${clientId}`);
  return row;
}

export function createRecipient(
  db: Db,
  clientId: string,
  fields: z.output<typeof newRecipient>,
  creatorId: string | null,
  now: Date,
): RecipientRow {
  getClientRow(db, clientId);
  assertEmailFree(db, clientId, fields.email);
  const at = now.toISOString();
  const row: RecipientRow = {
    id: randomUUID(),
    clientId,
    creatorId,
    name: fields.name,
    email: fields.email,
    deleted: false,
    createdAt: at,
    updatedAt: at,
  };
  guardUnique(fields.email, () => db.insert(recipients).values(row).run());
  return row;
}

/** Only the given fields change; a body naming none changes nothing (not even `updated_at`). */
export function updateRecipient(
  db: Database,
  ref: { client_id: string; recipient_id: string },
  changes: z.output<typeof recipientChanges>,
  now: Date,
): RecipientRow {
  return db.transaction((tx) => {
    const current = getRecipientRow(tx, ref.client_id, ref.recipient_id);
    if (changes.name === undefined && changes.email === undefined) return current;
    if (changes.email !== undefined) assertEmailFree(tx, current.clientId, changes.email, current.id);
    const next: RecipientRow = {
      ...current,
      ...(changes.name !== undefined && { name: changes.name }),
      ...(changes.email !== undefined && { email: changes.email }),
      updatedAt: now.toISOString(),
    };
    guardUnique(next.email, () => tx.update(recipients).set(next).where(eq(recipients.id, current.id)).run());
    return next;
  });
}

/** Soft delete: the row stays for the invoices that were sent to it, but it is no longer live. */
export function deleteRecipient(db: Database, ref: { client_id: string; recipient_id: string }, now: Date): RecipientRow {
  return db.transaction((tx) => {
    const current = getRecipientRow(tx, ref.client_id, ref.recipient_id);
    const next: RecipientRow = { ...current, deleted: true, updatedAt: now.toISOString() };
    tx.update(recipients).set({ deleted: true, updatedAt: next.updatedAt }).where(eq(recipients.id, current.id)).run();
    return next;
  });
}

const readStatements = (db: Database) => ({
  liveOfClient: db
    .select()
    .from(recipients)
    .where(and(eq(recipients.clientId, sql.placeholder('clientId')), eq(recipients.deleted, false)))
    .orderBy(...keysetOrder(recipients))
    .prepare(),
});

/** The client's live recipients in creation order (the client read, endpoint 13). */
export function liveRecipientsOf(memo: <T>(b: (db: Database) => T) => T, clientId: string): RecipientRow[] {
  return memo(readStatements).liveOfClient.all({ clientId });
}

/**
 * Which of the given ids are live recipients of the client, for callers that send to them (the
 * invoice door): one query however many ids.
 */
export function findLiveRecipients(db: Db, clientId: string, recipientIds: readonly string[]): RecipientRow[] {
  if (recipientIds.length === 0) return [];
  return db
    .select()
    .from(recipients)
    .where(and(live(clientId), inArray(recipients.id, [...new Set(recipientIds)])))
    .orderBy(...keysetOrder(recipients))
    .all();
}

/** The tRPC listing: keyset pages of one client's recipients. */
export function listRecipients(db: Db, input: z.output<typeof listInput>) {
  getClientRow(db, input.client_id);
  const rows = db
    .select()
    .from(recipients)
    .where(
      and(
        eq(recipients.clientId, input.client_id),
        input.include_deleted ? undefined : eq(recipients.deleted, false),
        input.updated_since ? gt(recipients.updatedAt, input.updated_since) : undefined,
        afterCursor(recipients, input.cursor),
      ),
    )
    .orderBy(...keysetOrder(recipients))
    .limit(input.limit + 1)
    .all();
  const page = pageOf(rows, input.limit);
  return { items: page.items.map(toRecipientRecord), next_cursor: page.next_cursor };
}
