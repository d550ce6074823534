import { randomUUID } from 'node:crypto';
import { and, eq, gt } from 'drizzle-orm';
import type { z } from 'zod';
import { clients, projects, projectUsers } from '../../db/schema/index.ts';
import { notFound, unprocessable } from '../../errors.ts';
import type { ActingUser } from '../team-members/acting-user.ts';
import type { WorkspaceHandle } from '../../workspaces/handle.ts';
import { afterCursor, keysetOrder, pageOf } from '../pagination.ts';
import { requireAdmin } from '../team-members/acting-user.ts';
import { requireProjectAdmin } from './access.ts';
import { nextProjectIdentifier } from './identifiers.ts';
import { Problems } from './problems.ts';
import { planInitialProjectUsers } from './project-users.ts';
import {
  getProjectRow,
  loadProjectRecord,
  loadProjectRecords,
  projectStatements,
  toProjectUserDetail,
  type ProjectRow,
} from './records.ts';
import type { CreateProjectFields, listProjectsInput, ProjectRecord, UpdateProjectFields, getProjectOutput } from './schemas.ts';
import { DEFAULT_SETTINGS, resolveSettings } from './settings.ts';
import { applyTaskPlan, planTasks } from './tasks.ts';

const SLICE = 500;

/**
 * Endpoint 11. Project, tasks, checklist items and project users are written in one transaction,
 * after every rule has been checked, so a refused request leaves nothing behind.
 */
export function createProject(handle: WorkspaceHandle, actor: ActingUser, fields: CreateProjectFields, now: Date): ProjectRecord {
  requireAdmin(actor, 'create projects');
  return handle.db.transaction((tx) => {
    const client = tx.select().from(clients).where(eq(clients.id, fields.client_id)).get();
    if (!client) throw notFound('client', `No client with id ${fields.client_id} in this workspace`);
    if (client.status === 'archived') {
      throw unprocessable('client_archived', `The client ${client.name} is archived; reactivate it before adding projects`);
    }
    const problems = new Problems();
    if (fields.status !== undefined && fields.status !== 'active') problems.add('project.status', 'a new project is active; status changes only through POST /projects/update_status (endpoint 12)');
    if (fields.currency !== undefined && fields.currency !== client.currency) {
      problems.add('project.currency', `must be the client's currency, ${client.currency} (invoices are issued in it)`);
    }
    const currency = client.currency;
    const settings = resolveSettings({ ...DEFAULT_SETTINGS, billingMethod: null }, fields, currency, problems);
    const at = now.toISOString();
    const id = randomUUID();
    const taskPlan = planTasks({
      projectId: id,
      existingTasks: [],
      existingItems: [],
      attributes: fields.tasks_attributes ?? [],
      currency,
      defaultRateMinor: settings.hourlyRateMinor,
      now: at,
      problems,
    });
    const users = planInitialProjectUsers({
      db: tx,
      projectId: id,
      attributes: fields.project_users_attributes ?? [],
      actor,
      currency,
      defaultRateMinor: settings.hourlyRateMinor,
      now: at,
      problems,
    });
    problems.throwIfAny();

    const row: ProjectRow = {
      id,
      clientId: client.id,
      name: fields.name,
      identifier: nextProjectIdentifier(tx, client.identifier),
      currency,
      status: 'active',
      lastInvoiceId: null,
      ...settings,
      createdAt: at,
      updatedAt: at,
    };
    tx.insert(projects).values(row).run();
    applyTaskPlan(tx, taskPlan);
    for (let i = 0; i < users.length; i += SLICE) tx.insert(projectUsers).values(users.slice(i, i + SLICE)).run();
    return loadProjectRecord(handle, row);
  });
}

/**
 * Endpoint 10: only the given fields change; the billing rules are checked on the project as it
 * would be afterwards. Tasks and checklist items with an `id` are changed, others added.
 */
export function updateProject(handle: WorkspaceHandle, actor: ActingUser, projectId: string, fields: UpdateProjectFields, now: Date): ProjectRecord {
  return handle.db.transaction((tx) => {
    const current = getProjectRow(handle, projectId);
    requireProjectAdmin(handle, actor, current.id, 'update this project');
    const problems = new Problems();
    if (fields.client_id !== undefined && fields.client_id !== current.clientId) {
      problems.add('project.client_id', 'cannot change: a project and its time entries stay with the client it was created for');
    }
    if (fields.currency !== undefined && fields.currency !== current.currency) {
      problems.add('project.currency', `cannot change: the project's amounts are kept in ${current.currency}`);
    }
    if (fields.status !== undefined && fields.status !== current.status) problems.add('project.status', 'changes only through POST /projects/update_status (endpoint 12)');
    if (fields.project_users_attributes !== undefined && fields.project_users_attributes.length > 0) {
      problems.add('project.project_users_attributes', 'is accepted on create only; add users with POST /projects/{project_id}/project_users');
    }
    const settings = resolveSettings(current, fields, current.currency, problems);
    const at = now.toISOString();
    const st = handle.memo(projectStatements);
    const taskPlan = fields.tasks_attributes?.length
      ? planTasks({
          projectId: current.id,
          existingTasks: st.tasksOfProject.all({ projectId: current.id }),
          existingItems: st.itemsOfProject.all({ projectId: current.id }),
          attributes: fields.tasks_attributes,
          currency: current.currency,
          defaultRateMinor: settings.hourlyRateMinor,
          now: at,
          problems,
        })
      : null;
    problems.throwIfAny();

    const next: ProjectRow = { ...current, ...settings, name: fields.name ?? current.name, updatedAt: at };
    tx.update(projects).set(next).where(eq(projects.id, current.id)).run();
    if (taskPlan) applyTaskPlan(tx, taskPlan);
    return loadProjectRecord(handle, next);
  });
}

/** tRPC `projects.get`: the project with its tasks, checklist items and users. */
export function getProject(handle: WorkspaceHandle, projectId: string): z.output<typeof getProjectOutput> {
  const row = getProjectRow(handle, projectId);
  const users = handle.memo(projectStatements).usersOfProject.all({ projectId: row.id });
  return { project: { ...loadProjectRecord(handle, row), project_users: users.map((u) => toProjectUserDetail(u, row.currency)) } };
}

/** tRPC `projects.list`: keyset pages by creation, filtered by client, status and change time. */
export function listProjects(handle: WorkspaceHandle, input: z.output<typeof listProjectsInput>): { items: ProjectRecord[]; next_cursor: string | null } {
  const rows = handle.db
    .select()
    .from(projects)
    .where(
      and(
        input.client_id === undefined ? undefined : eq(projects.clientId, input.client_id),
        input.status === undefined ? undefined : eq(projects.status, input.status),
        input.updated_since ? gt(projects.updatedAt, input.updated_since) : undefined,
        afterCursor(projects, input.cursor),
      ),
    )
    .orderBy(...keysetOrder(projects))
    .limit(input.limit + 1)
    .all();
  const page = pageOf(rows, input.limit);
  return { items: loadProjectRecords(handle.db, page.items), next_cursor: page.next_cursor };
}
