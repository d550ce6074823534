import { defaultHourlyRateMinor } from '../invoices/lines.ts';
import { rateFactsOf, type PricingFacts } from '../invoices/rate-facts.ts';
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

/** The facts of one (project, task, person) combination, priced by the invoices' rule. */
export function comboFacts(facts: PricingFacts, projectId: string, taskId: string, userId: string): ComboFacts | null {
  const rates = rateFactsOf(facts, projectId, taskId, userId);
  const project = facts.projects.get(projectId);
  if (!rates || !project) return null;
  return { clientId: project.clientId, currency: project.clientCurrency, rateMinor: defaultHourlyRateMinor(rates, project.clientCurrency), billableNow: Boolean(rates.taskBillable) };
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
