import { randomUUID } from 'node:crypto';
import { and, eq, gt, inArray, like, ne, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Database, Db } from '../../db/index.ts';
import { clients, invoices, projects } from '../../db/schema/index.ts';
import { AppError, notFound } from '../../errors.ts';
import { afterCursor, keysetOrder, pageOf } from '../pagination.ts';
import type { ClientRecord, createClientInput, listInput, updateInput, updateStatusInput } from './schemas.ts';

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

/**
 * A client's projects carry its currency and its invoices were issued in it, so the currency is
 * fixed once either exists: changing it would make every rate and amount mean something else.
 */
function assertCurrencyFree(tx: Db, clientId: string): void {
  const used =
    tx.select({ id: projects.id }).from(projects).where(eq(projects.clientId, clientId)).limit(1).get() ??
    tx.select({ id: invoices.id }).from(invoices).where(eq(invoices.clientId, clientId)).limit(1).get();
  if (used) {
    throw new AppError('unprocessable', 'currency_locked', "The client's currency cannot change once it has projects or invoices", {
      details: [{ path: 'client.currency', message: 'cannot change once the client has projects or invoices' }],
    });
  }
}

/**
 * Endpoint 14: only the given fields change. The identifier stays as it was when the name changes,
 * because project identifiers already carry it. A body that names no known field changes nothing,
 * not even `updated_at`.
 */
export function updateClient(db: Database, input: z.output<typeof updateInput>, now: Date): ClientRow {
  return db.transaction((tx) => {
    const current = getClientRow(tx, input.client_id);
    const c = input.client;
    const fullAddress = c.address_attributes?.full_address;
    const changes: Partial<ClientRow> = {
      ...(c.name !== undefined && { name: c.name }),
      ...(c.secondary_name !== undefined && { secondaryName: c.secondary_name }),
      ...(c.internal_notes !== undefined && { internalNotes: c.internal_notes }),
      ...(c.currency !== undefined && { currency: c.currency }),
      ...(c.default_invoice_due_in_days !== undefined && { defaultInvoiceDueInDays: c.default_invoice_due_in_days }),
      ...(c.status !== undefined && { status: c.status }),
      ...(fullAddress !== undefined && { fullAddress }),
    };
    if (Object.keys(changes).length === 0) return current;
    if (changes.currency !== undefined && changes.currency !== current.currency) assertCurrencyFree(tx, current.id);
    const next = { ...current, ...changes, updatedAt: now.toISOString() };
    tx.update(clients).set(next).where(eq(clients.id, current.id)).run();
    return next;
  });
}

const MISSING_IDS_IN_MESSAGE = 5;

/**
 * Endpoint 15: every id must be a client of this workspace, else nothing changes and the 404 names
 * the missing ids. Clients already in the requested status are left untouched (`updated_at` too).
 */
export function updateClientStatus(db: Database, input: z.output<typeof updateStatusInput>, now: Date): void {
  const ids = [...new Set(input.client_ids)];
  db.transaction((tx) => {
    const found = new Set(
      tx
        .select({ id: clients.id })
        .from(clients)
        .where(inArray(clients.id, ids))
        .all()
        .map((r) => r.id),
    );
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length > 0) {
      const shown = missing.slice(0, MISSING_IDS_IN_MESSAGE).join(', ');
      const more = missing.length > MISSING_IDS_IN_MESSAGE ? ` and ${missing.length - MISSING_IDS_IN_MESSAGE} more` : '';
      throw new AppError(
        'not_found',
        'client_not_found',
        `No client with id ${shown}${more} in this workspace; no client was changed`,
        { extra: { missing_ids: missing } },
      );
    }
    tx.update(clients)
      .set({ status: input.status, updatedAt: now.toISOString() })
      .where(and(inArray(clients.id, ids), ne(clients.status, input.status)))
      .run();
  });
}

/** `%`, `_` and the escape character itself match literally in a search. */
const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;

/** The tRPC listing: keyset pages by creation, filtered by status, name and change time. */
export function listClients(db: Db, input: z.output<typeof listInput>, organizationId: string) {
  const rows = db
    .select()
    .from(clients)
    .where(
      and(
        input.status ? eq(clients.status, input.status) : undefined,
        // SQLite's LIKE ignores case for ASCII letters only.
        input.search ? sql`${clients.name} LIKE ${likePattern(input.search)} ESCAPE '\\'` : undefined,
        input.updated_since ? gt(clients.updatedAt, input.updated_since) : undefined,
        afterCursor(clients, input.cursor),
      ),
    )
    .orderBy(...keysetOrder(clients))
    .limit(input.limit + 1)
    .all();
  const page = pageOf(rows, input.limit);
  return { items: page.items.map((r) => toClientRecord(r, organizationId)), next_cursor: page.next_cursor };
}
