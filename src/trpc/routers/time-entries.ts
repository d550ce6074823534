import { createTimeEntry } from '../../domain/time-entries/create.ts';
import { approveTimeEntries, rejectTimeEntries } from '../../domain/time-entries/decide.ts';
import { deleteTimeEntry } from '../../domain/time-entries/delete.ts';
import { listOverrides, listTimeEntries } from '../../domain/time-entries/list.ts';
import {
  approveOutput,
  createInput,
  createOutput,
  decisionInput,
  deleteInput,
  deleteOutput,
  listInput,
  listOutput,
  overridesInput,
  overridesOutput,
  rejectOutput,
  updateInput,
  updateOutput,
} from '../../domain/time-entries/schemas.ts';
import { updateTimeEntry } from '../../domain/time-entries/update.ts';
import { actingUserProcedure, router, subjectUserProcedure, workspaceProcedure } from '../init.ts';

export const timeEntriesRouter = router({
  /**
   * Endpoints 2 and 3. `email` names the entry's user, who must be a user of the project. Signed in,
   * a manager of the project (or an Owner/Admin) may name someone else; anyone may name themselves.
   */
  create: subjectUserProcedure
    .input(createInput)
    .output(createOutput)
    .mutation(({ ctx, input }) => createTimeEntry(ctx.scope, input)),
  list: workspaceProcedure
    .input(listInput)
    .output(listOutput)
    .query(({ ctx, input }) => listTimeEntries(ctx.scope, input)),
  /** `email` is the person making the change: the entry's user, a project manager, Owner or Admin. */
  update: actingUserProcedure
    .input(updateInput)
    .output(updateOutput)
    .mutation(({ ctx, input }) => updateTimeEntry(ctx.scope, input)),
  delete: actingUserProcedure
    .input(deleteInput)
    .output(deleteOutput)
    .mutation(({ ctx, input }) => deleteTimeEntry(ctx.scope, input)),
  /** `email` is the approver: a manager of each entry's project, an Owner or an Admin. */
  approve: actingUserProcedure
    .input(decisionInput)
    .output(approveOutput)
    .mutation(({ ctx, input }) => approveTimeEntries(ctx.scope, input)),
  reject: actingUserProcedure
    .input(decisionInput)
    .output(rejectOutput)
    .mutation(({ ctx, input }) => rejectTimeEntries(ctx.scope, input)),
  /** The autolock override log, newest last. */
  overrides: workspaceProcedure
    .input(overridesInput)
    .output(overridesOutput)
    .query(({ ctx, input }) => listOverrides(ctx.scope, input)),
});
