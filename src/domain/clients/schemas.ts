import { z } from 'zod';
import { currency, nonEmptyText } from '../fields.ts';

/** The spec's Client record (read). */
export const clientRecord = z.object({
  id: z.string(),
  organization_id: z.string(),
  name: z.string(),
  identifier: z.string(),
  internal_notes: z.string(),
  currency: z.string(),
  secondary_name: z.string(),
  last_invoice_interval: z.string().nullable(),
  status: z.enum(['active', 'archived']),
  logo: z.string().nullable(),
  default_invoice_due_in_days: z.number().int(),
  include_hours_by_person_in_invoice: z.boolean(),
  address: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ClientRecord = z.infer<typeof clientRecord>;

export const createClientInput = z.object({
  name: nonEmptyText(200),
  secondary_name: z.string().trim().max(200).optional(),
  internal_notes: z.string().max(10_000).optional(),
  currency: currency.default('USD'),
  default_invoice_due_in_days: z.number().int().min(0).max(3650).default(30),
  full_address: z.string().max(2000).optional(),
});
