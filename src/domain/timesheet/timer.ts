import { eq } from 'drizzle-orm';
import type * as z from 'zod';
import { timers } from '../../db/schema/index.ts';
import { AppError, conflict } from '../../errors.ts';
import type { ActorScope } from '../scope.ts';
import { createTimeEntry, resolveTarget } from '../time-entries/create.ts';
import { timeEntryStatements } from '../time-entries/queries.ts';
import { recordsByIds } from '../time-entries/records.ts';
import { localDate } from '../time/calendar.ts';
import { MAX_DAY_SECONDS } from '../time/hours.ts';
import type { startTimerInput, stopTimerOutput, timerOutput } from './schemas.ts';

const MINUTE = 60;

const toTimer = (row: typeof timers.$inferSelect) => ({ client_id: row.clientId, project_id: row.projectId, task_id: row.taskId, notes: row.notes, started_at: row.startedAt });

function runningTimer(scope: ActorScope) {
  const row = scope.db.select().from(timers).where(eq(timers.memberId, scope.actor.id)).get();
  if (!row) throw new AppError('not_found', 'timer_not_found', 'No timer is running');
  return row;
}

/** `timer.start`: one running timer per person, on a project and task they may record time on. */
export function startTimer(scope: ActorScope, input: z.output<typeof startTimerInput>): z.output<typeof timerOutput> {
  const st = scope.statements(timeEntryStatements);
  return scope.write((tx) => {
    if (tx.select({ id: timers.memberId }).from(timers).where(eq(timers.memberId, scope.actor.id)).get()) {
      throw conflict('timer_running', 'A timer is already running; stop or discard it first');
    }
    resolveTarget(st, input, scope.actor, scope.actor);
    const row = {
      memberId: scope.actor.id,
      clientId: input.client_id,
      projectId: input.project_id,
      taskId: input.task_id,
      notes: input.notes ?? '',
      startedAt: scope.now.toISOString(),
      startedOn: localDate(scope.now, scope.actor.timeZone),
    };
    tx.insert(timers).values(row).run();
    return { timer: toTimer(row) };
  });
}

/**
 * `timer.stop`: records the elapsed time (whole minutes, rounded up, at least one) as an entry on
 * the day the timer started, by the person's calendar when it started (a zone changed meanwhile
 * does not move it), through the same rules as any entry. If a
 * rule refuses it (a locked day, a full day) nothing changes and the timer keeps running.
 */
export function stopTimer(scope: ActorScope): z.output<typeof stopTimerOutput> {
  return scope.write((tx) => {
    const timer = runningTimer(scope);
    const elapsed = Math.max(MINUTE, Math.ceil((scope.now.getTime() - Date.parse(timer.startedAt)) / 1000 / MINUTE) * MINUTE);
    if (elapsed > MAX_DAY_SECONDS) {
      throw new AppError('unprocessable', 'timer_too_long', 'This timer ran for more than 24 hours; discard it and record the time by hand');
    }
    tx.delete(timers).where(eq(timers.memberId, scope.actor.id)).run();
    const created = createTimeEntry(scope, {
      client_id: timer.clientId,
      project_id: timer.projectId,
      task_id: timer.taskId,
      recorded_on: timer.startedOn ?? localDate(new Date(timer.startedAt), scope.actor.timeZone),
      hours: elapsed,
      notes: timer.notes,
      metadata: null,
      checklist_items: null,
      is_override: false,
    });
    const [entry] = recordsByIds(tx, [created.id]);
    return { notice_code: 'time_entry_created', time_entry: entry! };
  });
}

/** `timer.discard`: the timer stops and nothing is recorded. */
export function discardTimer(scope: ActorScope): z.output<typeof timerOutput> {
  return scope.write((tx) => {
    runningTimer(scope);
    tx.delete(timers).where(eq(timers.memberId, scope.actor.id)).run();
    return { timer: null };
  });
}
