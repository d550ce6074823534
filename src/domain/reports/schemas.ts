import * as z from 'zod';
import { invoiceStatuses, timeEntryStatuses } from '../../db/schema/index.ts';
import { dateOut, email, flexibleDate, idIn, idOut } from '../fields.ts';

/**
 * Inputs and outputs of the reports (tRPC `reports.*`, the CSV downloads and the command line).
 * Inputs use the REST naming (snake_case). Every report refuses parameters it does not know, with
 * a 422 naming the parameter, so a mistyped filter never silently widens a report.
 */

export const GROUPINGS = ['client', 'project', 'task', 'person', 'day', 'week', 'month'] as const;
export type Grouping = (typeof GROUPINGS)[number];
export type TimeEntryStatus = (typeof timeEntryStatuses)[number];

/** A report's input: its own fields and `email` (the acting person); any other key is a 422 naming it. */
const reportInput = <S extends z.ZodRawShape>(shape: S) =>
  z.strictObject({
    email: email.optional().meta({ description: 'The person asking (a Member sees only their own time and their projects); leave out to act as the workspace' }),
    ...shape,
  });

const MAX_IDS = 500;
const idList = (what: string) =>
  z
    .array(idIn(`must be a ${what} id`), { message: `must be a list of ${what} ids` })
    .min(1, 'must name at least one id')
    .max(MAX_IDS, `may name at most ${MAX_IDS} ids`);

const from = flexibleDate.optional().meta({ description: 'First day, YYYY-MM-DD, inclusive (the workspace calendar)' });
const to = flexibleDate.optional().meta({ description: 'Last day, YYYY-MM-DD, inclusive; default today in the workspace time zone' });

const entryFilters = {
  client_ids: idList('client').optional(),
  project_ids: idList('project').optional(),
  user_ids: idList('team member').optional().meta({ description: 'People; a Member may name others only together with project_ids of projects they manage' }),
  billable: z.boolean({ message: 'must be true or false' }).optional().meta({ description: 'Only billable (true) or only non-billable (false) entries' }),
  status: z
    .array(z.enum(timeEntryStatuses), { message: 'must be a list of time entry statuses' })
    .min(1, 'must name at least one status')
    .optional()
    .meta({ description: 'Entry statuses to count; default every status but rejected' }),
};

const byField = z
  .array(z.enum(GROUPINGS), { message: `must be a list of groupings (${GROUPINGS.join(', ')})` })
  .min(1, 'must name one or two groupings')
  .max(2, 'must name one or two groupings')
  .refine((by) => new Set(by).size === by.length, 'must not name a grouping twice');

/** The parameters of each report, by the name its CSV download has. */
const shapes = {
  time: { from, to, by: byField, ...entryFilters },
  unbilled: {
    client_ids: entryFilters.client_ids,
    project_ids: entryFilters.project_ids,
    to: to.meta({ description: 'Count entries recorded up to this day; default today in the workspace time zone' }),
  },
  receivables: { client_ids: entryFilters.client_ids },
  'paid-per-month': {
    from: from.meta({ description: 'First payment day, inclusive; default the first day of the month eleven months before to' }),
    to,
    client_ids: entryFilters.client_ids,
  },
  utilisation: {
    from: from.meta({ description: 'First day, inclusive; default the Monday eleven weeks before the week of to' }),
    to,
    // With project_ids a project manager can look at a person's weeks on the projects they manage.
    project_ids: entryFilters.project_ids,
    user_ids: entryFilters.user_ids,
  },
  'time-entries': { from, to, ...entryFilters },
  invoices: {
    from: from.meta({ description: 'First issue date, inclusive; default the first day of the month of to' }),
    to: to.meta({ description: 'Last issue date, inclusive; default today' }),
    client_ids: entryFilters.client_ids,
    status: z.array(z.enum(invoiceStatuses), { message: 'must be a list of invoice statuses' }).min(1, 'must name at least one status').optional(),
  },
  payments: {
    from: from.meta({ description: 'First payment day, inclusive; default the first day of the month of to' }),
    to,
    client_ids: entryFilters.client_ids,
  },
} as const;

export const timeReportInput = reportInput(shapes.time);
export type TimeReportInput = z.output<typeof timeReportInput>;
export const unbilledInput = reportInput(shapes.unbilled);
export type UnbilledInput = z.output<typeof unbilledInput>;
export const invoiceDraftInput = reportInput({
  client_id: idIn('must be a client id'),
  project_ids: entryFilters.project_ids,
  to: shapes.unbilled.to,
});
export type InvoiceDraftInput = z.output<typeof invoiceDraftInput>;
export const filterOptionsInput = reportInput({});
export const receivablesInput = reportInput(shapes.receivables);
export type ReceivablesInput = z.output<typeof receivablesInput>;
export const paidPerMonthInput = reportInput(shapes['paid-per-month']);
export type PaidPerMonthInput = z.output<typeof paidPerMonthInput>;
export const utilisationInput = reportInput(shapes.utilisation);
export type UtilisationInput = z.output<typeof utilisationInput>;

/* ------------------------------------------------------------------ outputs */

const client = z.object({ id: idOut, name: z.string() });
const project = z.object({ id: idOut, name: z.string(), identifier: z.string() });
const person = z.object({ id: idOut, name: z.string(), email: z.string() });

/** Hours for reading (4 decimals), with the exact seconds they were rounded from. */
const duration = {
  seconds: z.number().int(),
  hours: z.number(),
};

/** Money in one currency; amounts are numbers with at most the currency's decimals. */
const workAmount = z.object({
  currency: z.string(),
  billable_amount: z.number().meta({ description: 'Billable hours at the rates an invoice would use today' }),
  unbilled_amount: z.number().meta({ description: 'What an invoice could bill now (unbilled entries of billable tasks)' }),
});

const workTotals = {
  entries: z.number().int(),
  ...duration,
  billable_seconds: z.number().int(),
  billable_hours: z.number(),
  unbilled_seconds: z.number().int(),
  unbilled_hours: z.number(),
  /** One item per currency; amounts in different currencies are never added together. */
  amounts: z.array(workAmount),
};

export const groupKey = z.object({
  by: z.enum(GROUPINGS),
  id: z.string().meta({ description: 'The id of the client, project, task or person; the day (YYYY-MM-DD), ISO week (YYYY-Www) or month (YYYY-MM)' }),
  label: z.string(),
  starts_on: dateOut.nullable().meta({ description: 'For day, week and month: the first day of the period' }),
});
export type GroupKey = z.infer<typeof groupKey>;

export const timeReportRow = z.object({ keys: z.array(groupKey), ...workTotals });
export type TimeReportRow = z.infer<typeof timeReportRow>;

export const timeReportOutput = z.object({
  from: dateOut,
  to: dateOut,
  by: z.array(z.enum(GROUPINGS)),
  rows: z.array(timeReportRow),
  totals: z.object(workTotals),
  unpriced_entries: z
    .number()
    .int()
    .meta({ description: "Billable entries an invoice could not price without an explicit hourly_rate (their project's currency differs from the client's); left out of the amounts" }),
});
export type TimeReportOutput = z.infer<typeof timeReportOutput>;

const unbilledRow = z.object({
  client,
  project,
  currency: z.string(),
  entries: z.number().int(),
  ...duration,
  amount: z.number(),
  oldest_recorded_on: dateOut,
  newest_recorded_on: dateOut,
});
export const unbilledOutput = z.object({
  to: dateOut,
  rows: z.array(unbilledRow),
  totals: z.array(z.object({ currency: z.string(), entries: z.number().int(), ...duration, amount: z.number() })),
  unpriced_entries: timeReportOutput.shape.unpriced_entries,
});
export type UnbilledOutput = z.infer<typeof unbilledOutput>;

export const invoiceDraftOutput = z.object({
  client,
  currency: z.string(),
  entries: z.number().int(),
  ...duration,
  amount: z.number(),
  remaining_entries: z.number().int().meta({ description: 'Unbilled entries left out because one invoice request holds at most 5,000 lines (oldest first)' }),
  unpriced_entries: z.number().int().meta({ description: "Unbilled entries left out because they have no hourly rate in the client's currency (as the unbilled report leaves them out of its amounts)" }),
  /** The body of endpoint 1 (`POST /api/external/v2/clients/{client_id}/invoices`) and the input of `invoices.create`, minus `email`. */
  request: z.object({
    client_id: idOut,
    number: z.string(),
    issue_date: dateOut,
    total: z.number(),
    project_id: z.array(idOut),
    invoice_time_entries: z.array(z.object({ time_entry_id: idOut, project_id: idOut, task_id: idOut, user_id: idOut })),
  }),
});
export type InvoiceDraftOutput = z.infer<typeof invoiceDraftOutput>;

const status = z.enum(['active', 'archived']);
export const filterOptionsOutput = z.object({
  clients: z.array(client.extend({ currency: z.string(), status })),
  projects: z.array(project.extend({ client_id: idOut, status })),
  people: z.array(person.extend({ active: z.boolean() })),
  managed_project_ids: z
    .array(idOut)
    .nullable()
    .meta({ description: "For a Member: the projects they manage, the only ones on which they may name other people (user_ids); null for Owners, Admins and the workspace key" }),
});
export type FilterOptionsOutput = z.infer<typeof filterOptionsOutput>;

export const AGEING_BUCKETS = ['not_due', 'days_1_30', 'days_31_60', 'days_61_90', 'over_90'] as const;
export type AgeingBucket = (typeof AGEING_BUCKETS)[number];

const buckets = Object.fromEntries(AGEING_BUCKETS.map((b) => [b, z.number()])) as Record<AgeingBucket, z.ZodNumber>;

const receivableInvoice = z.object({
  id: idOut,
  number: z.string(),
  client,
  status: z.enum(invoiceStatuses),
  currency: z.string(),
  issue_date: dateOut,
  due_date: dateOut,
  total: z.number(),
  paid: z.number(),
  balance: z.number(),
  days_overdue: z.number().int().meta({ description: 'Days past the due date (0 when not yet due)' }),
  bucket: z.enum(AGEING_BUCKETS),
});
const ageing = z.object({ currency: z.string(), ...buckets, balance: z.number(), overdue: z.number(), invoices: z.number().int() });
export const receivablesOutput = z.object({
  as_of: dateOut,
  invoices: z.array(receivableInvoice),
  clients: z.array(ageing.extend({ client })),
  totals: z.array(ageing),
});
export type ReceivablesOutput = z.infer<typeof receivablesOutput>;

export const paidPerMonthOutput = z.object({
  from: dateOut,
  to: dateOut,
  rows: z.array(z.object({ month: z.string(), currency: z.string(), payments: z.number().int(), amount: z.number() })),
  totals: z.array(z.object({ currency: z.string(), payments: z.number().int(), amount: z.number() })),
});
export type PaidPerMonthOutput = z.infer<typeof paidPerMonthOutput>;

const utilisationFigures = {
  ...duration,
  billable_seconds: z.number().int(),
  billable_hours: z.number(),
  billable_share: z.number().meta({ description: 'Billable seconds / recorded seconds, 0 to 1, 4 decimals (0 when nothing was recorded)' }),
};
export const utilisationOutput = z.object({
  from: dateOut,
  to: dateOut,
  rows: z.array(z.object({ person, week: z.string(), week_starts_on: dateOut, ...utilisationFigures })),
  people: z.array(z.object({ person, ...utilisationFigures })),
});
export type UtilisationOutput = z.infer<typeof utilisationOutput>;

/** Every CSV download: the report's name and its input, plus whether to start with a UTF-8 BOM. */
export const EXPORTS = ['time', 'unbilled', 'receivables', 'paid-per-month', 'utilisation', 'time-entries', 'invoices', 'payments'] as const;
export type ExportName = (typeof EXPORTS)[number];

const bom = z.boolean({ message: 'must be true or false' }).optional().meta({ description: 'Start with a UTF-8 byte order mark, so spreadsheet programs read accents right' });

export const exportInput = z.discriminatedUnion('report', [
  reportInput({ report: z.literal('time'), bom, ...shapes.time }),
  reportInput({ report: z.literal('unbilled'), bom, ...shapes.unbilled }),
  reportInput({ report: z.literal('receivables'), bom, ...shapes.receivables }),
  reportInput({ report: z.literal('paid-per-month'), bom, ...shapes['paid-per-month'] }),
  reportInput({ report: z.literal('utilisation'), bom, ...shapes.utilisation }),
  reportInput({ report: z.literal('time-entries'), bom, ...shapes['time-entries'] }),
  reportInput({ report: z.literal('invoices'), bom, ...shapes.invoices }),
  reportInput({ report: z.literal('payments'), bom, ...shapes.payments }),
]);
export type ExportInput = z.output<typeof exportInput>;
type ExportOnly<N extends ExportName> = Omit<Extract<ExportInput, { report: N }>, 'report' | 'bom'>;
export type TimeEntriesExportInput = ExportOnly<'time-entries'>;
export type InvoicesExportInput = ExportOnly<'invoices'>;
export type PaymentsExportInput = ExportOnly<'payments'>;
