import { decideTimeEntries } from '../../domain/time-entries/approvals.ts';
import { createTimeEntry } from '../../domain/time-entries/create.ts';
import { deleteTimeEntry, updateTimeEntry } from '../../domain/time-entries/edit.ts';
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
import { actingUserProcedure, router, workspaceProcedure } from '../init.ts';

export const timeEntriesRouter = router({
  /** Endpoints 2 and 3. `email` names the entry's user, who must be a user of the project. */
  create: actingUserProcedure
    .input(createInput)
    .output(createOutput)
    .mutation(({ ctx, input }) => {
      const result = createTimeEntry(ctx.handle, ctx.workspace, ctx.actor, input, ctx.clock());
      if (result.mailQueued) ctx.notifyOutbox();
      return result.response;
    }),
  list: workspaceProcedure
    .input(listInput)
    .output(listOutput)
    .query(({ ctx, input }) => listTimeEntries(ctx.db, input)),
  /** `email` is the person making the change: the entry's user, a project manager, Owner or Admin. */
  update: actingUserProcedure
    .input(updateInput)
    .output(updateOutput)
    .mutation(({ ctx, input }) => {
      const result = updateTimeEntry(ctx.handle, ctx.actor, input, ctx.clock());
      if (result.mailQueued) ctx.notifyOutbox();
      return { notice_code: 'time_entry_updated' as const, time_entry: result.value };
    }),
  delete: actingUserProcedure
    .input(deleteInput)
    .output(deleteOutput)
    .mutation(({ ctx, input }) => ({
      notice_code: 'time_entry_deleted' as const,
      time_entry_id: deleteTimeEntry(ctx.handle, ctx.actor, input, ctx.clock()),
    })),
  /** `email` is the approver: a manager of each entry's project, an Owner or an Admin. */
  approve: actingUserProcedure
    .input(decisionInput)
    .output(approveOutput)
    .mutation(({ ctx, input }) => ({
      notice_code: 'time_entries_approved' as const,
      time_entries: decideTimeEntries(ctx.handle, ctx.actor, input, 'approve', ctx.clock()),
    })),
  reject: actingUserProcedure
    .input(decisionInput)
    .output(rejectOutput)
    .mutation(({ ctx, input }) => ({
      notice_code: 'time_entries_rejected' as const,
      time_entries: decideTimeEntries(ctx.handle, ctx.actor, input, 'reject', ctx.clock()),
    })),
  /** The autolock override log, newest last. */
  overrides: workspaceProcedure
    .input(overridesInput)
    .output(overridesOutput)
    .query(({ ctx, input }) => listOverrides(ctx.db, input)),
});
