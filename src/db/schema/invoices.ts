import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { bool, id, timestamps } from './columns.ts';
import { clients } from './clients.ts';
import { projects } from './projects.ts';
import { teamMembers } from './workspace.ts';

export const invoiceStatuses = ['draft', 'sending', 'sent', 'partially_paid', 'paid', 'void'] as const;

/** An invoice, or a credit note that cancels a sent invoice (it keeps its own number and PDF). */
export const invoiceKinds = ['invoice', 'credit_note'] as const;

/** How a payment reached the agency. */
export const paymentMethods = ['bank_transfer', 'card', 'cash', 'check', 'other'] as const;

export const invoices = sqliteTable(
  'invoices',
  {
    id: id(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id),
    creatorId: text('creator_id')
      .notNull()
      .references(() => teamMembers.id),
    number: text('number').notNull(),
    status: text('status', { enum: invoiceStatuses }).notNull().default('draft'),
    currency: text('currency').notNull(),
    /** `YYYY-MM-DD`. */
    issueDate: text('issue_date').notNull(),
    dueDate: text('due_date').notNull(),
    dueDatePeriod: integer('due_date_period'),
    interval: text('interval'),
    notes: text('notes').notNull().default(''),
    subtotalMinor: integer('subtotal_minor').notNull(),
    taxMinor: integer('tax_minor').notNull(),
    totalMinor: integer('total_minor').notNull(),
    includeHoursByPerson: bool('include_hours_by_person').notNull().default(false),
    includeHoursByTask: bool('include_hours_by_task').notNull().default(false),
    includeTimeEntries: bool('include_time_entries').notNull().default(false),
    sendAutomatedReminderEmail: bool('send_automated_reminder_email').notNull().default(false),
    includePaymentLink: bool('include_payment_link').notNull().default(false),
    paymentProvider: text('payment_provider'),
    displayTaskName: bool('display_task_name').notNull().default(true),
    displayPersonName: bool('display_person_name').notNull().default(true),
    displayDate: bool('display_date').notNull().default(true),
    displayNote: bool('display_note').notNull().default(true),
    displayProjectName: bool('display_project_name').notNull().default(true),
    sendEmail: bool('send_email').notNull().default(false),
    emailSubject: text('email_subject'),
    emailMessage: text('email_message'),
    attachPdf: bool('attach_pdf').notNull().default(false),
    sendMeACopy: bool('send_me_a_copy').notNull().default(false),
    /** Unguessable token of the public invoice page (`/invoices/<token>`). */
    publicToken: text('public_token').notNull(),
    kind: text('kind', { enum: invoiceKinds }).notNull().default('invoice'),
    /** For a credit note: the invoice it cancels. */
    creditedInvoiceId: text('credited_invoice_id'),
    sentAt: text('sent_at'),
    paidAt: text('paid_at'),
    voidedAt: text('voided_at'),
    /** When the invoice was first found overdue (its `invoice.overdue` event); null before. */
    overdueAt: text('overdue_at'),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('invoices_number_idx').on(t.number),
    uniqueIndex('invoices_token_idx').on(t.publicToken),
    index('invoices_client_idx').on(t.clientId, t.issueDate),
    index('invoices_status_idx').on(t.status, t.dueDate),
    index('invoices_created_idx').on(t.createdAt, t.id),
    index('invoices_updated_idx').on(t.updatedAt),
    index('invoices_credited_idx').on(t.creditedInvoiceId),
  ],
);

export const invoiceProjects = sqliteTable(
  'invoice_projects',
  {
    invoiceId: text('invoice_id')
      .notNull()
      .references(() => invoices.id),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id),
  },
  (t) => [primaryKey({ columns: [t.invoiceId, t.projectId] })],
);

/**
 * An invoice's lines, read only per invoice in position order (invoice_lines_invoice_idx; see
 * `readLines`, which every reader goes through). A time line names what it bills by the entry's
 * id and its (project, task, person) combination's number in `time_entry_combos`, whose rows are
 * never changed or deleted, so the line keeps naming what it billed after its entry moves or goes;
 * a service line names at most a project. An invoice of 5,000 entries writes 5,000 lines, so a
 * line holds no more than it must: no copies of three UUIDs, and its id is its row number. With
 * random keys, an index on a UUID id or on the entry took a write on nearly every one of its pages
 * per large invoice, and nothing reads through them.
 */
export const invoiceLines = sqliteTable(
  'invoice_lines',
  {
    /** The line's number in the workspace (its rowid); a draft's lines are renumbered when replaced. */
    id: integer('id').primaryKey(),
    invoiceId: text('invoice_id')
      .notNull()
      .references(() => invoices.id),
    kind: text('kind', { enum: ['time_entry', 'service'] }).notNull(),
    position: integer('position').notNull(),
    timeEntryId: text('time_entry_id'),
    /** Time lines: the entry's (project, task, person) in `time_entry_combos`. */
    comboId: integer('combo_id'),
    /** Service lines: the project the line is for, if any (a time line's is its combination's). */
    projectId: text('project_id'),
    notes: text('notes').notNull().default(''),
    /** Time lines: billed seconds and rate per hour in minor units. */
    seconds: integer('seconds'),
    /**
     * The hours a time line stated itself, as exact decimal text (`"0.1234"`); its amount is these
     * hours × the rate, rounded once. Null when the line billed the entry's own (rounded) seconds.
     */
    hours: text('hours'),
    hourlyRateMinor: integer('hourly_rate_minor'),
    /** Service lines: quantity in thousandths (1.5 → 1500) and unit amount in minor units. */
    quantityMilli: integer('quantity_milli'),
    unitAmountMinor: integer('unit_amount_minor'),
    file: text('file'),
    amountMinor: integer('amount_minor').notNull(),
  },
  (t) => [index('invoice_lines_invoice_idx').on(t.invoiceId, t.position)],
);

export const invoiceTaxes = sqliteTable(
  'invoice_taxes',
  {
    id: id(),
    invoiceId: text('invoice_id')
      .notNull()
      .references(() => invoices.id),
    position: integer('position').notNull(),
    name: text('name').notNull(),
    /** The percentage as given, kept as decimal text to avoid float drift (e.g. `"7.25"`). */
    percentage: text('percentage').notNull(),
    notes: text('notes').notNull().default(''),
    selected: bool('selected').notNull(),
    /** Zero when not selected. */
    amountMinor: integer('amount_minor').notNull(),
  },
  (t) => [index('invoice_taxes_invoice_idx').on(t.invoiceId, t.position)],
);

export const invoiceRecipients = sqliteTable(
  'invoice_recipients',
  {
    invoiceId: text('invoice_id')
      .notNull()
      .references(() => invoices.id),
    recipientId: text('recipient_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.invoiceId, t.recipientId] })],
);

/** Reminders sent for unpaid invoices; one row per invoice and reminder date, so each is sent once. */
export const invoiceReminders = sqliteTable(
  'invoice_reminders',
  {
    invoiceId: text('invoice_id')
      .notNull()
      .references(() => invoices.id),
    remindOn: text('remind_on').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.invoiceId, t.remindOn] })],
);


/**
 * Money received for an invoice. An invoice's balance due is its total minus the sum of its
 * payments; its status follows (`partially_paid`, then `paid`). Money given back (a card payment
 * refunded with the processor) is a payment of a negative amount linked to the one it refunds
 * (`refund_of`), dated the day it was reported, so every sum of payments nets it out.
 */
export const payments = sqliteTable(
  'payments',
  {
    id: id(),
    invoiceId: text('invoice_id')
      .notNull()
      .references(() => invoices.id),
    /** In the invoice's currency, minor units, > 0; < 0 for a refund (`refund_of` set). */
    amountMinor: integer('amount_minor').notNull(),
    /** `YYYY-MM-DD`, the day the money arrived. */
    paidOn: text('paid_on').notNull(),
    method: text('method', { enum: paymentMethods }).notNull(),
    reference: text('reference').notNull().default(''),
    /**
     * The card processor's id for a payment it reported (checkout session), unique, so one
     * processor payment is recorded once however often its webhook arrives. Null for manual ones.
     * For a refund the processor reported: the id of the event that reported it.
     */
    providerPaymentId: text('provider_payment_id'),
    /** For a refund: the payment it gives money back from (its amount is negative). Null otherwise. */
    refundOf: text('refund_of'),
    /** The team member who recorded it; null when the processor or the workspace key did. */
    recordedBy: text('recorded_by'),
    createdAt: text('created_at').notNull(),
  },
  (t) => [
    index('payments_invoice_idx').on(t.invoiceId, t.paidOn),
    index('payments_paid_on_idx').on(t.paidOn),
    uniqueIndex('payments_provider_idx').on(t.providerPaymentId),
    index('payments_refund_of_idx').on(t.refundOf),
  ],
);
