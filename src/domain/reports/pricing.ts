import { eq } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { clients, projects, projectUsers, tasks } from '../../db/schema/index.ts';
import { defaultHourlyRateMinor } from '../invoices/lines.ts';
import { inIds } from '../queries.ts';
import type { TimeEntryStatus } from './schemas.ts';

/**
 * What a report needs to know to value a time entry: the client's currency, the hourly rate an
 * invoice would bill it at today (the invoices' own rule, `defaultHourlyRateMinor`) and whether its
 * task is billable now. The rate depends only on the entry's project, task and person, so it is
 * worked out once per such combination, never per entry.
 */
export interface ComboFacts {
  clientId: string;
  currency: string;
  /** Minor units per hour; null when an invoice could not price the entry without an explicit rate. */
  rateMinor: number | null;
  billableNow: boolean;
}

interface ProjectFacts {
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

/** The facts of one (project, task, person) combination, priced by the invoices' rule. */
export function comboFacts(facts: PricingFacts, projectId: string, taskId: string, userId: string): ComboFacts | null {
  const project = facts.projects.get(projectId);
  const task = facts.tasks.get(taskId);
  if (!project || !task) return null;
  const rateMinor = defaultHourlyRateMinor(
    {
      billingMethod: project.billingMethod,
      projectRateMinor: project.projectRateMinor,
      projectCurrency: project.projectCurrency,
      taskRateMinor: task.rateMinor,
      personRateMinor: facts.personRates.get(`${projectId}|${userId}`) ?? null,
    },
    project.clientCurrency,
  );
  return { clientId: project.clientId, currency: project.clientCurrency, rateMinor, billableNow: task.billable };
}

/*
 * Which entries count as billable work, and which an invoice could take now, as SQL over a status
 * column and a 0/1 "task billable now" column: billed entries, and entries an invoice could still
 * take (now, or once approved) while their task is billable; an invoice takes only `unbilled`
 * entries of billable tasks (lines.ts refuses every other status and non-billable tasks).
 */

/** Statuses that may still be invoiced (after approval) when the task is billable. */
const OPEN_STATUSES: readonly TimeEntryStatus[] = ['unbilled', 'pending_approval'];

export const billableSql = (status: string, billableNow: string) =>
  `(${status} = 'billed' OR (${status} IN (${OPEN_STATUSES.map((s) => `'${s}'`).join(', ')}) AND ${billableNow} = 1))`;

export const invoiceableSql = (status: string, billableNow: string) => `(${status} = 'unbilled' AND ${billableNow} = 1)`;
