import { createRecipient, deleteRecipient, listRecipients, toRecipientRecord, updateRecipient } from '../../domain/recipients/recipients.ts';
import {
  createInput,
  createOutput,
  deleteInput,
  deleteOutput,
  listInput,
  listOutput,
  updateInput,
  updateOutput,
} from '../../domain/recipients/schemas.ts';
import { actingUserProcedure, requireAdmin, router, workspaceProcedure } from '../init.ts';

export const recipientsRouter = router({
  /** For TypeScript clients: one client's recipients, keyset pages. */
  list: workspaceProcedure
    .input(listInput)
    .output(listOutput)
    .query(({ ctx, input }) => listRecipients(ctx.db, input)),
  /** Endpoint 7. The REST body is `{notice_code}`; TypeScript clients also get the record. */
  create: actingUserProcedure
    .input(createInput)
    .output(createOutput)
    .mutation(({ ctx, input }) => {
      requireAdmin(ctx.actor, 'add recipients');
      const row = ctx.db.transaction((tx) => createRecipient(tx, input.client_id, input.recipient, ctx.actor.id, ctx.clock()));
      return { notice_code: 'recipient_created' as const, recipient: toRecipientRecord(row) };
    }),
  /** Endpoint 8. */
  update: workspaceProcedure
    .input(updateInput)
    .output(updateOutput)
    .mutation(({ ctx, input }) => {
      const row = updateRecipient(ctx.db, input, input.recipient, ctx.clock());
      return { notice_code: 'recipient_updated' as const, recipient: toRecipientRecord(row) };
    }),
  /** Endpoint 9. */
  delete: workspaceProcedure
    .input(deleteInput)
    .output(deleteOutput)
    .mutation(({ ctx, input }) => ({ notice_code: 'recipient_deleted' as const, recipient: toRecipientRecord(deleteRecipient(ctx.db, input, ctx.clock())) })),
});
