import type { checklistItems, projects, projectUsers, tasks } from '../../db/schema/index.ts';
import { currencyDecimals, fromMinor, minorToDecimalString } from '../money.ts';
import { fullName } from '../team-members/records.ts';
import type { ProjectRecord, ProjectUserDetail, ProjectUserRecord, TaskRecord } from './schemas.ts';

export type ProjectRow = typeof projects.$inferSelect;
export type TaskRow = typeof tasks.$inferSelect;
export type ChecklistItemRow = typeof checklistItems.$inferSelect;
export type ProjectUserRow = typeof projectUsers.$inferSelect;

export type TaskWithItems = TaskRow & { checklistItems: ChecklistItemRow[] };
export type ProjectWithTasks = ProjectRow & { tasks: TaskWithItems[] };

/** A project user with the team member fields its response needs. */
interface ProjectUserWithMember extends ProjectUserRow {
  firstName: string;
  lastName: string;
  memberEmail: string;
  timeZone: string;
  active: boolean;
}

const flagText = (value: boolean) => (value ? 'true' : 'false');

export function toTaskRecord(task: TaskWithItems, currency: string): TaskRecord {
  return {
    id: task.id,
    name: task.name,
    billable: task.billable,
    hourly_rate: fromMinor(task.hourlyRateMinor, currency),
    archived: task.archived,
    checklist_items: task.checklistItems.map((i) => ({ id: i.id, description: i.description })),
  };
}

/** The one builder of the project response, for create, update, get and list. */
export function toProjectRecord(row: ProjectWithTasks): ProjectRecord {
  return {
    id: row.id,
    client_id: row.clientId,
    name: row.name,
    identifier: row.identifier,
    billing_method: row.billingMethod,
    flat_amount: row.flatAmountMinor === null ? null : minorToDecimalString(row.flatAmountMinor, currencyDecimals(row.currency)),
    status: row.status,
    last_invoice_id: row.lastInvoiceId,
    internal_notes: row.internalNotes,
    currency: row.currency,
    reply_to: row.replyTo,
    timesheet_approval_email_notification_day: row.notificationDay,
    timesheet_approval_email_notification_time: row.notificationTime,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    hourly_rate: fromMinor(row.hourlyRateMinor, row.currency),
    time_round_upto: row.timeRoundUpto,
    autolock_enabled: row.autolockEnabled,
    enable_approvals: row.enableApprovals,
    notify_timesheet_approval_request_instantly: row.notifyInstantly,
    autolock_settings: {
      end_of_the_day: flagText(row.lockEndOfDay),
      end_of_the_week: flagText(row.lockEndOfWeek),
      end_of_the_month: flagText(row.lockEndOfMonth),
    },
    tasks: row.tasks.map((t) => toTaskRecord(t, row.currency)),
  };
}

export function toProjectUserRecord(row: ProjectUserWithMember, currency: string): ProjectUserRecord {
  return {
    id: row.id,
    user_id: row.userId,
    role: row.role,
    hourly_rate: fromMinor(row.hourlyRateMinor, currency),
    name: fullName(row),
    email: row.memberEmail,
    time_zone: row.timeZone,
  };
}

export const toProjectUserDetail = (row: ProjectUserWithMember, currency: string): ProjectUserDetail => ({
  ...toProjectUserRecord(row, currency),
  approval_type: row.approvalType,
  active: row.active,
});
