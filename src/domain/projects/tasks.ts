import { randomUUID } from 'node:crypto';
import { and, asc, eq, gt, inArray } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '../../db/index.ts';
import { checklistItems, tasks, timeEntries } from '../../db/schema/index.ts';
import type { WorkspaceHandle } from '../../workspaces/handle.ts';
import { afterCursor, keysetOrder, pageOf } from '../pagination.ts';
import type { Problems } from './problems.ts';
import { getProjectRow, groupItemsByTask, toTaskRecord, type ChecklistItemRow, type TaskRow } from './records.ts';
import type { listTasksInput, TaskRecord, UpdateProjectFields } from './schemas.ts';

export type TaskAttributes = NonNullable<UpdateProjectFields['tasks_attributes']>[number];

export interface TaskPlan {
  taskInserts: TaskRow[];
  taskUpdates: { id: string; set: Partial<TaskRow> & { updatedAt: string } }[];
  itemInserts: ChecklistItemRow[];
  itemUpdates: { id: string; set: Partial<ChecklistItemRow> }[];
}

const nextPosition = (rows: readonly { position: number }[]) => rows.reduce((max, r) => Math.max(max, r.position), 0) + 1;

/**
 * What `tasks_attributes` asks for, checked against the project's current tasks and items before
 * anything is written: an entry with `id` changes that task (which must be this project's), one
 * without creates a task; checklist items likewise within their task. Tasks are never deleted,
 * only archived, because time entries point at them.
 */
export function planTasks(opts: {
  projectId: string;
  existingTasks: readonly TaskRow[];
  existingItems: readonly ChecklistItemRow[];
  attributes: readonly TaskAttributes[];
  currency: string;
  /** A new task without `hourly_rate` bills at the project's rate. */
  defaultRateMinor: number;
  now: string;
  problems: Problems;
}): TaskPlan {
  const { projectId, attributes, currency, defaultRateMinor, now, problems } = opts;
  const plan: TaskPlan = { taskInserts: [], taskUpdates: [], itemInserts: [], itemUpdates: [] };
  const tasksById = new Map(opts.existingTasks.map((t) => [t.id, t]));
  const itemsByTask = groupItemsByTask(opts.existingItems);
  let taskPosition = nextPosition(opts.existingTasks);
  const seenTasks = new Set<string>();
  const seenItems = new Set<string>();

  attributes.forEach((attrs, i) => {
    const path = `project.tasks_attributes.${i}`;
    const rate = attrs.hourly_rate === undefined ? undefined : problems.minor(`${path}.hourly_rate`, attrs.hourly_rate, currency);
    let taskId: string;
    let taskItems: readonly ChecklistItemRow[] = [];
    if (attrs.id !== undefined) {
      const task = tasksById.get(attrs.id);
      if (!task) {
        problems.add(`${path}.id`, 'is not a task of this project');
        return;
      }
      if (seenTasks.has(task.id)) {
        problems.add(`${path}.id`, 'names a task already changed earlier in this list');
        return;
      }
      seenTasks.add(task.id);
      const set: Partial<TaskRow> = {
        ...(attrs.name !== undefined && { name: attrs.name }),
        ...(attrs.billable !== undefined && { billable: attrs.billable }),
        ...(rate != null && { hourlyRateMinor: rate }),
        ...(attrs.archived !== undefined && { archived: attrs.archived }),
      };
      if (Object.keys(set).length > 0) plan.taskUpdates.push({ id: task.id, set: { ...set, updatedAt: now } });
      taskId = task.id;
      taskItems = itemsByTask.get(task.id) ?? [];
    } else {
      if (attrs.name === undefined) {
        problems.add(`${path}.name`, 'is required for a new task (give an id to change an existing one)');
        return;
      }
      const row: TaskRow = {
        id: randomUUID(),
        projectId,
        name: attrs.name,
        billable: attrs.billable ?? true,
        hourlyRateMinor: rate ?? defaultRateMinor,
        archived: attrs.archived ?? false,
        position: taskPosition++,
        createdAt: now,
        updatedAt: now,
      };
      plan.taskInserts.push(row);
      taskId = row.id;
    }

    let itemPosition = nextPosition(taskItems);
    attrs.checklists_attributes?.forEach((item, j) => {
      const itemPath = `${path}.checklists_attributes.${j}`;
      if (item.id !== undefined) {
        const existing = taskItems.find((x) => x.id === item.id);
        if (!existing) problems.add(`${itemPath}.id`, 'is not a checklist item of this task');
        else if (seenItems.has(existing.id)) problems.add(`${itemPath}.id`, 'names a checklist item already changed earlier in this list');
        else {
          seenItems.add(existing.id);
          if (item.description !== undefined && item.description !== existing.description) {
            plan.itemUpdates.push({ id: existing.id, set: { description: item.description, updatedAt: now } });
          }
        }
        return;
      }
      if (item.description === undefined) {
        problems.add(`${itemPath}.description`, 'is required for a new checklist item');
        return;
      }
      plan.itemInserts.push({ id: randomUUID(), taskId, description: item.description, position: itemPosition++, createdAt: now, updatedAt: now });
    });
  });
  return plan;
}

/** SQLite allows at most 32766 bound values per statement; inserts go in slices well under it. */
const SLICE = 500;

/**
 * A task that becomes billable (or stops being so) takes its entries that are not yet invoiced
 * with it, so an entry's status always says whether it can be billed. Entries awaiting approval,
 * rejected or already billed keep their status (approval sets it from the task at that time).
 */
function moveUninvoicedEntries(tx: Db, taskId: string, billable: boolean, at: string): void {
  const [from, to] = billable ? (['non_billable', 'unbilled'] as const) : (['unbilled', 'non_billable'] as const);
  tx.update(timeEntries)
    .set({ status: to, updatedAt: at })
    .where(and(eq(timeEntries.taskId, taskId), eq(timeEntries.status, from)))
    .run();
}

export function applyTaskPlan(tx: Db, plan: TaskPlan): void {
  for (let i = 0; i < plan.taskInserts.length; i += SLICE) tx.insert(tasks).values(plan.taskInserts.slice(i, i + SLICE)).run();
  for (const u of plan.taskUpdates) {
    tx.update(tasks).set(u.set).where(eq(tasks.id, u.id)).run();
    if (u.set.billable !== undefined) moveUninvoicedEntries(tx, u.id, u.set.billable, u.set.updatedAt);
  }
  for (let i = 0; i < plan.itemInserts.length; i += SLICE) tx.insert(checklistItems).values(plan.itemInserts.slice(i, i + SLICE)).run();
  for (const u of plan.itemUpdates) tx.update(checklistItems).set(u.set).where(eq(checklistItems.id, u.id)).run();
}

/** tRPC `tasks.list`: a project's tasks with their checklist items, keyset-paginated. */
export function listTasks(handle: WorkspaceHandle, input: z.output<typeof listTasksInput>): { items: TaskRecord[]; next_cursor: string | null } {
  const project = getProjectRow(handle, input.project_id);
  const rows = handle.db
    .select()
    .from(tasks)
    .where(
      and(
        eq(tasks.projectId, project.id),
        input.archived === undefined ? undefined : eq(tasks.archived, input.archived),
        input.updated_since ? gt(tasks.updatedAt, input.updated_since) : undefined,
        afterCursor(tasks, input.cursor),
      ),
    )
    .orderBy(...keysetOrder(tasks))
    .limit(input.limit + 1)
    .all();
  const page = pageOf(rows, input.limit);
  const taskIds = page.items.map((t) => t.id);
  const items =
    taskIds.length === 0
      ? []
      : handle.db
          .select()
          .from(checklistItems)
          .where(inArray(checklistItems.taskId, taskIds))
          .orderBy(asc(checklistItems.position), asc(checklistItems.id))
          .all();
  const byTask = groupItemsByTask(items);
  return { items: page.items.map((t) => toTaskRecord(t, byTask.get(t.id) ?? [], project.currency)), next_cursor: page.next_cursor };
}
