import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { bool, id, timestamps } from './columns.ts';
import { clients } from './clients.ts';
import { teamMembers } from './workspace.ts';

export const billingMethods = ['hourly_project_rate', 'hourly_person_rate', 'hourly_task_rate', 'fixed_price_project'] as const;
export const weekDays = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;

export const projects = sqliteTable(
  'projects',
  {
    id: id(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id),
    name: text('name').notNull(),
    /** Readable and unique, e.g. `ACME-0001`. */
    identifier: text('identifier').notNull(),
    billingMethod: text('billing_method', { enum: billingMethods }).notNull(),
    /** Money in integer minor units of `currency`. */
    hourlyRateMinor: integer('hourly_rate_minor').notNull().default(0),
    flatAmountMinor: integer('flat_amount_minor'),
    currency: text('currency').notNull(),
    internalNotes: text('internal_notes').notNull().default(''),
    status: text('status', { enum: ['active', 'archived'] }).notNull().default('active'),
    timeRoundUpto: integer('time_round_upto').notNull().default(0),
    autolockEnabled: bool('autolock_enabled').notNull().default(false),
    lockEndOfDay: bool('lock_end_of_day').notNull().default(false),
    lockEndOfWeek: bool('lock_end_of_week').notNull().default(false),
    lockEndOfMonth: bool('lock_end_of_month').notNull().default(false),
    replyTo: text('reply_to'),
    enableApprovals: bool('enable_approvals').notNull().default(false),
    notifyInstantly: bool('notify_instantly').notNull().default(false),
    notifyWeekly: bool('notify_weekly').notNull().default(false),
    notificationDay: text('notification_day', { enum: weekDays }),
    /** `HH:MM`, 24-hour, in the workspace's time zone. */
    notificationTime: text('notification_time'),
    lastInvoiceId: text('last_invoice_id'),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('projects_identifier_idx').on(t.identifier),
    index('projects_client_idx').on(t.clientId, t.createdAt),
    index('projects_status_idx').on(t.status),
    index('projects_created_idx').on(t.createdAt, t.id),
    index('projects_updated_idx').on(t.updatedAt),
  ],
);

export const tasks = sqliteTable(
  'tasks',
  {
    id: id(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id),
    name: text('name').notNull(),
    billable: bool('billable').notNull().default(true),
    hourlyRateMinor: integer('hourly_rate_minor').notNull().default(0),
    archived: bool('archived').notNull().default(false),
    position: integer('position').notNull(),
    ...timestamps,
  },
  (t) => [index('tasks_project_idx').on(t.projectId, t.position)],
);

export const checklistItems = sqliteTable(
  'checklist_items',
  {
    id: id(),
    taskId: text('task_id')
      .notNull()
      .references(() => tasks.id),
    description: text('description').notNull(),
    position: integer('position').notNull(),
    ...timestamps,
  },
  (t) => [index('checklist_items_task_idx').on(t.taskId, t.position)],
);

export const projectUserRoles = ['project_manager', 'regular_user'] as const;
export const approvalTypes = ['manual_approval', 'auto_approval'] as const;

export const projectUsers = sqliteTable(
  'project_users',
  {
    id: id(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id),
    userId: text('user_id')
      .notNull()
      .references(() => teamMembers.id),
    role: text('role', { enum: projectUserRoles }).notNull(),
    hourlyRateMinor: integer('hourly_rate_minor').notNull().default(0),
    approvalType: text('approval_type', { enum: approvalTypes }).notNull().default('manual_approval'),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('project_users_project_user_idx').on(t.projectId, t.userId),
    index('project_users_user_idx').on(t.userId),
  ],
);
