import { eq } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { clients, projects, projectUsers, tasks } from '../../db/schema/index.ts';
import { inIds } from '../queries.ts';
import type { BillableEntry, RateFacts } from './lines.ts';

/*
 * The facts an hourly rate is chosen from (docs/design.md §5): each project's billing method, rate
 * and currency, each task's rate and whether it is billable, each project member's rate. Invoices
 * and reports read them once per request for the projects involved and look each entry up here,
 * instead of joining three tables for every entry.
 */

export interface ProjectFacts {
  clientId: string;
  clientCurrency: string;
  billingMethod: (typeof projects.$inferSelect)['billingMethod'];
  projectRateMinor: number;
  projectCurrency: string;
}

export interface PricingFacts {
  projects: Map<string, ProjectFacts>;
  tasks: Map<string, { rateMinor: number; billable: boolean }>;
  /** Project user rates by `project|person`. */
  personRates: Map<string, number>;
}

/** The rate facts of the given projects (every project when null), read in three small queries. */
export function readPricingFacts(db: Db, projectIds: readonly string[] | null): PricingFacts {
  const projectRows = db
    .select({
      id: projects.id,
      clientId: projects.clientId,
      clientCurrency: clients.currency,
      billingMethod: projects.billingMethod,
      projectRateMinor: projects.hourlyRateMinor,
      projectCurrency: projects.currency,
    })
    .from(projects)
    .innerJoin(clients, eq(clients.id, projects.clientId))
    .where(projectIds ? inIds(projects.id, projectIds) : undefined)
    .all();
  const taskRows = db
    .select({ id: tasks.id, rateMinor: tasks.hourlyRateMinor, billable: tasks.billable })
    .from(tasks)
    .where(projectIds ? inIds(tasks.projectId, projectIds) : undefined)
    .all();
  const userRows = db
    .select({ projectId: projectUsers.projectId, userId: projectUsers.userId, rateMinor: projectUsers.hourlyRateMinor })
    .from(projectUsers)
    .where(projectIds ? inIds(projectUsers.projectId, projectIds) : undefined)
    .all();
  return {
    projects: new Map(projectRows.map(({ id, ...facts }) => [id, facts])),
    tasks: new Map(taskRows.map(({ id, ...facts }) => [id, facts])),
    personRates: new Map(userRows.map((r) => [`${r.projectId}|${r.userId}`, r.rateMinor])),
  };
}

/** An entry's rate facts and whether its task is billable now; null when its project or task is unknown. */
export function rateFactsOf(facts: PricingFacts, projectId: string, taskId: string, userId: string): (RateFacts & Pick<BillableEntry, 'taskBillable'>) | null {
  const project = facts.projects.get(projectId);
  const task = facts.tasks.get(taskId);
  if (!project || !task) return null;
  return {
    billingMethod: project.billingMethod,
    projectRateMinor: project.projectRateMinor,
    projectCurrency: project.projectCurrency,
    taskRateMinor: task.rateMinor,
    personRateMinor: facts.personRates.get(`${projectId}|${userId}`) ?? null,
    taskBillable: task.billable,
  };
}
