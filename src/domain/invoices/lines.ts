import type * as z from 'zod';
import type { billingMethods, timeEntryStatuses } from '../../db/schema/index.ts';
import { AppError, invalidField, notFound, unprocessable } from '../../errors.ts';
import {
  currencyDecimals,
  decimalOf,
  decimalText,
  fromMinor,
  hoursAmountMinor,
  hoursToSeconds,
  isExactMinor,
  MAX_EXACT_MINOR,
  percentOfMinor,
  quantityAmountMinor,
  timeAmountMinor,
  toMinor,
  toScaledInteger,
} from '../money.ts';
import { hoursOf, SECONDS_PER_HOUR } from '../time/hours.ts';
import type { serviceLineInput, taxInput, timeEntryLineInput } from './schemas.ts';

/** What one query reads about each time entry named by the request. */
export interface BillableEntry {
  /** The entry's row in the workspace file, valid for the transaction that read it. */
  rowid: number;
  id: string;
  /** The entry's (project, task, person) combination in `time_entry_combos`. */
  comboId: number;
  clientId: string;
  projectId: string;
  taskId: string;
  userId: string;
  seconds: number;
  status: (typeof timeEntryStatuses)[number];
  /** The invoice that billed the entry, if any. */
  invoiceId: string | null;
  billingMethod: (typeof billingMethods)[number];
  projectRateMinor: number;
  projectCurrency: string;
  taskRateMinor: number;
  personRateMinor: number | null;
  /** Whether the entry's task is billable now (SQLite 0/1); a task made non-billable later wins over the entry's status. */
  taskBillable: number | boolean;
}

export interface ComputedLine {
  kind: 'time_entry' | 'service';
  position: number;
  timeEntryId: string | null;
  /** Time lines: the entry's combination, which is what the line stores of its project, task and person. */
  comboId: number | null;
  projectId: string | null;
  taskId: string | null;
  userId: string | null;
  notes: string;
  seconds: number | null;
  /** The hours the line stated itself, as exact decimal text; null when it bills the entry's seconds. */
  hours: string | null;
  hourlyRateMinor: number | null;
  quantityMilli: number | null;
  unitAmountMinor: number | null;
  file: string | null;
  amountMinor: number;
}

export interface ComputedTax {
  position: number;
  name: string;
  percentage: string;
  notes: string;
  selected: boolean;
  amountMinor: number;
}

const MAX_MINOR = BigInt(MAX_EXACT_MINOR);

/** What the rate rule reads about an entry: its project's billing method and the three rates. */
export type RateFacts = Pick<BillableEntry, 'billingMethod' | 'projectRateMinor' | 'projectCurrency' | 'taskRateMinor' | 'personRateMinor'>;

/** Whether an entry of an `hourly_person_rate` project has no person rate: its person was taken off the project. */
const lacksPersonRate = (entry: RateFacts) => entry.billingMethod === 'hourly_person_rate' && entry.personRateMinor === null;

/**
 * The hourly rate (minor units) an invoice in `currency` bills an entry at when its line gives
 * none, by the project's billing method (docs/design.md §5). Null when there is none to use: the
 * rate is in another currency than the invoice's, or the project bills each person's rate and the
 * entry's person is no longer on it (never 0 in silence). The line must then give `hourly_rate`;
 * reports count such entries as unpriced. Invoices and reports both price time through this one rule.
 */
export function defaultHourlyRateMinor(entry: RateFacts, currency: string): number | null {
  let rate: number;
  switch (entry.billingMethod) {
    case 'hourly_project_rate':
      rate = entry.projectRateMinor;
      break;
    case 'hourly_person_rate':
      if (entry.personRateMinor === null) return null;
      rate = entry.personRateMinor;
      break;
    case 'hourly_task_rate':
      rate = entry.taskRateMinor;
      break;
    case 'fixed_price_project':
      rate = 0;
      break;
  }
  return rate !== 0 && entry.projectCurrency !== currency ? null : rate;
}

/** A line's hours are read to 4 decimal places, like every other hours value of the product. */
const MAX_HOURS_DECIMALS = 4;

/** A line amount must stay an exact integer in minor units. */
function exactAmount(amount: number, at: string): number {
  if (!isExactMinor(amount)) throw new AppError('unprocessable', 'amount_too_large', `${at}: the amount is too large to be represented exactly`);
  return amount;
}

/**
 * Validates every time-entry line against the entries read for it and computes its amount. Each
 * line is rounded once, half-up: its own exact decimal hours × rate, or, without hours, the
 * entry's seconds × rate / 3600. Nothing here touches floats.
 */
export function computeTimeLines(
  lines: z.output<typeof timeEntryLineInput>[],
  entries: ReadonlyMap<string, BillableEntry>,
  opts: { clientId: string; currency: string; allowedProjects: ReadonlySet<string> | null },
): ComputedLine[] {
  const seen = new Set<string>();
  return lines.map((line, i) => {
    const at = `invoice_time_entries.${i}`;
    if (seen.has(line.time_entry_id)) throw invalidField(`${at}.time_entry_id`, 'names a time entry already on this invoice');
    seen.add(line.time_entry_id);
    const entry = entries.get(line.time_entry_id);
    if (!entry) throw notFound('time_entry', `${at}.time_entry_id: no time entry with id ${line.time_entry_id}`);
    if (entry.clientId !== opts.clientId) throw invalidField(`${at}.time_entry_id`, 'is not a time entry of this client');
    if (entry.projectId !== line.project_id) throw invalidField(`${at}.project_id`, "does not match the time entry's project");
    if (entry.taskId !== line.task_id) throw invalidField(`${at}.task_id`, "does not match the time entry's task");
    if (entry.userId !== line.user_id) throw invalidField(`${at}.user_id`, "does not match the time entry's user");
    if (opts.allowedProjects && !opts.allowedProjects.has(entry.projectId)) {
      throw invalidField(`${at}.project_id`, 'is not one of the projects named in project_id');
    }
    if (entry.status === 'non_billable' || (!entry.taskBillable && entry.status === 'unbilled')) {
      throw unprocessable('time_entry_not_billable', `Time entry ${entry.id} is of a non-billable task and cannot be invoiced`, {
        time_entry_id: entry.id,
      });
    }
    if (entry.status !== 'unbilled') {
      throw unprocessable('time_entry_not_unbilled', `Time entry ${entry.id} is ${entry.status.replace('_', ' ')}; only unbilled entries can be invoiced`, {
        time_entry_id: entry.id,
        time_entry_status: entry.status,
      });
    }
    let seconds = entry.seconds;
    let hours: ReturnType<typeof decimalOf> | null = null;
    if (line.hours !== undefined) {
      hours = decimalOf(line.hours);
      if (hours.scale > MAX_HOURS_DECIMALS) throw invalidField(`${at}.hours`, `may have at most ${MAX_HOURS_DECIMALS} decimal places`);
      // Exact: hours × 3600 ≤ the entry's seconds, compared in units of 1/10^scale.
      if (hours.units * BigInt(SECONDS_PER_HOUR) > BigInt(entry.seconds) * 10n ** BigInt(hours.scale)) {
        throw invalidField(`${at}.hours`, `may not exceed the entry's ${hoursOf(entry.seconds)} hours`);
      }
      // Whole seconds only for summaries (hours by person or task); the amount uses the exact hours.
      seconds = hoursToSeconds(line.hours);
    }
    let rate: number;
    if (line.hourly_rate !== undefined) {
      const minor = toMinor(line.hourly_rate, opts.currency);
      if (minor === null) throw invalidField(`${at}.hourly_rate`, `must have at most ${currencyDecimals(opts.currency)} decimals in ${opts.currency}`);
      rate = minor;
    } else {
      const standard = defaultHourlyRateMinor(entry, opts.currency);
      if (standard === null && lacksPersonRate(entry)) {
        throw unprocessable(
          'rate_unknown',
          `The person of time entry ${entry.id} is no longer on its project, which bills each person's rate: give hourly_rate (or add them to the project again)`,
          { time_entry_id: entry.id },
        );
      }
      if (standard === null) {
        throw unprocessable(
          'currency_mismatch',
          `The project of time entry ${entry.id} bills in ${entry.projectCurrency} but the client in ${opts.currency}; give hourly_rate in ${opts.currency}`,
          { time_entry_id: entry.id },
        );
      }
      rate = standard;
    }
    return {
      kind: 'time_entry',
      position: i,
      timeEntryId: entry.id,
      comboId: entry.comboId,
      projectId: entry.projectId,
      taskId: entry.taskId,
      userId: entry.userId,
      notes: line.notes ?? '',
      seconds,
      hours: hours ? decimalText(line.hours!) : null,
      hourlyRateMinor: rate,
      quantityMilli: null,
      unitAmountMinor: null,
      file: null,
      amountMinor: exactAmount(hours ? hoursAmountMinor(hours, rate) : timeAmountMinor(entry.seconds, rate), at),
    };
  });
}

/**
 * Service lines: quantity (default 1, up to 3 decimals) × unit amount (default 0), half-up once. A
 * line's project must be one of the client's, and one of `allowedProjects` when the request named some.
 */
export function computeServiceLines(
  lines: z.output<typeof serviceLineInput>[],
  opts: { currency: string; clientProjects: ReadonlySet<string>; allowedProjects?: ReadonlySet<string> | null },
): ComputedLine[] {
  return lines.map((line, i) => {
    const at = `invoice_services.${i}`;
    const quantityMilli = toScaledInteger(line.quantity ?? 1, 3);
    if (quantityMilli === null) throw invalidField(`${at}.quantity`, 'must have at most 3 decimals');
    const unit = toMinor(line.unit_amount ?? 0, opts.currency);
    if (unit === null) throw invalidField(`${at}.unit_amount`, `must have at most ${currencyDecimals(opts.currency)} decimals in ${opts.currency}`);
    if (line.project_id !== undefined && !opts.clientProjects.has(line.project_id)) {
      throw invalidField(`${at}.project_id`, 'is not a project of this client');
    }
    if (line.project_id !== undefined && opts.allowedProjects && !opts.allowedProjects.has(line.project_id)) {
      throw invalidField(`${at}.project_id`, 'is not one of the projects named in project_id');
    }
    return {
      kind: 'service',
      position: i,
      timeEntryId: null,
      comboId: null,
      projectId: line.project_id ?? null,
      taskId: null,
      userId: null,
      notes: line.notes ?? '',
      seconds: null,
      hours: null,
      hourlyRateMinor: null,
      quantityMilli,
      unitAmountMinor: unit,
      file: line.file ?? null,
      amountMinor: exactAmount(quantityAmountMinor(quantityMilli, unit), at),
    };
  });
}

/**
 * Each selected tax is its percentage of the subtotal, rounded half-up. A tax is charged only when
 * sent with `selected: true` (docs/design.md §5, "each selected tax"); others are recorded at 0.
 */
export function computeTaxes(taxes: z.output<typeof taxInput>[], subtotalMinor: number): ComputedTax[] {
  return taxes.map((tax, i) => {
    if (decimalOf(tax.percentage).scale > 4) throw invalidField(`tax_details.${i}.percentage`, 'must have at most 4 decimals');
    const percentage = decimalText(tax.percentage);
    const selected = tax.selected ?? false;
    return {
      position: i,
      name: tax.name,
      percentage,
      notes: tax.notes ?? '',
      selected,
      amountMinor: selected ? percentOfMinor(subtotalMinor, percentage) : 0,
    };
  });
}

/** Sums minor amounts exactly; an invoice too large to be exact is refused rather than rounded. */
export function sumMinor(amounts: number[], currency: string): number {
  let sum = 0n;
  for (const a of amounts) sum += BigInt(a);
  if (sum > MAX_MINOR || sum < -MAX_MINOR) {
    throw new AppError('unprocessable', 'amount_too_large', `The invoice amounts are too large to be represented exactly in ${currency}`);
  }
  return Number(sum);
}

export const computedTotalExtra = (totalMinor: number, currency: string) => ({ computed_total: fromMinor(totalMinor, currency) });
