import { eq } from 'drizzle-orm';
import type * as z from 'zod';
import { recipients } from '../../db/schema/index.ts';
import { requireAdmin } from '../access.ts';
import { recordEvent } from '../events.ts';
import type { Scope } from '../scope.ts';
import { getRecipientRow } from './queries.ts';
import { toRecipientRecord } from './records.ts';
import type { deleteInput, deleteOutput } from './schemas.ts';

/** Endpoint 9, a soft delete: the row stays for the invoices that were sent to it, but is no longer live. */
export function deleteRecipient(scope: Scope, input: z.output<typeof deleteInput>): z.output<typeof deleteOutput> {
  requireAdmin(scope, 'delete recipients');
  return scope.write((tx) => {
    const current = getRecipientRow(tx, input.client_id, input.recipient_id);
    const updatedAt = scope.now.toISOString();
    tx.update(recipients).set({ deleted: true, updatedAt }).where(eq(recipients.id, current.id)).run();
    const recipient = toRecipientRecord({ ...current, deleted: true, updatedAt });
    recordEvent(scope, 'recipient.deleted', { recipient });
    return { notice_code: 'recipient_deleted', recipient };
  });
}
