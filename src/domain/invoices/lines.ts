import type { z } from 'zod';
import type { billingMethods, timeEntryStatuses } from '../../db/schema/index.ts';
import { AppError, invalidField, unprocessable } from '../../errors.ts';
import {
  currencyDecimals,
  decimalOf,
  decimalText,
  fromMinor,
  hoursToSeconds,
  percentOfMinor,
  quantityAmountMinor,
  timeAmountMinor,
  toMinor,
  toScaledInteger,
} from '../money.ts';
import type { serviceLineInput, taxInput, timeEntryLineInput } from './schemas.ts';

/** What one query reads about each time entry named by the request. */
export interface BillableEntry {
  id: string;
  clientId: string;
  projectId: string;
  taskId: string;
  userId: string;
  seconds: number;
  status: (typeof timeEntryStatuses)[number];
  billingMethod: (typeof billingMethods)[number];
  projectRateMinor: number;
  projectCurrency: string;
  taskRateMinor: number;
  personRateMinor: number | null;
}

export interface ComputedLine {
  kind: 'time_entry' | 'service';
  position: number;
  timeEntryId: string | null;
  projectId: string | null;
  taskId: string | null;
  userId: string | null;
  notes: string;
  seconds: number | null;
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

const MAX_MINOR = BigInt(Number.MAX_SAFE_INTEGER);

/** The rate of DESIGN.md §5 when the line gives none. */
export function defaultHourlyRateMinor(entry: BillableEntry): number {
  switch (entry.billingMethod) {
    case 'hourly_project_rate':
      return entry.projectRateMinor;
    case 'hourly_person_rate':
      return entry.personRateMinor ?? 0;
    case 'hourly_task_rate':
      return entry.taskRateMinor;
    case 'fixed_price_project':
      return 0;
  }
}

const hoursText = (seconds: number) => String(Math.round((seconds / 3600) * 10000) / 10000);

/**
 * Validates every time-entry line against the entries read for it and computes its amount. Each
 * line is rounded once (seconds × rate / 3600, half-up); nothing here touches floats.
 */
export function computeTimeLines(
  lines: z.output<typeof timeEntryLineInput>[],
  entries: Map<string, BillableEntry>,
  opts: { clientId: string; currency: string; allowedProjects: Set<string> | null },
): ComputedLine[] {
  const seen = new Set<string>();
  return lines.map((line, i) => {
    const at = `invoice_time_entries.${i}`;
    if (seen.has(line.time_entry_id)) throw invalidField(`${at}.time_entry_id`, 'names a time entry already on this invoice');
    seen.add(line.time_entry_id);
    const entry = entries.get(line.time_entry_id);
    if (!entry || entry.clientId !== opts.clientId) throw invalidField(`${at}.time_entry_id`, 'is not a time entry of this client');
    if (entry.projectId !== line.project_id) throw invalidField(`${at}.project_id`, "does not match the time entry's project");
    if (entry.taskId !== line.task_id) throw invalidField(`${at}.task_id`, "does not match the time entry's task");
    if (entry.userId !== line.user_id) throw invalidField(`${at}.user_id`, "does not match the time entry's user");
    if (opts.allowedProjects && !opts.allowedProjects.has(entry.projectId)) {
      throw invalidField(`${at}.project_id`, 'is not one of the projects named in project_id');
    }
    if (entry.status === 'non_billable') {
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
    if (line.hours !== undefined) {
      seconds = hoursToSeconds(line.hours);
      if (seconds <= 0) throw invalidField(`${at}.hours`, 'must be at least one second');
      if (seconds > entry.seconds) throw invalidField(`${at}.hours`, `may not exceed the entry's ${hoursText(entry.seconds)} hours`);
    }
    let rate: number;
    if (line.hourly_rate !== undefined) {
      const minor = toMinor(line.hourly_rate, opts.currency);
      if (minor === null) throw invalidField(`${at}.hourly_rate`, `must have at most ${currencyDecimals(opts.currency)} decimals in ${opts.currency}`);
      rate = minor;
    } else {
      rate = defaultHourlyRateMinor(entry);
      if (rate !== 0 && entry.projectCurrency !== opts.currency) {
        throw unprocessable(
          'currency_mismatch',
          `The project of time entry ${entry.id} bills in ${entry.projectCurrency} but the client in ${opts.currency}; give hourly_rate in ${opts.currency}`,
          { time_entry_id: entry.id },
        );
      }
    }
    return {
      kind: 'time_entry',
      position: i,
      timeEntryId: entry.id,
      projectId: entry.projectId,
      taskId: entry.taskId,
      userId: entry.userId,
      notes: line.notes ?? '',
      seconds,
      hourlyRateMinor: rate,
      quantityMilli: null,
      unitAmountMinor: null,
      file: null,
      amountMinor: timeAmountMinor(seconds, rate),
    };
  });
}

/** Service lines: quantity (default 1, up to 3 decimals) × unit amount (default 0), half-up once. */
export function computeServiceLines(
  lines: z.output<typeof serviceLineInput>[],
  opts: { currency: string; clientProjects: Set<string> },
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
    return {
      kind: 'service',
      position: i,
      timeEntryId: null,
      projectId: line.project_id ?? null,
      taskId: null,
      userId: null,
      notes: line.notes ?? '',
      seconds: null,
      hourlyRateMinor: null,
      quantityMilli,
      unitAmountMinor: unit,
      file: line.file ?? null,
      amountMinor: quantityAmountMinor(quantityMilli, unit),
    };
  });
}

/** Each selected tax is its percentage of the subtotal, rounded half-up; unselected ones are kept at 0. */
export function computeTaxes(taxes: z.output<typeof taxInput>[], subtotalMinor: number): ComputedTax[] {
  return taxes.map((tax, i) => {
    if (decimalOf(tax.percentage).scale > 4) throw invalidField(`tax_details.${i}.percentage`, 'must have at most 4 decimals');
    const percentage = decimalText(tax.percentage);
    const selected = tax.selected ?? true;
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
