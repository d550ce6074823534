import * as z from 'zod';
import { pendingApprovals, pendingOutput } from '../../domain/time-entries/pending.ts';
import { startTimerInput, stopTimerOutput, timerOutput, weekInput, weekOutput } from '../../domain/timesheet/schemas.ts';
import { discardTimer, startTimer, stopTimer } from '../../domain/timesheet/timer.ts';
import { timesheetWeek } from '../../domain/timesheet/week.ts';
import { actingUserProcedure, router, workspaceProcedure } from '../init.ts';

const none = z.object({}).optional();

/** A person's week of time, and their running timer (the app's timesheet page). */
export const timesheetRouter = router({
  week: workspaceProcedure
    .input(weekInput)
    .output(weekOutput)
    .query(({ ctx, input }) => timesheetWeek(ctx.scope, input)),
  startTimer: actingUserProcedure
    .input(startTimerInput)
    .output(timerOutput)
    .mutation(({ ctx, input }) => startTimer(ctx.scope, input)),
  stopTimer: actingUserProcedure
    .output(stopTimerOutput)
    .mutation(({ ctx }) => stopTimer(ctx.scope)),
  discardTimer: actingUserProcedure
    .output(timerOutput)
    .mutation(({ ctx }) => discardTimer(ctx.scope)),
});

/** Entries awaiting a decision; deciding is `timeEntries.approve|reject`. */
export const approvalsRouter = router({
  pending: workspaceProcedure
    .input(none)
    .output(pendingOutput)
    .query(({ ctx }) => pendingApprovals(ctx.scope)),
});
