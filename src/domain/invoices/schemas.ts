import * as z from 'zod';
import { invoiceKinds, invoiceStatuses, outboxStatuses, paymentMethods } from '../../db/schema/index.ts';
import { dateOut, dateTime, dateTimeOut, flexibleDate, idIn, idOut, nonEmptyText } from '../fields.ts';
import { cursorInput } from '../pagination.ts';

/** `'true'`/`'false'` as the spec sends them; a JSON boolean is accepted too. */
const stringFlag = z
  .union([z.enum(['true', 'false']), z.boolean()], { message: "must be 'true' or 'false'" })
  .transform((v) => v === true || v === 'true');

const finite = (what: string) => z.number({ message: `must be a number (${what})` }).refine(Number.isFinite, 'must be a finite number');

/**
 * Bounds that keep every amount exact in integer minor units (and away from exponent notation):
 * 1e12 is a trillion in any currency, far beyond a real invoice, and 1e9 × 1e12 still fits a line.
 */
const MAX_AMOUNT = 1e12;
const MAX_QUANTITY = 1e9;
/** Many lines may add up past one line's bound; the sum is still checked to be exact. */
const MAX_TOTAL = 1e13;
/** A line bills at most one entry, and an entry holds at most 24 hours. */
const MAX_LINE_HOURS = 24;

/**
 * Ids as every request names them (`idIn`): an unknown or malformed `time_entry_id` is 404
 * `time_entry_not_found`, and a `project_id`, `task_id` or `user_id` that is not the entry's is 422
 * on that field (`computeTimeLines`), whatever its spelling.
 */
export const timeEntryLineInput = z.object({
  time_entry_id: idIn('must be a time entry id'),
  project_id: idIn('must be a project id'),
  task_id: idIn('must be a task id'),
  user_id: idIn('must be a user id'),
  notes: z.string().max(5000).optional(),
  hours: finite('hours')
    .refine((h) => h > 0, 'must be greater than 0')
    .refine((h) => h <= MAX_LINE_HOURS, `must be at most ${MAX_LINE_HOURS} (and not more than the entry's hours)`)
    .optional(),
  hourly_rate: finite('hourly_rate')
    .refine((r) => r >= 0, 'must not be negative')
    .refine((r) => r <= MAX_AMOUNT, `must be at most ${MAX_AMOUNT}`)
    .optional(),
});

export const serviceLineInput = z.object({
  notes: z.string().max(5000).optional(),
  quantity: finite('quantity')
    .refine((q) => q > 0, 'must be greater than 0')
    .refine((q) => q <= MAX_QUANTITY, `must be at most ${MAX_QUANTITY}`)
    .optional(),
  unit_amount: finite('unit_amount')
    .refine((a) => a >= 0, 'must not be negative')
    .refine((a) => a <= MAX_AMOUNT, `must be at most ${MAX_AMOUNT}`)
    .optional(),
  project_id: idIn().optional(),
  file: z.string().max(2000).nullable().optional(),
});

export const taxInput = z.object({
  name: nonEmptyText(100),
  percentage: finite('percentage').refine((p) => p >= 0 && p <= 100, 'must be between 0 and 100'),
  notes: z.string().max(1000).optional(),
  selected: z.boolean().describe('Only a selected tax is charged; default false (recorded, amount 0)').optional(),
});

export const invoiceDetailsInput = z.object({
  subject: z.string().max(255).optional(),
  message: z.string().max(10000).optional(),
  attach_pdf_invoice: stringFlag.optional(),
  send_me_a_copy: stringFlag.optional(),
  recipient_ids: z.array(idIn(), { message: 'must be an array of recipient ids' }).max(100).optional(),
});

const flag = z.boolean({ message: 'must be true or false' }).optional();

/**
 * The spec's processor value; its real name, `stripe`, is accepted as the same value and stored as
 * `card_processor`, so there is one canonical value.
 */
const paymentProvider = z
  .enum(['card_processor', 'stripe', 'undefined'], { message: "must be 'card_processor' (or 'stripe') or 'undefined'" })
  .transform((v) => (v === 'stripe' ? 'card_processor' : v))
  .describe("'card_processor' (also accepted as 'stripe', stored as 'card_processor'): the invoice may be paid by card; 'undefined': no card payment")
  .nullable();

const timeLines = z
  .array(timeEntryLineInput)
  .max(20000)
  .describe('Unbilled time entries to bill; exactly one of invoice_time_entries and invoice_services, not empty');
const serviceLines = z
  .array(serviceLineInput)
  .max(5000)
  .describe('Service lines (quantity × unit_amount); exactly one of invoice_time_entries and invoice_services, not empty');

/** The fields an invoice is made of, shared by endpoint 1 and the draft edit (`invoices.update`). */
const invoiceFields = {
  number: nonEmptyText(100),
  total: finite('total')
    .refine((t) => t >= 0 && t <= MAX_TOTAL, `must be between 0 and ${MAX_TOTAL}`)
    .describe('The invoice total as the caller computed it; must be within 0.01 of lines plus selected taxes (else 422 total_mismatch with computed_total)'),
  issue_date: flexibleDate.describe('MM/DD/YYYY (also YYYY-MM-DD); default: today in the workspace time zone').optional(),
  due_date: flexibleDate.describe('MM/DD/YYYY (also YYYY-MM-DD); default: issue date + due_date_period, else + the client default').optional(),
  due_date_period: z.number().int('must be a whole number of days').min(0).max(3650).describe('Days from the issue date to the due date').optional(),
  interval: z.string().trim().max(100).optional(),
  notes: z.string().max(10000).optional(),
  include_hours_by_person: flag,
  include_hours_by_task: flag,
  include_time_entries: flag,
  send_automated_reminder_email: flag,
  include_payment_link: flag,
  payment_provider: paymentProvider.optional(),
  display_task_name: flag,
  display_person_name: flag,
  display_date: flag,
  display_note: flag,
  display_project_name: flag,
  project_id: z
    .array(idIn(), { message: 'must be an array of project ids' })
    .max(500)
    .describe('Restricts the invoice to these projects of the client; an empty list is the same as none')
    .optional(),
  tax_details: z.array(taxInput).max(20).optional(),
  invoice_time_entries: timeLines.optional(),
  invoice_services: serviceLines.optional(),
};

type LineGroups = { invoice_time_entries?: unknown[] | undefined; invoice_services?: unknown[] | undefined };

/** At most one line group, and a given one has lines; `required`: exactly one (endpoint 1). */
function checkLineGroups(v: LineGroups, ctx: z.RefinementCtx, required: boolean): void {
  const hasTime = v.invoice_time_entries !== undefined;
  const hasServices = v.invoice_services !== undefined;
  if (hasTime && hasServices) {
    ctx.addIssue({ code: 'custom', path: ['invoice_services'], message: 'give exactly one of invoice_time_entries or invoice_services' });
  } else if (!hasTime && !hasServices) {
    if (required) ctx.addIssue({ code: 'custom', path: ['invoice_time_entries'], message: 'give exactly one of invoice_time_entries or invoice_services' });
  } else if ((v.invoice_time_entries ?? v.invoice_services ?? []).length === 0) {
    ctx.addIssue({ code: 'custom', path: [hasTime ? 'invoice_time_entries' : 'invoice_services'], message: 'must have at least one line' });
  }
}

/** Endpoint 1's body with the path's `client_id`; `email` is read by the acting-user middleware. */
export const createInput = z
  .object({
    client_id: idIn(),
    ...invoiceFields,
    send_email: flag,
    invoice_details: invoiceDetailsInput.optional(),
  })
  .superRefine((v, ctx) => {
    checkLineGroups(v, ctx, true);
    if (v.send_email === true) {
      if (!v.invoice_details) ctx.addIssue({ code: 'custom', path: ['invoice_details'], message: 'is required when send_email is true' });
      else if (!v.invoice_details.recipient_ids?.length) {
        ctx.addIssue({ code: 'custom', path: ['invoice_details', 'recipient_ids'], message: 'must name at least one recipient when send_email is true' });
      }
    }
  });
export type CreateInput = z.output<typeof createInput>;

/** The spec's invoice object, exactly. */
export const invoiceRecord = z.object({
  id: idOut,
  number: z.string(),
  total: z.number(),
  status: z.enum(invoiceStatuses),
  issue_date: dateOut,
  due_date: dateOut,
  notes: z.string(),
  client_id: idOut,
  organization_id: idOut,
  created_at: dateTimeOut,
  updated_at: dateTimeOut,
});
export type InvoiceRecord = z.infer<typeof invoiceRecord>;

export const createOutput = z.object({ notice_code: z.literal('invoice_created'), invoice: invoiceRecord });

/** The tRPC listing: the spec's fields plus what a list screen needs. */
export const invoiceSummary = invoiceRecord.extend({
  kind: z.enum(invoiceKinds).describe('`credit_note`: cancels the invoice named by credited_invoice_id; its amounts are negative'),
  currency: z.string(),
  subtotal: z.number(),
  tax_total: z.number(),
  amount_paid: z.number().describe('Sum of the payments recorded'),
  balance_due: z.number().describe('total − amount_paid for an invoice in status sending, sent or partially_paid; 0 otherwise'),
  overdue: z.boolean().describe("Due date before today (workspace time zone) with a balance due"),
  credited_invoice_id: idOut.nullable().describe('For a credit note: the invoice it cancels'),
  credit_note_id: idOut.nullable().describe('For a void invoice: the credit note that cancels it (none when it was voided as a draft)'),
  public_url: z.string(),
  sent_at: dateTimeOut.nullable(),
  paid_at: dateTimeOut.nullable(),
  voided_at: dateTimeOut.nullable(),
});
export type InvoiceSummary = z.infer<typeof invoiceSummary>;

const lineRecord = z.object({
  /** The line's number in the workspace; a draft's lines get new ones when they are replaced. */
  id: z.string(),
  kind: z.enum(['time_entry', 'service']),
  position: z.number().int(),
  time_entry_id: idOut.nullable(),
  project_id: idOut.nullable(),
  task_id: idOut.nullable(),
  user_id: idOut.nullable(),
  notes: z.string(),
  hours: z.number().nullable(),
  hourly_rate: z.number().nullable(),
  quantity: z.number().nullable(),
  unit_amount: z.number().nullable(),
  file: z.string().nullable(),
  amount: z.number(),
});

const taxRecord = z.object({
  name: z.string(),
  percentage: z.number(),
  notes: z.string(),
  selected: z.boolean(),
  amount: z.number(),
});

const invoiceDetail = invoiceSummary.extend({
  due_date_period: z.number().nullable(),
  interval: z.string().nullable(),
  include_hours_by_person: z.boolean(),
  include_hours_by_task: z.boolean(),
  include_time_entries: z.boolean(),
  send_automated_reminder_email: z.boolean(),
  include_payment_link: z.boolean(),
  payment_provider: z.string().nullable(),
  display_task_name: z.boolean(),
  display_person_name: z.boolean(),
  display_date: z.boolean(),
  display_note: z.boolean(),
  display_project_name: z.boolean(),
  send_email: z.boolean(),
  project_ids: z.array(idOut),
  recipient_ids: z.array(idOut),
  lines: z.array(lineRecord),
  taxes: z.array(taxRecord),
});

/** Every filter is optional, so the input itself may be left out (`invoices.list()`). */
export const listInput = z
  .object({
    ...cursorInput,
    client_id: idIn().optional(),
    status: z.enum(invoiceStatuses).optional(),
    kind: z.enum(invoiceKinds).optional(),
    /** true: only overdue invoices; false: only those that are not. */
    overdue: z.boolean().optional(),
    /** Issue-date range, inclusive. */
    from: flexibleDate.optional(),
    to: flexibleDate.optional(),
    updated_since: dateTime.optional(),
    /** `newest_first`: the pages run from the latest invoice back (the app's list); default oldest first. */
    order: z
      .enum(['oldest_first', 'newest_first'], { message: 'must be oldest_first or newest_first' })
      .describe('Creation order of the pages; a cursor continues in the order it was given with')
      .default('oldest_first'),
  })
  .prefault({});
export const listOutput = z.object({ items: z.array(invoiceSummary), next_cursor: z.string().nullable() });

export const invoiceIdInput = z.object({ invoice_id: idIn() });
export const getOutput = z.object({ invoice: invoiceDetail });
export const statusChangeOutput = z.object({ invoice: invoiceSummary });
export const deleteOutput = z.object({ deleted: z.literal(true), invoice_id: idOut });

/**
 * `invoices.update`: a draft's fields, each optional (left out: unchanged). A line group given
 * replaces every line; `total`, when given, is checked like endpoint 1's; `recipient_ids` given
 * replaces the draft's recipients.
 */
export const updateInput = z
  .object({
    invoice_id: idIn(),
    ...invoiceFields,
    /** The draft's recipients, replacing its own (empty: none): whom sending it offers, and reminders reach. */
    recipient_ids: z
      .array(idIn(), { message: 'must be an array of recipient ids' })
      .max(100)
      .describe("Live recipients of the invoice's client; replaces the draft's recipients")
      .optional(),
  })
  .partial({ number: true, total: true })
  .superRefine((v, ctx) => checkLineGroups(v, ctx, false));
export type UpdateInput = z.output<typeof updateInput>;

const namedRecipients = z.array(idIn(), { message: 'must be an array of recipient ids' }).min(1, 'must name at least one recipient').max(100);

/**
 * `invoices.send`: endpoint 1's `invoice_details`; `recipient_ids` left out sends to the draft's own
 * recipients (those chosen at creation or with `invoices.update`), which must not be none.
 */
export const sendInput = z.object({
  invoice_id: idIn(),
  invoice_details: invoiceDetailsInput.extend({ recipient_ids: namedRecipients.optional() }),
});
/** `invoices.resend`: the recipients are always named. */
export const resendInput = z.object({
  invoice_id: idIn(),
  invoice_details: invoiceDetailsInput.extend({ recipient_ids: namedRecipients }),
});
export const sendOutput = z.object({ invoice: invoiceSummary, queued: z.number().int().describe('Messages queued') });

export const voidInput = z.object({
  invoice_id: idIn(),
  credit_note_number: nonEmptyText(100)
    .describe('Number of the credit note issued for a sent invoice; default: the next of the CN-0001 series. Not allowed for a draft (nothing to credit).')
    .optional(),
  reason: z.string().trim().max(2000).describe("Printed on the credit note; default: 'Cancels invoice <number>.'").optional(),
});
export const voidOutput = z.object({
  invoice: invoiceSummary,
  credit_note: invoiceSummary.nullable().describe('The credit note issued (null when a draft was voided)'),
});

const paymentAmount = finite('amount')
  .refine((a) => a > 0, 'must be greater than 0')
  .refine((a) => a <= MAX_TOTAL, `must be at most ${MAX_TOTAL}`);

const paymentFields = {
  paid_on: flexibleDate.describe('The day the money arrived, YYYY-MM-DD (also MM/DD/YYYY); default: today in the workspace time zone; not in the future').optional(),
  method: z.enum(paymentMethods, { message: `must be one of ${paymentMethods.join(', ')}` }),
  reference: z.string().trim().max(200).describe('Bank reference, cheque number, …').optional(),
};

export const recordPaymentInput = z.object({
  invoice_id: idIn(),
  amount: paymentAmount.describe("In the invoice's currency; at most the balance due"),
  ...paymentFields,
});
export const markPaidInput = z.object({
  invoice_id: idIn(),
  ...paymentFields,
  method: paymentFields.method.default('other'),
});

export const paymentRecord = z.object({
  id: idOut,
  invoice_id: idOut,
  amount: z.number(),
  currency: z.string(),
  paid_on: dateOut,
  method: z.enum(paymentMethods),
  reference: z.string(),
  /** `card_processor` for a payment the processor reported (it cannot be deleted here). */
  source: z.enum(['manual', 'card_processor']),
  provider_payment_id: z.string().nullable(),
  /** A refund (a negative `amount`): the payment it gives money back from; null otherwise. */
  refund_of: idOut.nullable(),
  recorded_by: idOut.nullable(),
  created_at: dateTimeOut,
});
export type PaymentRecord = z.infer<typeof paymentRecord>;
export const paymentOutput = z.object({ payment: paymentRecord, invoice: invoiceSummary });
export const paymentsOutput = z.object({
  items: z.array(paymentRecord),
  /** Card payments the processor collected that were not recorded (see docs/invoices.md). */
  unapplied_card_payments: z.array(
    z.object({ event_id: z.string(), provider_payment_id: z.string().nullable(), amount_minor: z.number().int().nullable(), currency: z.string().nullable(), reason: z.string(), received_at: dateTimeOut }),
  ),
});
export const deletePaymentInput = z.object({ payment_id: idIn() });
export const nextNumberOutput = z.object({ number: z.string() });
export const pdfOutput = z.object({ filename: z.string(), content_type: z.literal('application/pdf'), base64: z.string() });

const deliveryRecord = z.object({
  id: idOut,
  kind: z.string(),
  to_address: z.string(),
  to_name: z.string().nullable(),
  subject: z.string(),
  status: z.enum(outboxStatuses),
  attempts: z.number().int(),
  next_attempt_at: dateTimeOut,
  last_error: z.string().nullable(),
  message_id: z.string(),
  sent_at: dateTimeOut.nullable(),
  created_at: dateTimeOut,
});
export const deliveriesOutput = z.object({ items: z.array(deliveryRecord) });
