import { asc, eq, gt } from 'drizzle-orm';
import type * as z from 'zod';
import { checklistItems, tasks } from '../../db/schema/index.ts';
import { groupBy, inIds, keysetPage, mapPage } from '../queries.ts';
import type { Scope } from '../scope.ts';
import { getProjectRow } from './queries.ts';
import { toTaskRecord } from './records.ts';
import type { listTasksInput, listTasksOutput } from './schemas.ts';
import { requireProjectManager } from './access.ts';

/** tRPC `tasks.list`: a project's tasks with their checklist items, keyset-paginated. */
export function listTasks(scope: Scope, input: z.output<typeof listTasksInput>): z.output<typeof listTasksOutput> {
  requireProjectManager(scope, input.project_id, 'see this project');
  const project = getProjectRow(scope, input.project_id);
  const page = keysetPage(
    scope.db.select().from(tasks).$dynamic(),
    tasks,
    [
      eq(tasks.projectId, project.id),
      input.archived === undefined ? undefined : eq(tasks.archived, input.archived),
      input.updated_since ? gt(tasks.updatedAt, input.updated_since) : undefined,
    ],
    input,
  );
  const items = scope.db
    .select()
    .from(checklistItems)
    .where(
      inIds(
        checklistItems.taskId,
        page.items.map((t) => t.id),
      ),
    )
    .orderBy(asc(checklistItems.position), asc(checklistItems.id))
    .all();
  const byTask = groupBy(items, (i) => i.taskId);
  return mapPage(page, (rows) => rows.map((t) => toTaskRecord({ ...t, checklistItems: byTask.get(t.id) ?? [] }, project.currency)));
}
