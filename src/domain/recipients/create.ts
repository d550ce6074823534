import { randomUUID } from 'node:crypto';
import type * as z from 'zod';
import { recipients } from '../../db/schema/index.ts';
import { requireAdmin } from '../access.ts';
import { recordEvent } from '../events.ts';
import { getClientRow } from '../clients/queries.ts';
import type { ActorScope } from '../scope.ts';
import { assertEmailFree, guardUnique } from './queries.ts';
import { toRecipientRecord, type RecipientRow } from './records.ts';
import type { createInput, createOutput } from './schemas.ts';

/** Endpoint 7. The acting user is recorded as the recipient's creator. */
export function createRecipient(scope: ActorScope, input: z.output<typeof createInput>): z.output<typeof createOutput> {
  requireAdmin(scope, 'add recipients');
  return scope.write((tx) => {
    getClientRow(tx, input.client_id);
    assertEmailFree(tx, input.client_id, input.recipient.email);
    const at = scope.now.toISOString();
    const row: RecipientRow = {
      id: randomUUID(),
      clientId: input.client_id,
      creatorId: scope.actor.id,
      name: input.recipient.name,
      email: input.recipient.email,
      deleted: false,
      createdAt: at,
      updatedAt: at,
    };
    guardUnique(row.email, () => tx.insert(recipients).values(row).run());
    const recipient = toRecipientRecord(row);
    recordEvent(scope, 'recipient.created', { recipient });
    return { notice_code: 'recipient_created', recipient };
  });
}
