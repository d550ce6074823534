import type { ParseArgsConfig } from 'node:util';
import type * as z from 'zod';
import { exportCsv } from '../domain/reports/export.ts';
import { receivablesReport } from '../domain/reports/receivables.ts';
import { receivablesInput, timeReportInput, unbilledInput, type ExportInput, type ExportName, type ReceivablesOutput, type TimeReportOutput, type UnbilledOutput } from '../domain/reports/schemas.ts';
import { timeReport } from '../domain/reports/time-report.ts';
import { unbilledReport } from '../domain/reports/unbilled.ts';
import type { Scope } from '../domain/scope.ts';
import { check, parse, UsageError } from './args.ts';
import { asUsage, openWorkspace, print, scopeOf, type Command, type Io } from './context.ts';

/**
 * `hourbook report time|unbilled|receivables <subdomain> ...`: the reports on the command line, for
 * the workspace itself (like a call with the workspace's key). A readable table by default, the
 * procedure's answer with `--json`, the CSV download with `--csv` (`--bom` to start it with a byte
 * order mark).
 */

/** Flags that name the API's fields, for messages (`--by: must name one or two groupings`). */
const FLAGS: Record<string, string> = {
  by: '--by',
  client_ids: '--client',
  project_ids: '--project',
  user_ids: '--person',
  billable: '--billable',
  status: '--status',
  from: '--from',
  to: '--to',
};

const list = (value: string | undefined) => (value === undefined ? undefined : value.split(',').map((v) => v.trim()));
const flag = (value: string | undefined) => (value === 'true' ? true : value === 'false' ? false : value);

const csvFlags = { csv: { type: 'boolean' }, bom: { type: 'boolean' } } as const satisfies NonNullable<ParseArgsConfig['options']>;

/** Writes an export's pieces; each ends in CRLF and `out` adds the LF, so the last character is dropped. */
function writeCsv(io: Io, scope: Scope, input: ExportInput): void {
  for (const piece of asUsage(() => exportCsv(scope, input), FLAGS).pieces) io.out(piece.slice(0, -1));
}

/** Aligned columns, numbers to the right. */
function table(header: string[], rows: (string | number)[][]): string {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const numeric = header.map((_, i) => rows.length > 0 && rows.every((r) => typeof r[i] === 'number'));
  return cells.map((r) => r.map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd()).join('\n');
}

function timeTable(r: TimeReportOutput): string {
  const currencies = r.totals.amounts.map((a) => a.currency);
  const money = (amounts: TimeReportOutput['totals']['amounts']) => currencies.map((c) => amounts.find((a) => a.currency === c)?.billable_amount ?? 0);
  const rows = r.rows.map((row) => [...row.keys.map((k) => k.label), row.hours, row.billable_hours, row.unbilled_hours, ...money(row.amounts)]);
  rows.push([...r.by.map((_, i) => (i === 0 ? 'Total' : '')), r.totals.hours, r.totals.billable_hours, r.totals.unbilled_hours, ...money(r.totals.amounts)]);
  return `Time ${r.from} to ${r.to}\n` + table([...r.by, 'hours', 'billable h', 'unbilled h', ...currencies.map((c) => `billable ${c}`)], rows);
}

function unbilledTable(r: UnbilledOutput): string {
  const rows = r.rows.map((x) => [x.client.name, `${x.project.identifier} ${x.project.name}`, x.hours, x.currency, x.amount, x.oldest_recorded_on]);
  const totals = r.totals.map((t) => `${t.amount} ${t.currency} (${t.hours} h)`).join(', ') || 'nothing';
  return `Unbilled up to ${r.to}\n${table(['client', 'project', 'hours', 'currency', 'amount', 'oldest'], rows)}\nTotal: ${totals}`;
}

function receivablesTable(r: ReceivablesOutput): string {
  const rows = r.invoices.map((i) => [i.number, i.client.name, i.due_date, i.currency, i.balance, i.days_overdue, i.bucket]);
  const totals = r.totals.map((t) => `${t.balance} ${t.currency} (overdue ${t.overdue})`).join(', ') || 'nothing';
  return `Receivables as of ${r.as_of}\n${table(['invoice', 'client', 'due', 'currency', 'balance', 'days overdue', 'bucket'], rows)}\nTotal due: ${totals}`;
}

/** Parses the flags, checks them with the report's own schema, and prints the answer in the asked form. */
function reportCommand<S extends z.ZodType, O>(
  name: ExportName,
  schema: S,
  options: NonNullable<ParseArgsConfig['options']>,
  toInput: (values: Record<string, string | boolean | undefined>) => Record<string, unknown>,
  run: (scope: Scope, input: z.output<S>) => O,
  human: (out: O) => string,
): Command {
  return (argv, services, io) => {
    const { values, positionals } = parse(argv, { ...options, ...csvFlags });
    if (values.bom && !values.csv) throw new UsageError('--bom goes with --csv (it starts the CSV with a byte order mark)');
    if (values.csv && values.json) throw new UsageError('--csv and --json: choose one (the CSV file, or the JSON answer)');
    const handle = openWorkspace(services, positionals[0]);
    const input = check('report', schema, toInput(values as Record<string, string | boolean | undefined>), FLAGS);
    const scope = scopeOf(services, handle);
    if (values.csv) {
      writeCsv(io, scope, { report: name, bom: values.bom === true, ...(input as object) } as ExportInput);
      return;
    }
    const out = asUsage(() => run(scope, input), FLAGS);
    print(io, values.json as boolean | undefined, out, human(out));
  };
}

export const time = reportCommand(
  'time',
  timeReportInput,
  { from: { type: 'string' }, to: { type: 'string' }, by: { type: 'string' }, client: { type: 'string' }, project: { type: 'string' }, person: { type: 'string' }, billable: { type: 'string' }, status: { type: 'string' } },
  (v) => ({
    from: v.from,
    to: v.to,
    by: list(v.by as string | undefined) ?? ['project'],
    client_ids: list(v.client as string | undefined),
    project_ids: list(v.project as string | undefined),
    user_ids: list(v.person as string | undefined),
    billable: flag(v.billable as string | undefined),
    status: list(v.status as string | undefined),
  }),
  timeReport,
  timeTable,
);

export const unbilled = reportCommand(
  'unbilled',
  unbilledInput,
  { to: { type: 'string' }, client: { type: 'string' }, project: { type: 'string' } },
  (v) => ({ to: v.to, client_ids: list(v.client as string | undefined), project_ids: list(v.project as string | undefined) }),
  unbilledReport,
  unbilledTable,
);

export const receivables = reportCommand(
  'receivables',
  receivablesInput,
  { client: { type: 'string' } },
  (v) => ({ client_ids: list(v.client as string | undefined) }),
  receivablesReport,
  receivablesTable,
);
