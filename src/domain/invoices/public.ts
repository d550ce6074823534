import { eq, sql } from 'drizzle-orm';
import type { Database } from '../../db/index.ts';
import { invoices } from '../../db/schema/index.ts';
import type { Scope } from '../scope.ts';
import { documentContext, documentFor, type InvoiceDocument } from './document.ts';
import type { InvoiceRow } from './records.ts';

/** Public tokens are 43 base64url characters (256 random bits); anything else is not looked up. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

const statements = (db: Database) => ({
  byToken: db.select().from(invoices).where(eq(invoices.publicToken, sql.placeholder('token'))).prepare(),
});

interface PublicInvoice {
  invoice: InvoiceRow;
  /** The whole document; read only when needed (the PDF usually comes from its cache). */
  document: () => InvoiceDocument;
}

/**
 * The invoice behind a public link, or null. No key and no person: the unguessable token is the
 * credential, so a malformed one is not even looked up.
 */
export function findPublicInvoice(scope: Scope, token: string): PublicInvoice | null {
  if (!TOKEN.test(token)) return null;
  const invoice = scope.statements(statements).byToken.get({ token });
  if (!invoice) return null;
  return { invoice, document: () => documentFor(scope.db, invoice, documentContext(scope)) };
}
