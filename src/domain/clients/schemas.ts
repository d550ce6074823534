import * as z from 'zod';
import { cursorInput } from '../pagination.ts';
import { currency, dateTime, dateTimeOut, idIn, idOut, isOneLine, nonEmptyText, ONE_LINE_MESSAGE } from '../fields.ts';
import { recipientRecord } from '../recipients/schemas.ts';

/** A tax or VAT id as printed (`DE 123 456 789` is kept as written); one line, as names are. */
const taxId = z
  .string({ message: 'must be a tax or VAT id' })
  .trim()
  .max(50, 'must be at most 50 characters')
  .refine(isOneLine, ONE_LINE_MESSAGE)
  .describe('Tax or VAT id, e.g. DE123456789');

const clientStatus = z.enum(['active', 'archived'], { message: 'must be "active" or "archived"' });

/** The spec's Client record (read), plus `address`: the stored full address. */
export const clientRecord = z.object({
  id: idOut,
  organization_id: idOut,
  name: z.string(),
  identifier: z.string(),
  internal_notes: z.string(),
  currency: z.string(),
  secondary_name: z.string(),
  last_invoice_interval: z.string().nullable(),
  status: clientStatus,
  logo: z.string().nullable(),
  default_invoice_due_in_days: z.number().int(),
  include_hours_by_person_in_invoice: z.boolean(),
  address: z.string().describe('The stored full address (`address_attributes.full_address` of the update); "" when none'),
  tax_id: z.string().describe('The client\'s tax or VAT id, printed under "Bill to" on invoices; "" when none'),
  created_at: dateTimeOut,
  updated_at: dateTimeOut,
});
export type ClientRecord = z.infer<typeof clientRecord>;

const MAX_DUE_IN_DAYS = 3650;
const dueInDaysRange = z
  .number()
  .int()
  .min(0, 'must be 0 or more days')
  .max(MAX_DUE_IN_DAYS, `must be at most ${MAX_DUE_IN_DAYS} days`);

/**
 * The REST update sends the due period "as a string of digits" (spec). Only that is accepted: a
 * JSON number is refused too, so an integrator learns the contract from the first request instead
 * of depending on a leniency.
 */
const dueInDaysDigits = z
  .string({ message: 'must be a string of digits, e.g. "30"' })
  .regex(/^\d{1,5}$/, 'must be a string of digits, e.g. "30"')
  .transform(Number)
  .pipe(dueInDaysRange)
  .meta({ description: 'Days from issue until an invoice is due, as a string of digits: "0" to "3650"', example: '30' });

/** Optional text that may be cleared: `null` and `""` both store an empty value. */
const clearableText = (max: number) =>
  z
    .string({ message: 'must be a string or null' })
    .trim()
    .max(max, `must be at most ${max} characters`)
    .nullable()
    .transform((v) => v ?? '');

/** A client's second name line (printed under its name on invoices): one line, as the name is. */
const secondaryName = (typeMessage: string) =>
  z.string({ message: typeMessage }).trim().max(200, 'must be at most 200 characters').refine(isOneLine, ONE_LINE_MESSAGE);

export const createInput = z.object({
  name: nonEmptyText(200),
  secondary_name: secondaryName('must be a string').optional(),
  internal_notes: z.string().max(10_000).optional(),
  currency: currency.default('USD'),
  default_invoice_due_in_days: dueInDaysRange.default(30),
  full_address: z.string().max(2000).optional(),
  tax_id: taxId.optional(),
  /** Default `active`. */
  status: clientStatus.optional(),
});

/** `clients.create` takes `createClientInput` beside the acting user's `email`. */
export const createOutput = z.object({ client: clientRecord });

/**
 * Endpoint 14's `client` object. Every field is optional (partial update); keys not listed here
 * (for example `identifier` or `address` of a read record sent back) are ignored.
 */
const clientChanges = z.object(
  {
    name: nonEmptyText(200).optional(),
    secondary_name: secondaryName('must be a string or null')
      .nullable()
      .transform((v) => v ?? '')
      .optional(),
    internal_notes: clearableText(10_000).optional(),
    currency: currency.optional(),
    default_invoice_due_in_days: dueInDaysDigits.optional(),
    status: clientStatus.optional(),
    tax_id: taxId.nullable().transform((v) => v ?? '').optional(),
    address_attributes: z
      .object({ full_address: clearableText(2000).optional() }, { message: 'must be an object with full_address' })
      .optional(),
  },
  { message: 'must be an object of client fields' },
);

/**
 * The vendor's POST v1 /clients body: `client` with the update's fields (the due period as digits),
 * `name` required, `currency` defaulting to USD. No acting person: the key speaks for the workspace.
 */
export const addInput = z.object({
  client: clientChanges.extend({ name: nonEmptyText(200), currency: currency.default('USD') }),
});
export const addOutput = z.object({ notice_code: z.literal('client_created'), client_id: idOut, client: clientRecord });
/** The REST body of POST v1 /clients, as the vendor publishes it. */
export const addedBody = addOutput.pick({ notice_code: true, client_id: true });

export const updateInput = z.object({
  client_id: idIn(),
  client: clientChanges,
});
export const updateOutput = z.object({ notice_code: z.literal('client_updated'), client_id: idOut });

const MAX_BULK_IDS = 1000;
export const updateStatusInput = z.object({
  client_ids: z
    .array(idIn('must be a client id'), { message: 'must be an array of client ids' })
    .min(1, 'must name at least one client')
    .max(MAX_BULK_IDS, `must name at most ${MAX_BULK_IDS} clients`),
  status: clientStatus,
});

export const getInput = z.object({ client_id: idIn() });
export const getOutput = z.object({ client: clientRecord, recipients: z.array(recipientRecord) });

export const listInput = z.object({
  ...cursorInput,
  status: clientStatus.optional(),
  /** Part of the name, matched regardless of (ASCII) case. */
  search: z.string().trim().max(200).optional(),
  updated_since: dateTime.optional(),
});
export const listOutput = z.object({ items: z.array(clientRecord), next_cursor: z.string().nullable() });
