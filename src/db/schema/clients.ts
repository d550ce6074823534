import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { bool, id, timestamps } from './columns.ts';
import { teamMembers } from './workspace.ts';

export const clients = sqliteTable(
  'clients',
  {
    id: id(),
    name: text('name').notNull(),
    /** Short readable code (e.g. `ACME`), unique in the workspace; prefixes project identifiers. */
    identifier: text('identifier').notNull(),
    secondaryName: text('secondary_name').notNull().default(''),
    internalNotes: text('internal_notes').notNull().default(''),
    /** ISO 4217 code. */
    currency: text('currency').notNull(),
    status: text('status', { enum: ['active', 'archived'] }).notNull().default('active'),
    logo: text('logo'),
    defaultInvoiceDueInDays: integer('default_invoice_due_in_days').notNull().default(30),
    includeHoursByPersonInInvoice: bool('include_hours_by_person_in_invoice').notNull().default(false),
    fullAddress: text('full_address').notNull().default(''),
    /** The client's tax or VAT id, printed under "Bill to". */
    taxId: text('tax_id').notNull().default(''),
    /** The `interval` of the client's latest invoice; null until an invoice exists. */
    lastInvoiceInterval: text('last_invoice_interval'),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('clients_identifier_idx').on(t.identifier),
    index('clients_status_idx').on(t.status, t.createdAt),
    index('clients_created_idx').on(t.createdAt, t.id),
    index('clients_updated_idx').on(t.updatedAt),
  ],
);

export const recipients = sqliteTable(
  'recipients',
  {
    id: id(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id),
    creatorId: text('creator_id').references(() => teamMembers.id),
    name: text('name').notNull(),
    /** Trimmed, domain lower-cased. */
    email: text('email').notNull(),
    deleted: bool('deleted').notNull().default(false),
    ...timestamps,
  },
  (t) => [
    index('recipients_client_idx').on(t.clientId, t.createdAt),
    // One live recipient per address and client; deleted ones do not block re-adding the address.
    uniqueIndex('recipients_client_email_idx')
      .on(t.clientId, sql`lower(${t.email})`)
      .where(sql`${t.deleted} = 0`),
  ],
);
