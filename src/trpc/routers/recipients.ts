import { createRecipient } from '../../domain/recipients/create.ts';
import { deleteRecipient } from '../../domain/recipients/delete.ts';
import { listRecipients } from '../../domain/recipients/list.ts';
import { createInput, createOutput, deleteInput, deleteOutput, listInput, listOutput, updateInput, updateOutput } from '../../domain/recipients/schemas.ts';
import { updateRecipient } from '../../domain/recipients/update.ts';
import { actingUserProcedure, router, workspaceProcedure } from '../init.ts';

export const recipientsRouter = router({
  /** For TypeScript clients: one client's recipients, keyset pages. */
  list: workspaceProcedure
    .input(listInput)
    .output(listOutput)
    .query(({ ctx, input }) => listRecipients(ctx.scope, input)),
  /** Endpoint 7. The REST body is `{notice_code}`; TypeScript clients also get the record. */
  create: actingUserProcedure
    .input(createInput)
    .output(createOutput)
    .mutation(({ ctx, input }) => createRecipient(ctx.scope, input)),
  /** Endpoint 8. */
  update: workspaceProcedure
    .input(updateInput)
    .output(updateOutput)
    .mutation(({ ctx, input }) => updateRecipient(ctx.scope, input)),
  /** Endpoint 9. */
  delete: workspaceProcedure
    .input(deleteInput)
    .output(deleteOutput)
    .mutation(({ ctx, input }) => deleteRecipient(ctx.scope, input)),
});
