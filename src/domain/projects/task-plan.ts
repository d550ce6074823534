import { randomUUID } from 'node:crypto';
import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { checklistItems, tasks, timeEntries, timeEntryCombos } from '../../db/schema/index.ts';
import { groupBy, insertMany } from '../queries.ts';
import type { Problems } from './problems.ts';
import type { ChecklistItemRow, TaskRow } from './records.ts';
import type { UpdateProjectFields } from './schemas.ts';

type TaskAttributes = NonNullable<UpdateProjectFields['tasks_attributes']>[number];
type ChecklistAttributes = NonNullable<TaskAttributes['checklists_attributes']>[number];

interface TaskPlan {
  projectId: string;
  taskInserts: TaskRow[];
  taskUpdates: { id: string; set: Partial<TaskRow> & { updatedAt: string } }[];
  itemInserts: ChecklistItemRow[];
  itemUpdates: { id: string; set: Partial<ChecklistItemRow> }[];
}

interface TaskPlanInput {
  projectId: string;
  existingTasks: readonly TaskRow[];
  existingItems: readonly ChecklistItemRow[];
  attributes: readonly TaskAttributes[];
  currency: string;
  /** A new task without `hourly_rate` bills at the project's rate. */
  defaultRateMinor: number;
  now: string;
  problems: Problems;
}

const nextPosition = (rows: readonly { position: number }[]) => rows.reduce((max, r) => Math.max(max, r.position), 0) + 1;

/** The state a plan is built up in, one `tasks_attributes` entry after another. */
interface Planning extends TaskPlanInput {
  plan: TaskPlan;
  tasksById: Map<string, TaskRow>;
  itemsByTask: Map<string, ChecklistItemRow[]>;
  seenTasks: Set<string>;
  seenItems: Set<string>;
  taskPosition: number;
}

/**
 * What `tasks_attributes` asks for, checked against the project's current tasks and items before
 * anything is written: an entry with `id` changes that task (which must be this project's), one
 * without creates a task; checklist items likewise within their task. Tasks are never deleted,
 * only archived, because time entries point at them.
 */
export function planTasks(input: TaskPlanInput): TaskPlan {
  const state: Planning = {
    ...input,
    plan: { projectId: input.projectId, taskInserts: [], taskUpdates: [], itemInserts: [], itemUpdates: [] },
    tasksById: new Map(input.existingTasks.map((t) => [t.id, t])),
    itemsByTask: groupBy(input.existingItems, (i) => i.taskId),
    seenTasks: new Set(),
    seenItems: new Set(),
    taskPosition: nextPosition(input.existingTasks),
  };
  input.attributes.forEach((attrs, i) => {
    const path = `project.tasks_attributes.${i}`;
    const rate = attrs.hourly_rate === undefined ? undefined : input.problems.minor(`${path}.hourly_rate`, attrs.hourly_rate, input.currency);
    const taskId = attrs.id !== undefined ? planTaskChange(state, attrs, path, rate) : planNewTask(state, attrs, path, rate);
    if (taskId === null) return;
    const taskItems = state.itemsByTask.get(taskId) ?? [];
    let itemPosition = nextPosition(taskItems);
    attrs.checklists_attributes?.forEach((item, j) => {
      if (planChecklistItem(state, taskId, taskItems, item, `${path}.checklists_attributes.${j}`, itemPosition)) itemPosition++;
    });
  });
  return state.plan;
}

/** An entry with `id`: the changes to that task; null when it names no task of this project. */
function planTaskChange(state: Planning, attrs: TaskAttributes, path: string, rate: number | null | undefined): string | null {
  const task = state.tasksById.get(attrs.id as string);
  if (!task) {
    state.problems.add(`${path}.id`, 'is not a task of this project');
    return null;
  }
  if (state.seenTasks.has(task.id)) {
    state.problems.add(`${path}.id`, 'names a task already changed earlier in this list');
    return null;
  }
  state.seenTasks.add(task.id);
  const set: Partial<TaskRow> = {
    ...(attrs.name !== undefined && { name: attrs.name }),
    ...(attrs.billable !== undefined && { billable: attrs.billable }),
    ...(rate != null && { hourlyRateMinor: rate }),
    ...(attrs.archived !== undefined && { archived: attrs.archived }),
  };
  if (Object.keys(set).length > 0) state.plan.taskUpdates.push({ id: task.id, set: { ...set, updatedAt: state.now } });
  return task.id;
}

/** An entry without `id`: a new task at the end of the list; null when it has no name. */
function planNewTask(state: Planning, attrs: TaskAttributes, path: string, rate: number | null | undefined): string | null {
  if (attrs.name === undefined) {
    state.problems.add(`${path}.name`, 'is required for a new task (give an id to change an existing one)');
    return null;
  }
  const row: TaskRow = {
    id: randomUUID(),
    projectId: state.projectId,
    name: attrs.name,
    billable: attrs.billable ?? true,
    hourlyRateMinor: rate ?? state.defaultRateMinor,
    archived: attrs.archived ?? false,
    position: state.taskPosition++,
    createdAt: state.now,
    updatedAt: state.now,
  };
  state.plan.taskInserts.push(row);
  return row.id;
}

/** One checklist item of a task: changed when it has an `id`, else added. True when it was added. */
function planChecklistItem(
  state: Planning,
  taskId: string,
  taskItems: readonly ChecklistItemRow[],
  item: ChecklistAttributes,
  path: string,
  position: number,
): boolean {
  if (item.id !== undefined) {
    const existing = taskItems.find((x) => x.id === item.id);
    if (!existing) state.problems.add(`${path}.id`, 'is not a checklist item of this task');
    else if (state.seenItems.has(existing.id)) state.problems.add(`${path}.id`, 'names a checklist item already changed earlier in this list');
    else {
      state.seenItems.add(existing.id);
      if (item.description !== undefined && item.description !== existing.description) {
        state.plan.itemUpdates.push({ id: existing.id, set: { description: item.description, updatedAt: state.now } });
      }
    }
    return false;
  }
  if (item.description === undefined) {
    state.problems.add(`${path}.description`, 'is required for a new checklist item');
    return false;
  }
  state.plan.itemInserts.push({ id: randomUUID(), taskId, description: item.description, position, createdAt: state.now, updatedAt: state.now });
  return true;
}

/**
 * A task that becomes billable (or stops being so) takes its entries that are not yet invoiced
 * with it, so an entry's status always says whether it can be billed. Entries awaiting approval,
 * rejected or already billed keep their status (approval sets it from the task at that time).
 */
function moveUninvoicedEntries(tx: Db, projectId: string, taskId: string, billable: boolean, at: string): void {
  const [from, to] = billable ? (['non_billable', 'unbilled'] as const) : (['unbilled', 'non_billable'] as const);
  // The task's entries by their combinations' numbers, which lead the reports' index.
  const combos = tx
    .select({ id: timeEntryCombos.id })
    .from(timeEntryCombos)
    .where(and(eq(timeEntryCombos.projectId, projectId), eq(timeEntryCombos.taskId, taskId)));
  tx.update(timeEntries)
    .set({ status: to, updatedAt: at })
    .where(and(inArray(timeEntries.comboId, combos), eq(timeEntries.status, from)))
    .run();
}

export function applyTaskPlan(tx: Db, plan: TaskPlan): void {
  insertMany(tx, tasks, plan.taskInserts);
  for (const u of plan.taskUpdates) {
    tx.update(tasks).set(u.set).where(eq(tasks.id, u.id)).run();
    if (u.set.billable !== undefined) moveUninvoicedEntries(tx, plan.projectId, u.id, u.set.billable, u.set.updatedAt);
  }
  insertMany(tx, checklistItems, plan.itemInserts);
  for (const u of plan.itemUpdates) tx.update(checklistItems).set(u.set).where(eq(checklistItems.id, u.id)).run();
}
