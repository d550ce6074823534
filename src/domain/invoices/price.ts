import type * as z from 'zod';
import { AppError } from '../../errors.ts';
import { withinTolerance } from '../money.ts';
import {
  computeServiceLines,
  computeTaxes,
  computeTimeLines,
  computedTotalExtra,
  sumMinor,
  type BillableEntry,
  type ComputedLine,
  type ComputedTax,
} from './lines.ts';
import type { serviceLineInput, taxInput, timeEntryLineInput } from './schemas.ts';

/** What an invoice bills: exactly one of the line groups, and its taxes. */
export interface PricingRequest {
  invoice_time_entries?: z.output<typeof timeEntryLineInput>[] | undefined;
  invoice_services?: z.output<typeof serviceLineInput>[] | undefined;
  tax_details?: z.output<typeof taxInput>[] | undefined;
}

/** What pricing needs to know about the client and the entries the request names. */
interface PricingFacts {
  clientId: string;
  currency: string;
  /** The client's projects (service lines may name only these). */
  clientProjects: ReadonlySet<string>;
  /** The projects the request names in `project_id`, or null when it names none. */
  allowedProjects: ReadonlySet<string> | null;
  /** The time entries named by the request, read in one query. */
  entries: ReadonlyMap<string, BillableEntry>;
}

export interface PricedInvoice {
  lines: ComputedLine[];
  taxes: ComputedTax[];
  subtotalMinor: number;
  taxMinor: number;
  totalMinor: number;
}

/**
 * The one pricing pass of the product, pure: every line checked and priced (each rounded once,
 * half-up, in integer minor units), each selected tax a percentage of the subtotal, and the total.
 * Invoice creation, draft edits, reports and the demo seeder all price through it.
 */
export function priceInvoice(request: PricingRequest, facts: PricingFacts): PricedInvoice {
  const { currency } = facts;
  const lines = request.invoice_time_entries
    ? computeTimeLines(request.invoice_time_entries, facts.entries, {
        clientId: facts.clientId,
        currency,
        allowedProjects: facts.allowedProjects,
      })
    : computeServiceLines(request.invoice_services ?? [], {
        currency,
        clientProjects: facts.clientProjects,
        allowedProjects: facts.allowedProjects,
      });
  const subtotalMinor = sumMinor(
    lines.map((l) => l.amountMinor),
    currency,
  );
  const taxes = computeTaxes(request.tax_details ?? [], subtotalMinor);
  const taxMinor = sumMinor(
    taxes.map((t) => t.amountMinor),
    currency,
  );
  return { lines, taxes, subtotalMinor, taxMinor, totalMinor: sumMinor([subtotalMinor, taxMinor], currency) };
}

/** The request's `total` must equal the computed one within the currency's tolerance (422 otherwise). */
export function assertTotal(requested: number, priced: Pick<PricedInvoice, 'totalMinor'>, currency: string): void {
  if (withinTolerance(requested, priced.totalMinor, currency)) return;
  const extra = computedTotalExtra(priced.totalMinor, currency);
  throw new AppError(
    'unprocessable',
    'total_mismatch',
    `total ${requested} does not match the computed total ${extra.computed_total} ${currency} (lines plus selected taxes)`,
    { extra },
  );
}
