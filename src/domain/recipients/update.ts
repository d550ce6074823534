import { eq } from 'drizzle-orm';
import type * as z from 'zod';
import { recipients } from '../../db/schema/index.ts';
import { requireAdmin } from '../access.ts';
import { recordEvent } from '../events.ts';
import type { Scope } from '../scope.ts';
import { assertEmailFree, getRecipientRow, guardUnique } from './queries.ts';
import { toRecipientRecord, type RecipientRow } from './records.ts';
import type { updateInput, updateOutput } from './schemas.ts';

/** Endpoint 8: only the given fields change; a body naming none changes nothing (not even `updated_at`). */
export function updateRecipient(scope: Scope, input: z.output<typeof updateInput>): z.output<typeof updateOutput> {
  requireAdmin(scope, 'change recipients');
  const changes = input.recipient;
  return scope.write((tx) => {
    const current = getRecipientRow(tx, input.client_id, input.recipient_id);
    let next = current;
    if (changes.name !== undefined || changes.email !== undefined) {
      if (changes.email !== undefined) assertEmailFree(tx, current.clientId, changes.email, current.id);
      next = {
        ...current,
        ...(changes.name !== undefined && { name: changes.name }),
        ...(changes.email !== undefined && { email: changes.email }),
        updatedAt: scope.now.toISOString(),
      } satisfies RecipientRow;
      const row = next;
      guardUnique(row.email, () => tx.update(recipients).set(row).where(eq(recipients.id, current.id)).run());
      recordEvent(scope, 'recipient.updated', { recipient: toRecipientRecord(row) });
    }
    return { notice_code: 'recipient_updated', recipient: toRecipientRecord(next) };
  });
}
