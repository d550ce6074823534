import * as z from 'zod';
import { addClient, createClient } from '../../domain/clients/create.ts';
import { getClient } from '../../domain/clients/get.ts';
import { listClients } from '../../domain/clients/list.ts';
import {
  addInput,
  addOutput,
  createInput,
  createOutput,
  getInput,
  getOutput,
  listInput,
  listOutput,
  updateInput,
  updateOutput,
  updateStatusInput,
} from '../../domain/clients/schemas.ts';
import { updateClient } from '../../domain/clients/update.ts';
import { updateClientStatus } from '../../domain/clients/update-status.ts';
import { actingUserProcedure, router, workspaceProcedure } from '../init.ts';

export const clientsRouter = router({
  /** For TypeScript clients: keyset pagination, status and name filters, `updated_since`. */
  list: workspaceProcedure
    .input(listInput)
    .output(listOutput)
    .query(({ ctx, input }) => listClients(ctx.scope, input)),
  /** Endpoint 13. */
  get: workspaceProcedure
    .input(getInput)
    .output(getOutput)
    .query(({ ctx, input }) => getClient(ctx.scope, input)),
  /** For TypeScript clients; the command line's `client create` runs the same operation. */
  create: actingUserProcedure
    .input(createInput)
    .output(createOutput)
    .mutation(({ ctx, input }) => createClient(ctx.scope, input)),
  /** The vendor's POST v1 /clients: `{client: {...}}`, no acting person (the key speaks for the workspace). */
  add: workspaceProcedure
    .input(addInput)
    .output(addOutput)
    .mutation(({ ctx, input }) => addClient(ctx.scope, input)),
  /** Endpoint 14 (PUT v1) and the vendor's PATCH v2 /clients/{id}. */
  update: workspaceProcedure
    .input(updateInput)
    .output(updateOutput)
    .mutation(({ ctx, input }) => updateClient(ctx.scope, input)),
  /** Endpoint 15 (204, no body). */
  updateStatus: workspaceProcedure
    .input(updateStatusInput)
    .output(z.void())
    .mutation(({ ctx, input }) => updateClientStatus(ctx.scope, input)),
});
