import { z } from 'zod';
import { createClient, listClients, toClientRecord, updateClient, updateClientStatus } from '../../domain/clients/clients.ts';
import { readClient } from '../../domain/clients/read.ts';
import {
  createClientInput,
  createOutput,
  getInput,
  getOutput,
  listInput,
  listOutput,
  updateInput,
  updateOutput,
  updateStatusInput,
} from '../../domain/clients/schemas.ts';
import { actingUserProcedure, requireAdmin, router, workspaceProcedure } from '../init.ts';

export const clientsRouter = router({
  /** For TypeScript clients: keyset pagination, status and name filters, `updated_since`. */
  list: workspaceProcedure
    .input(listInput)
    .output(listOutput)
    .query(({ ctx, input }) => listClients(ctx.db, input, ctx.workspace.id)),
  /** Endpoint 13. */
  get: workspaceProcedure
    .input(getInput)
    .output(getOutput)
    .query(({ ctx, input }) => readClient(ctx.handle, ctx.workspace.id, input.client_id)),
  /** For TypeScript clients; the command line's `client create` runs the same domain function. */
  create: actingUserProcedure
    .input(createClientInput)
    .output(createOutput)
    .mutation(({ ctx, input }) => {
      requireAdmin(ctx.actor, 'create clients');
      const row = ctx.db.transaction((tx) => createClient(tx, input, ctx.clock()));
      return { client: toClientRecord(row, ctx.workspace.id) };
    }),
  /** Endpoint 14. */
  update: workspaceProcedure
    .input(updateInput)
    .output(updateOutput)
    .mutation(({ ctx, input }) => {
      const row = updateClient(ctx.db, input, ctx.clock());
      return { notice_code: 'client_updated' as const, client_id: row.id };
    }),
  /** Endpoint 15 (204, no body). */
  updateStatus: workspaceProcedure
    .input(updateStatusInput)
    .output(z.void())
    .mutation(({ ctx, input }) => {
      updateClientStatus(ctx.db, input, ctx.clock());
    }),
});
