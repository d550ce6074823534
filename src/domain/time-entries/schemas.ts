import * as z from 'zod';
import { timeEntryStatuses } from '../../db/schema/index.ts';
import { dateOut, dateTime, dateTimeOut, emailOut, flexibleDate, idIn, idOut } from '../fields.ts';
import { MAX_NESTING, nestedDeeperThan } from '../nesting.ts';
import { cursorInput } from '../pagination.ts';
import { parseHours } from '../time/hours.ts';

/** Free-form metadata is kept, but bounded: an integration must not store documents in it. */
const MAX_METADATA_BYTES = 16 * 1024;
const MAX_NOTES_LENGTH = 10_000;
const MAX_CHECKLIST_ITEMS = 200;
/** Approve or reject at most this many entries per call (one transaction). */
const MAX_BATCH = 500;

/** `hours` as sent (a string), read into whole seconds. */
const hoursField = z
  .string({ message: 'must be hours as a string such as "1.5", "0.25" or "1:30"' })
  .meta({ description: 'Hours worked, as a string: decimal ("1.5", "0.25"; at most 4 decimals) or H:MM ("1:30"); more than 0, at most 24', example: '1.5' })
  .transform((value, ctx) => {
    const parsed = parseHours(value);
    if (!parsed.ok) {
      ctx.addIssue({ code: 'custom', message: parsed.message });
      return z.NEVER;
    }
    return parsed.seconds;
  });

/** A JSON object (not an array or a scalar) of at most 16 KiB once serialised. */
const metadataField = z
  .record(z.string(), z.unknown(), { message: 'must be a JSON object' })
  .meta({ description: `Any JSON object, at most ${MAX_METADATA_BYTES} bytes serialised`, example: { ticket: 'PROJ-142' } })
  .refine((value) => !nestedDeeperThan(value), { message: `must not nest objects and arrays more than ${MAX_NESTING} levels deep`, abort: true })
  .refine((value) => Buffer.byteLength(JSON.stringify(value), 'utf8') <= MAX_METADATA_BYTES, {
    message: `must be at most ${MAX_METADATA_BYTES} bytes as JSON`,
  });

/** Body ids are strings: an unknown or malformed id is a 404 for its resource, never a 422. */
const idField = (what: string, description: string) => idIn(`must be the id of a ${what}`).meta({ description });

const notesField = z.string({ message: 'must be text' }).max(MAX_NOTES_LENGTH, `must be at most ${MAX_NOTES_LENGTH} characters`);

const checklistItemsField = z
  .array(z.object({ id: idIn('must be a checklist item id'), is_completed: z.boolean({ message: 'must be true or false' }) }), {
    message: 'must be a list of {id, is_completed}',
  })
  .max(MAX_CHECKLIST_ITEMS, `may hold at most ${MAX_CHECKLIST_ITEMS} items`)
  .meta({ description: "Checklist items of the entry's task, each at most once" });

const isOverrideField = z
  .boolean({ message: 'must be true or false' })
  .meta({ description: 'Record even on a date locked by autolock; only for an Owner, an Admin or a project manager of the project (logged)' })
  .optional()
  .default(false);

/** Endpoints 2 and 3 (the acting `email` is added by the procedure: it names the entry's user). */
export const createInput = z.object({
  client_id: idField('client', 'A client of this workspace'),
  project_id: idField('project', 'An active project of that client'),
  task_id: idField('task', 'A task of that project that is not archived'),
  recorded_on: flexibleDate.meta({ description: "The day worked, YYYY-MM-DD (or MM/DD/YYYY), on the user's calendar" }),
  hours: hoursField,
  notes: notesField.nullish(),
  metadata: metadataField.nullish(),
  checklist_items: checklistItemsField.nullish(),
  is_override: isOverrideField,
});
export type CreateInput = z.output<typeof createInput>;

const statusField = z.enum(timeEntryStatuses);

/** The spec's time entry response, the same for v1 and v2. */
export const createOutput = z.object({
  notice_code: z.literal('time_entry_created'),
  organization_id: idOut,
  subdomain: z.string(),
  id: idOut,
  hours: z.number().meta({ description: "The duration after the project's rounding, in hours (4 decimals)" }),
  notes: z.string(),
  task_id: idOut,
  user_id: idOut,
  user_email: emailOut,
  recorded_on: dateOut,
  status: statusField,
  created_at: dateTimeOut,
  updated_at: dateTimeOut,
});
export type CreateOutput = z.output<typeof createOutput>;

/** The full entry, for TypeScript clients. */
export const timeEntryRecord = z.object({
  id: idOut,
  client_id: idOut,
  project_id: idOut,
  task_id: idOut,
  user_id: idOut,
  user_email: emailOut,
  recorded_on: dateOut,
  /** The rounded duration in hours (4 decimals); `seconds` is exact. */
  hours: z.number(),
  seconds: z.number().int(),
  /** The duration as sent, before the project's rounding. */
  entered_seconds: z.number().int(),
  notes: z.string(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  checklist_items: z.array(z.object({ id: idOut, is_completed: z.boolean() })),
  status: statusField,
  is_override: z.boolean(),
  invoice_id: idOut.nullable(),
  created_at: dateTimeOut,
  updated_at: dateTimeOut,
});
export type TimeEntryRecord = z.output<typeof timeEntryRecord>;

export const listInput = z
  .object({
    ...cursorInput,
    project_id: idIn().optional(),
    user_id: idIn().optional(),
    from: flexibleDate.optional(),
    to: flexibleDate.optional(),
    status: statusField.optional(),
    updated_since: dateTime.optional(),
  })
  .refine((v) => !v.from || !v.to || v.from <= v.to, { message: 'must not be before from', path: ['to'] });
export const listOutput = z.object({ items: z.array(timeEntryRecord), next_cursor: z.string().nullable() });

/** Only the given fields change; `metadata: null` clears it, `checklist_items` replaces the set. */
export const updateInput = z.object({
  time_entry_id: idIn(),
  task_id: idField('task', 'Another task of the same project').optional(),
  recorded_on: flexibleDate.optional(),
  hours: hoursField.optional(),
  notes: notesField.nullish(),
  metadata: metadataField.nullish(),
  checklist_items: checklistItemsField.optional(),
  is_override: isOverrideField,
});
export type UpdateInput = z.output<typeof updateInput>;
export const updateOutput = z.object({ notice_code: z.literal('time_entry_updated'), time_entry: timeEntryRecord });

export const deleteInput = z.object({ time_entry_id: idIn(), is_override: isOverrideField });
export type DeleteInput = z.output<typeof deleteInput>;
export const deleteOutput = z.object({ notice_code: z.literal('time_entry_deleted'), time_entry_id: idOut });

/** One id or a list, not both. */
export const decisionInput = z
  .object({
    time_entry_id: idIn().optional(),
    time_entry_ids: z.array(idIn()).min(1, 'must name at least one entry').max(MAX_BATCH, `may name at most ${MAX_BATCH} entries`).optional(),
  })
  .refine((v) => (v.time_entry_id === undefined) !== (v.time_entry_ids === undefined), {
    message: 'give either time_entry_id or time_entry_ids',
    path: ['time_entry_ids'],
  });
export type DecisionInput = z.output<typeof decisionInput>;
export const approveOutput = z.object({ notice_code: z.literal('time_entries_approved'), time_entries: z.array(timeEntryRecord) });
export const rejectOutput = z.object({ notice_code: z.literal('time_entries_rejected'), time_entries: z.array(timeEntryRecord) });

export const overridesInput = z.object({ ...cursorInput, project_id: idIn().optional() });
const overrideRecord = z.object({
  id: idOut,
  time_entry_id: idOut,
  project_id: idOut,
  recorded_on: dateOut,
  action: z.enum(['create', 'update', 'delete']),
  /** The first locked day of the period the date falls in. */
  locked_since: dateOut,
  actor_id: idOut,
  actor_email: emailOut,
  created_at: dateTimeOut,
});
export const overridesOutput = z.object({ items: z.array(overrideRecord), next_cursor: z.string().nullable() });
