import { blob, index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Who the workspace is on its invoices, mail and public pages: at most one row (id 1). Absent until
 * someone sets it; every field then has a sensible default (the workspace's name, `en-US`).
 */
export const workspaceIdentity = sqliteTable('workspace_identity', {
  id: integer('id').primaryKey(),
  legalName: text('legal_name').notNull().default(''),
  /** Postal address as entered, lines separated by `\n` (never split at commas). */
  address: text('address').notNull().default(''),
  /** Tax or VAT id, e.g. `DE123456789`. */
  taxId: text('tax_id').notNull().default(''),
  /** The logo as stored: re-encoded PNG or JPEG, or sanitised SVG. */
  logo: blob('logo', { mode: 'buffer' }),
  logoMime: text('logo_mime', { enum: ['image/png', 'image/jpeg', 'image/svg+xml'] }),
  /** For an SVG logo: a PNG rendering of the sanitised SVG, which is what the PDF draws. */
  logoRaster: blob('logo_raster', { mode: 'buffer' }),
  /** Display name of the From header (the address itself comes from MAIL_FROM). */
  senderName: text('sender_name').notNull().default(''),
  /** Reply-To of invoice mail when the invoice's projects name none. */
  replyTo: text('reply_to'),
  /** Bank details and other ways to pay, multi-line as entered. */
  paymentInstructions: text('payment_instructions').notNull().default(''),
  invoiceFooter: text('invoice_footer').notNull().default(''),
  /** BCP 47 tag for dates and numbers on invoices, e.g. `de-DE`. */
  locale: text('locale').notNull().default('en-US'),
  /** Counts every change, so anything rendered from the identity (cached PDFs) knows it is stale. */
  revision: integer('revision').notNull().default(1),
  updatedAt: text('updated_at').notNull(),
});

/**
 * The workspace's card processor account (Stripe). The secret key must be usable to call the
 * processor, so it is stored as given (inside the workspace file, like every other workspace
 * secret of the file's owner); reads only ever show its last four characters.
 */
export const paymentProcessors = sqliteTable('payment_processors', {
  provider: text('provider', { enum: ['stripe'] }).primaryKey(),
  secretKey: text('secret_key').notNull(),
  webhookSecret: text('webhook_secret').notNull(),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
});

export const processorEventOutcomes = ['recorded', 'unapplied', 'ignored'] as const;

/**
 * Every processor event applied, by its id, so a redelivered or replayed event changes nothing.
 * `unapplied` marks money the processor collected that was not recorded as a payment (another
 * currency, more than the balance, a void invoice): it needs a person (refund or record by hand).
 */
export const processorEvents = sqliteTable(
  'processor_events',
  {
  id: text('id').primaryKey(),
  type: text('type').notNull(),
  invoiceId: text('invoice_id'),
  /** The checkout session id; for a refund (`charge.refunded`), the payment intent refunded. */
  providerPaymentId: text('provider_payment_id'),
  /** What the processor collected, in the invoice currency's minor units when it is that currency (negative: given back). */
  amountMinor: integer('amount_minor'),
  currency: text('currency'),
  outcome: text('outcome', { enum: processorEventOutcomes }).notNull(),
  reason: text('reason').notNull().default(''),
  createdAt: text('created_at').notNull(),
  },
  (t) => [index('processor_events_invoice_idx').on(t.invoiceId, t.createdAt)],
);
