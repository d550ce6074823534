import { eq, like } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { clients, invoices, projects } from '../../db/schema/index.ts';
import { AppError, notFound } from '../../errors.ts';
import type { ClientRow } from './records.ts';

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

/**
 * A client's projects carry its currency and its invoices were issued in it, so the currency is
 * fixed once either exists: changing it would make every rate and amount mean something else.
 */
export function assertCurrencyFree(tx: Db, clientId: string): void {
  const used =
    tx.select({ id: projects.id }).from(projects).where(eq(projects.clientId, clientId)).limit(1).get() ??
    tx.select({ id: invoices.id }).from(invoices).where(eq(invoices.clientId, clientId)).limit(1).get();
  if (used) {
    throw new AppError('unprocessable', 'currency_locked', "The client's currency cannot change once it has projects or invoices", {
      details: [{ path: 'client.currency', message: 'cannot change once the client has projects or invoices' }],
    });
  }
}
