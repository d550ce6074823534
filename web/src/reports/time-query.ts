import type { Inputs } from '../api.ts';
import { addDays, mondayOf, monthEnd, monthStart } from '../dates.ts';

/**
 * The time report's settings live in the address (`/reports?period=last-month&by=client,person`),
 * so a report can be reloaded, bookmarked and shared, and its CSV link carries the same filters.
 * The parameter names are the procedure's (and the CSV download's) own.
 */

export type TimeInput = Inputs['reports']['time'];
export type Grouping = TimeInput['by'][number];
export type EntryStatus = NonNullable<TimeInput['status']>[number];

export const GROUPINGS: readonly (readonly [Grouping, string])[] = [
  ['client', 'Client'],
  ['project', 'Project'],
  ['task', 'Task'],
  ['person', 'Person'],
  ['day', 'Day'],
  ['week', 'Week'],
  ['month', 'Month'],
];

export const STATUSES: readonly (readonly [EntryStatus, string])[] = [
  ['pending_approval', 'Awaiting approval'],
  ['unbilled', 'Approved, not billed'],
  ['billed', 'Billed'],
  ['non_billable', 'Non-billable'],
  ['rejected', 'Rejected'],
];

export const PERIODS = [
  ['this-week', 'This week'],
  ['last-week', 'Last week'],
  ['this-month', 'This month'],
  ['last-month', 'Last month'],
  ['this-year', 'This year'],
  ['custom', 'Custom'],
] as const;
export type Period = (typeof PERIODS)[number][0];

/** The days of a preset period around `today` (weeks run Monday to Sunday). */
export function periodDays(period: Exclude<Period, 'custom'>, today: string): { from: string; to: string } {
  const monday = mondayOf(today);
  switch (period) {
    case 'this-week':
      return { from: monday, to: addDays(monday, 6) };
    case 'last-week':
      return { from: addDays(monday, -7), to: addDays(monday, -1) };
    case 'this-month':
      return { from: monthStart(today), to: monthEnd(today) };
    case 'last-month':
      return { from: monthStart(today, -1), to: monthEnd(monthStart(today, -1)) };
    case 'this-year':
      return { from: `${today.slice(0, 4)}-01-01`, to: `${today.slice(0, 4)}-12-31` };
  }
}

export interface TimeQuery {
  period: Period;
  from: string;
  to: string;
  by: Grouping[];
  client_ids: string[];
  project_ids: string[];
  user_ids: string[];
  /** '' for both. */
  billable: '' | 'true' | 'false';
  /** Empty: the procedure's default (every status but rejected). */
  status: EntryStatus[];
}

export const DEFAULT_BY: Grouping[] = ['client', 'project'];

const listOf = (params: URLSearchParams, name: string) => (params.get(name) ?? '').split(',').filter(Boolean);
const isOneOf = <T extends string>(options: readonly (readonly [T, string])[], value: string): value is T => options.some(([v]) => v === value);
const isDate = (value: string | null): value is string => value !== null && /^\d{4}-\d{2}-\d{2}$/.test(value);

/** The report as the address describes it; anything missing or malformed takes its default. */
export function readTimeQuery(search: string, today: string): TimeQuery {
  const params = new URLSearchParams(search);
  const named = params.get('period') ?? '';
  const period: Period = isOneOf(PERIODS, named) ? named : 'this-month';
  const preset = periodDays(period === 'custom' ? 'this-month' : period, today);
  const from = params.get('from');
  const to = params.get('to');
  const by = [...new Set(listOf(params, 'by').filter((g) => isOneOf(GROUPINGS, g)))].slice(0, 2) as Grouping[];
  const billable = params.get('billable');
  return {
    period,
    from: period === 'custom' && isDate(from) ? from : preset.from,
    to: period === 'custom' && isDate(to) ? to : preset.to,
    by: by.length > 0 ? by : DEFAULT_BY,
    client_ids: listOf(params, 'client_ids'),
    project_ids: listOf(params, 'project_ids'),
    user_ids: listOf(params, 'user_ids'),
    billable: billable === 'true' || billable === 'false' ? billable : '',
    status: listOf(params, 'status').filter((s) => isOneOf(STATUSES, s)) as EntryStatus[],
  };
}

/** The report's parameters as the procedure takes them (empty filters left out). */
export function timeInput(q: TimeQuery, by: Grouping[] = q.by): TimeInput {
  return {
    from: q.from,
    to: q.to,
    by,
    ...(q.client_ids.length > 0 && { client_ids: q.client_ids }),
    ...(q.project_ids.length > 0 && { project_ids: q.project_ids }),
    ...(q.user_ids.length > 0 && { user_ids: q.user_ids }),
    ...(q.billable !== '' && { billable: q.billable === 'true' }),
    ...(q.status.length > 0 && { status: q.status }),
  };
}

/** Query parameters as the address and the CSV download write them: lists comma-separated. */
export function searchOf(values: Record<string, string | number | boolean | readonly string[] | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined || (Array.isArray(value) && value.length === 0)) continue;
    params.set(key, Array.isArray(value) ? value.join(',') : String(value));
  }
  return params.toString();
}

/** The address of the report with `q`'s settings (a preset period does not pin its days). */
export function timeSearch(q: TimeQuery): string {
  const { from, to, period, ...rest } = q;
  return searchOf({ period, ...(period === 'custom' ? { from, to } : {}), ...rest, by: rest.by, billable: rest.billable || undefined });
}

/**
 * A CSV download of the session's workspace (`GET /api/exports/<report>.csv`, docs/reports.md),
 * starting with a byte order mark so spreadsheet programs read accents right.
 */
export const csvHref = (report: string, input: Record<string, string | number | boolean | readonly string[] | undefined> = {}) => {
  const query = searchOf({ ...input, bom: true });
  return `/api/exports/${report}.csv?${query}`;
};
