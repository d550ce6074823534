import { and, eq, ne, sql } from 'drizzle-orm';
import type { Database, Db } from '../../db/index.ts';
import { recipients } from '../../db/schema/index.ts';
import { conflict, notFound } from '../../errors.ts';
import { getClientRow } from '../clients/queries.ts';
import { keysetOrder } from '../pagination.ts';
import { inIds, isUniqueViolation } from '../queries.ts';
import type { Scope } from '../scope.ts';
import type { RecipientRow } from './records.ts';

const live = (clientId: string) => and(eq(recipients.clientId, clientId), eq(recipients.deleted, false));

const duplicate = (email: string) => conflict('recipient_exists', `This client already has a recipient with the e-mail ${email}`);

/**
 * One live recipient per address and client, ignoring case in the whole address (the unique index
 * on `lower(email)` says the same; this check gives the readable error).
 */
export function assertEmailFree(db: Db, clientId: string, email: string, exceptId?: string): void {
  const taken = db
    .select({ id: recipients.id })
    .from(recipients)
    .where(and(live(clientId), sql`lower(${recipients.email}) = lower(${email})`, exceptId ? ne(recipients.id, exceptId) : undefined))
    .get();
  if (taken) throw duplicate(email);
}

/** The index is the last word: another process (the command line) may have written in between. */
export function guardUnique<T>(email: string, write: () => T): T {
  try {
    return write();
  } catch (err) {
    if (isUniqueViolation(err, 'recipients_client_email_idx')) throw duplicate(email);
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

const statements = (db: Database) => ({
  liveOfClient: db
    .select()
    .from(recipients)
    .where(and(eq(recipients.clientId, sql.placeholder('clientId')), eq(recipients.deleted, false)))
    .orderBy(...keysetOrder(recipients))
    .prepare(),
});

/** The client's live recipients in creation order (the client read, endpoint 13). */
export function liveRecipientsOf(scope: Pick<Scope, 'statements'>, clientId: string): RecipientRow[] {
  return scope.statements(statements).liveOfClient.all({ clientId });
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
    .where(and(live(clientId), inIds(recipients.id, recipientIds)))
    .orderBy(...keysetOrder(recipients))
    .all();
}
