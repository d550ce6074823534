import { randomUUID } from 'node:crypto';
import { eq, like } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '../../db/index.ts';
import { clients } from '../../db/schema/index.ts';
import { notFound } from '../../errors.ts';
import type { ClientRecord, createClientInput } from './schemas.ts';

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
  created_at: row.createdAt,
  updated_at: row.updatedAt,
});

/** Any id (even a malformed one) that is not a client of this workspace is a 404. */
export function getClientRow(db: Db, clientId: string): ClientRow {
  const row = db.select().from(clients).where(eq(clients.id, clientId)).get();
  if (!row) throw notFound('client', `No client with id ${clientId} in this workspace`);
  return row;
}

/**
 * A short readable code from the client's name (`Acme Corp` → `ACME`), made unique with a number
 * (`ACME2`). It prefixes the client's project identifiers.
 */
export function clientIdentifier(db: Db, name: string): string {
  const letters = name
    .normalize('NFKD')
    .toUpperCase()
    .replace(/[^A-Z0-9 ]/g, '')
    .trim();
  const words = letters.split(/\s+/).filter(Boolean);
  const base = (words[0] && words[0].length >= 3 ? words[0] : words.join('')).slice(0, 6) || 'CLIENT';
  const taken = new Set(
    db
      .select({ identifier: clients.identifier })
      .from(clients)
      .where(like(clients.identifier, `${base}%`))
      .all()
      .map((r) => r.identifier),
  );
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}${n}`)) return `${base}${n}`;
}

export function createClient(db: Db, input: z.output<typeof createClientInput>, now: Date): ClientRow {
  const at = now.toISOString();
  const row: ClientRow = {
    id: randomUUID(),
    name: input.name,
    identifier: clientIdentifier(db, input.name),
    secondaryName: input.secondary_name ?? '',
    internalNotes: input.internal_notes ?? '',
    currency: input.currency,
    status: 'active',
    logo: null,
    defaultInvoiceDueInDays: input.default_invoice_due_in_days,
    includeHoursByPersonInInvoice: false,
    fullAddress: input.full_address ?? '',
    lastInvoiceInterval: null,
    createdAt: at,
    updatedAt: at,
  };
  db.insert(clients).values(row).run();
  return row;
}
