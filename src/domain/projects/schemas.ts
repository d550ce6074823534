import * as z from 'zod';
import { approvalTypes, billingMethods, projectUserRoles, weekDays } from '../../db/schema/projects.ts';
import { currency, dateTime, dateTimeOut, email, emailOut, idIn, idOut, nonEmptyText } from '../fields.ts';
import { cursorInput } from '../pagination.ts';

/**
 * One schema per request and response shape, shared by the REST rows and the tRPC procedures.
 * Amounts are read as numbers here and converted to minor units by the domain, once the currency
 * they are in is known.
 */

const TIME_ROUND_UPTO = [0, 6, 15, 30] as const;
/** 24-hour `HH:MM`; `24:00` and single-digit hours are refused. */
const HH_MM = /^([01]\d|2[0-3]):[0-5]\d$/;

const listOf = <T extends readonly string[]>(values: T) => values.join(', ');

const flag = z.boolean({ message: 'must be true or false' });
/** The response spells the autolock settings as strings, so a client echoing them back is understood. */
const flagOrFlagText = z
  .union([z.boolean(), z.enum(['true', 'false'])], { message: 'must be true or false' })
  .transform((v) => v === true || v === 'true');

const amount = (max: number) =>
  z
    .number({ message: 'must be a number' })
    .min(0, 'must not be negative')
    .max(max, `must be at most ${max}`);
const rate = amount(1_000_000_000);
const flatAmount = amount(1_000_000_000_000);

const billingMethod = z.enum(billingMethods, { message: `must be one of ${listOf(billingMethods)}` });
const timeRoundUpto = z.literal(TIME_ROUND_UPTO, { message: 'must be one of 0, 6, 15, 30 (minutes)' });
const notificationDay = z.enum(weekDays, { message: `must be one of ${listOf(weekDays)}` });
const notificationTime = z
  .string({ message: 'must be a time as HH:MM' })
  .regex(HH_MM, 'must be a 24-hour time as HH:MM, e.g. 09:30')
  .meta({ example: '17:00' });
/** An empty string or null clears the reply-to address. */
const replyTo = z.union([z.literal('').transform(() => null), z.null(), email], { message: 'must be an e-mail address' });
const projectUserRole = z.enum(projectUserRoles, { message: `must be one of ${listOf(projectUserRoles)}` });
const approvalType = z.enum(approvalTypes, { message: `must be one of ${listOf(approvalTypes)}` });

const autolockSettings = z.object(
  {
    end_of_the_day: flagOrFlagText.optional(),
    end_of_the_week: flagOrFlagText.optional(),
    end_of_the_month: flagOrFlagText.optional(),
  },
  { message: 'must be an object with end_of_the_day, end_of_the_week, end_of_the_month' },
);

/** Fields a project has on both create and update; every one optional here. */
const projectSettings = {
  hourly_rate: rate.optional(),
  flat_amount: flatAmount.nullable().optional(),
  currency: currency.optional(),
  internal_notes: z.string({ message: 'must be text' }).max(10_000, 'must be at most 10000 characters').optional(),
  time_round_upto: timeRoundUpto.optional(),
  autolock_enabled: flag.optional(),
  autolock_settings: autolockSettings.optional(),
  reply_to: replyTo.optional(),
  enable_approvals: flag.optional(),
  notify_timesheet_approval_request_instantly: flag.optional(),
  notify_timesheet_approval_request_weekly: flag.optional(),
  timesheet_approval_email_notification_day: notificationDay.nullable().optional(),
  timesheet_approval_email_notification_time: notificationTime.nullable().optional(),
};

const checklistCreate = z.object({ description: nonEmptyText(500) }, { message: 'must be an object with a description' });
const taskCreate = z.object(
  {
    name: nonEmptyText(200),
    billable: flag.optional(),
    hourly_rate: rate.optional(),
    checklists_attributes: z.array(checklistCreate).max(200, 'at most 200 checklist items per task').optional(),
  },
  { message: 'must be an object with a name' },
);

/** Without `id` an item is created; with it the task's existing item is changed. */
const checklistUpdate = z.object(
  { id: idIn().optional(), description: nonEmptyText(500).optional() },
  { message: 'must be an object' },
);
/** Without `id` a task is created (then `name` is required); with it that task of the project changes. */
const taskUpdate = z.object(
  {
    id: idIn().optional(),
    name: nonEmptyText(200).optional(),
    billable: flag.optional(),
    hourly_rate: rate.optional(),
    archived: flag.optional(),
    checklists_attributes: z.array(checklistUpdate).max(200, 'at most 200 checklist items per task').optional(),
  },
  { message: 'must be an object' },
);

export const projectUserAttributes = z.object(
  {
    user_id: idIn('is required (a team member id)'),
    role: projectUserRole.default('regular_user'),
    hourly_rate: rate.optional(),
    approval_type: approvalType.default('manual_approval'),
  },
  { message: 'must be an object with a user_id' },
);

export const createProjectFields = z.object(
  {
    name: nonEmptyText(200),
    client_id: idIn('is required (the id of a client)'),
    billing_method: billingMethod,
    ...projectSettings,
    tasks_attributes: z.array(taskCreate).max(500, 'at most 500 tasks').optional(),
    project_users_attributes: z.array(projectUserAttributes).max(500, 'at most 500 project users').optional(),
    /** Accepted only to be refused clearly unless `active`: status changes through endpoint 12. */
    status: z.unknown().optional(),
  },
  { message: 'is required (an object with the project fields)' },
);

export const updateProjectFields = z.object(
  {
    name: nonEmptyText(200).optional(),
    client_id: idIn().optional(),
    billing_method: billingMethod.optional(),
    ...projectSettings,
    tasks_attributes: z.array(taskUpdate).max(500, 'at most 500 tasks').optional(),
    /** Accepted only to be refused clearly: project users are added through endpoints 4 and 5. */
    project_users_attributes: z.array(z.unknown()).optional(),
    /** Accepted only to be refused clearly when it would change: status changes through endpoint 12. */
    status: z.unknown().optional(),
  },
  { message: 'is required (an object with the fields to change)' },
);
export type UpdateProjectFields = z.output<typeof updateProjectFields>;

export const createProjectInput = z.object({ project: createProjectFields });
export const updateProjectInput = z.object({ project_id: idIn(), project: updateProjectFields });

export const updateStatusInput = z.object({
  project_ids: z.array(idIn('must be a project id'), { message: 'is required (an array of project ids)' }).max(1000, 'at most 1000 ids'),
  status: z.enum(['active', 'archived'], { message: 'must be active or archived' }),
  filter: z
    .object(
      {
        status: z.enum(['active', 'archived'], { message: 'must be active or archived' }).optional(),
        consider_all_projects: flag.optional(),
      },
      { message: 'must be an object' },
    )
    .optional(),
});

export const addProjectUserInput = z.object({
  project_id: idIn(),
  project_user: z.object(
    {
      user_id: idIn('is required (a team member id)'),
      role: projectUserRole.default('regular_user'),
      hourly_rate: rate.optional(),
      approval_type: approvalType.default('manual_approval'),
    },
    { message: 'is required (an object with user_id and role)' },
  ),
});

/**
 * Changes one project user (the vendor's PATCH .../project_users/{id}); only the given fields
 * change. The vendor's published v2 example sends no `project_user` at all: nothing changes then.
 */
export const updateProjectUserInput = z.object({
  project_id: idIn(),
  project_user_id: idIn(),
  project_user: z
    .object(
      {
        role: projectUserRole.optional(),
        hourly_rate: rate.optional(),
        approval_type: approvalType.optional(),
      },
      { message: 'must be an object with role, hourly_rate or approval_type' },
    )
    .optional(),
});

export const projectIdInput = z.object({ project_id: idIn() });

export const listProjectsInput = z.object({
  ...cursorInput,
  client_id: idIn().optional(),
  status: z.enum(['active', 'archived']).optional(),
  updated_since: dateTime.optional(),
});

export const listTasksInput = z.object({
  ...cursorInput,
  project_id: idIn(),
  archived: z.boolean().optional(),
  updated_since: dateTime.optional(),
});

// ---- responses

const flagText = z.enum(['true', 'false']);

const checklistItemRecord = z.object({ id: idOut, description: z.string() });

export const taskRecord = z.object({
  id: idOut,
  name: z.string(),
  billable: z.boolean(),
  hourly_rate: z.number(),
  archived: z.boolean(),
  checklist_items: z.array(checklistItemRecord),
});
export type TaskRecord = z.infer<typeof taskRecord>;

/** The spec's project object, plus `tasks` (docs/design.md §5). */
export const projectRecord = z.object({
  id: idOut,
  client_id: idOut,
  name: z.string(),
  identifier: z.string(),
  billing_method: z.enum(billingMethods),
  /**
   * Decimal text with the currency's decimals (`"1500.00"`), null when none is stored. Billed only
   * on a fixed-price project; on the others it is kept as sent.
   */
  flat_amount: z.string().nullable(),
  status: z.enum(['active', 'archived']),
  last_invoice_id: idOut.nullable(),
  internal_notes: z.string(),
  currency: z.string(),
  reply_to: emailOut.nullable(),
  timesheet_approval_email_notification_day: z.enum(weekDays).nullable(),
  timesheet_approval_email_notification_time: z.string().nullable(),
  created_at: dateTimeOut,
  updated_at: dateTimeOut,
  hourly_rate: z.number(),
  time_round_upto: z.number().int(),
  autolock_enabled: z.boolean(),
  enable_approvals: z.boolean(),
  notify_timesheet_approval_request_instantly: z.boolean(),
  autolock_settings: z.object({ end_of_the_day: flagText, end_of_the_week: flagText, end_of_the_month: flagText }),
  tasks: z.array(taskRecord),
});
export type ProjectRecord = z.infer<typeof projectRecord>;

export const projectUserRecord = z.object({
  id: idOut,
  user_id: idOut,
  role: z.enum(projectUserRoles),
  hourly_rate: z.number(),
  name: z.string(),
  email: emailOut,
  time_zone: z.string(),
});
export type ProjectUserRecord = z.infer<typeof projectUserRecord>;

export const projectUserDetail = projectUserRecord.extend({ approval_type: z.enum(approvalTypes), active: z.boolean() });
export type ProjectUserDetail = z.infer<typeof projectUserDetail>;

/** Endpoints 11 and 10: one shape each, so the document states the one notice each answers with. */
export const createProjectOutput = z.object({ notice_code: z.literal('project_created'), project: projectRecord });
export const updateProjectOutput = z.object({ notice_code: z.literal('project_updated'), project: projectRecord });
export const updateStatusOutput = z.object({ custom_message: z.string() });
export const addProjectUserOutput = z.object({ notice_code: z.literal('project_user_added'), project_user: projectUserRecord });
export const updateProjectUserOutput = z.object({ notice_code: z.literal('project_user_updated'), project_user: projectUserRecord });
export const listProjectUsersOutput = z.object({ project_users: z.array(projectUserRecord) });
export const getProjectOutput = z.object({ project: projectRecord.extend({ project_users: z.array(projectUserDetail) }) });
export const listProjectsOutput = z.object({ items: z.array(projectRecord), next_cursor: z.string().nullable() });
export const listTasksOutput = z.object({ items: z.array(taskRecord), next_cursor: z.string().nullable() });
