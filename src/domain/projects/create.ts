import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type * as z from 'zod';
import { clients, projects, projectUsers } from '../../db/schema/index.ts';
import { notFound, unprocessable } from '../../errors.ts';
import { requireAdmin } from '../access.ts';
import { recordEvent } from '../events.ts';
import { insertMany } from '../queries.ts';
import type { ActorScope } from '../scope.ts';
import { nextProjectIdentifier } from './identifiers.ts';
import { Problems } from './problems.ts';
import { planInitialProjectUsers } from './project-users-plan.ts';
import { loadProjectWithTasks } from './queries.ts';
import { toProjectRecord, type ProjectRow } from './records.ts';
import type { createProjectInput, createProjectOutput } from './schemas.ts';
import { DEFAULT_SETTINGS, resolveSettings } from './settings.ts';
import { applyTaskPlan, planTasks } from './task-plan.ts';

/**
 * Endpoint 11. Project, tasks, checklist items and project users are written in one transaction,
 * after every rule has been checked, so a refused request leaves nothing behind.
 */
export function createProject(scope: ActorScope, input: z.output<typeof createProjectInput>): z.output<typeof createProjectOutput> {
  requireAdmin(scope, 'create projects');
  const fields = input.project;
  return scope.write((tx) => {
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
    const at = scope.now.toISOString();
    const id = randomUUID();
    const common = { currency, defaultRateMinor: settings.hourlyRateMinor, now: at, problems };
    const taskPlan = planTasks({ ...common, projectId: id, existingTasks: [], existingItems: [], attributes: fields.tasks_attributes ?? [] });
    const users = planInitialProjectUsers({ ...common, db: tx, projectId: id, attributes: fields.project_users_attributes ?? [], actor: scope.actor });
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
    insertMany(tx, projectUsers, users);
    const project = toProjectRecord(loadProjectWithTasks(scope, id));
    recordEvent(scope, 'project.created', { project });
    return { notice_code: 'project_created', project };
  });
}
