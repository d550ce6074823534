import type { clients } from '../../db/schema/index.ts';
import type { ClientRecord } from './schemas.ts';

export type ClientRow = typeof clients.$inferSelect;

export const toClientRecord = (row: ClientRow, organizationId: string): ClientRecord => ({
  id: row.id,
  organization_id: organizationId,
  name: row.name,
  identifier: row.identifier,
  internal_notes: row.internalNotes,
  currency: row.currency,
  secondary_name: row.secondaryName,
  last_invoice_interval: row.lastInvoiceInterval,
  status: row.status,
  logo: row.logo,
  default_invoice_due_in_days: row.defaultInvoiceDueInDays,
  include_hours_by_person_in_invoice: row.includeHoursByPersonInInvoice,
  address: row.fullAddress,
  tax_id: row.taxId,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
});
