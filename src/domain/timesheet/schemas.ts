import * as z from 'zod';
import { dateOut, dateTimeOut, emailOut, flexibleDate, idIn, idOut } from '../fields.ts';
import { timeEntryRecord } from '../time-entries/schemas.ts';

export const weekInput = z.object({
  /** Whose timesheet; the caller's own when left out. */
  user_id: idIn().optional(),
  /** Any day of the week to show (weeks run Monday to Sunday); this week when left out. */
  week_of: flexibleDate.optional(),
});

const person = z.object({ id: idOut, email: emailOut, first_name: z.string(), last_name: z.string(), time_zone: z.string() });

const timesheetTask = z.object({
  id: idOut,
  name: z.string(),
  billable: z.boolean(),
  archived: z.boolean(),
  checklist_items: z.array(z.object({ id: idOut, description: z.string() })),
});

export const timesheetProject = z.object({
  id: idOut,
  name: z.string(),
  client_id: idOut,
  client_name: z.string(),
  /** Time can be recorded here now (project and client active, the person a project user). */
  open: z.boolean(),
  enable_approvals: z.boolean(),
  /** The days of this week locked by the project's autolock, for the person's time zone. */
  locked_days: z.array(dateOut),
  /** The caller manages the project (Owner, Admin or its project manager): may override locks. */
  may_override: z.boolean(),
  tasks: z.array(timesheetTask),
});

export const timerRecord = z.object({
  client_id: idOut,
  project_id: idOut,
  task_id: idOut,
  notes: z.string(),
  started_at: dateTimeOut,
});

export const weekOutput = z.object({
  person,
  week_start: dateOut,
  days: z.array(dateOut),
  /** Today on the person's calendar. */
  today: dateOut,
  projects: z.array(timesheetProject),
  entries: z.array(timeEntryRecord),
  timer: timerRecord.nullable(),
  /** Whose timesheets the caller may open (themselves first). */
  people: z.array(person.pick({ id: true, email: true, first_name: true, last_name: true })),
});
export type WeekOutput = z.output<typeof weekOutput>;

export const startTimerInput = z.object({
  client_id: idIn(),
  project_id: idIn(),
  task_id: idIn(),
  notes: z.string().max(10_000, 'must be at most 10000 characters').optional(),
});
export const timerOutput = z.object({ timer: timerRecord.nullable() });
export const stopTimerOutput = z.object({ notice_code: z.literal('time_entry_created'), time_entry: timeEntryRecord });
