import { randomBytes, randomUUID } from 'node:crypto';
import type { Database } from '../../src/db/index.ts';
import { invoices, payments } from '../../src/db/schema/index.ts';

/**
 * Invoices and payments written straight into a workspace file. Nothing on this branch records
 * payments yet (the payment procedures come from another branch), so the receivables and payment
 * tests insert them here.
 */

let seq = 0;

export function makeInvoice(db: Database, clientId: string, creatorId: string, over: Partial<typeof invoices.$inferInsert> = {}) {
  const n = ++seq;
  const at = over.createdAt ?? '2026-01-01T00:00:00.000Z';
  const row = {
    id: randomUUID(),
    clientId,
    creatorId,
    number: `T-${String(n).padStart(5, '0')}-${randomBytes(3).toString('hex')}`,
    status: 'sent' as const,
    currency: 'USD',
    issueDate: '2026-01-01',
    dueDate: '2026-01-31',
    subtotalMinor: 10000,
    taxMinor: 0,
    totalMinor: 10000,
    publicToken: randomBytes(32).toString('base64url'),
    kind: 'invoice' as const,
    createdAt: at,
    updatedAt: at,
    ...over,
  } satisfies typeof invoices.$inferInsert;
  db.insert(invoices).values(row).run();
  return row;
}

export function makePayment(db: Database, invoiceId: string, over: Partial<typeof payments.$inferInsert> = {}) {
  const row = {
    id: randomUUID(),
    invoiceId,
    amountMinor: 1000,
    paidOn: '2026-01-15',
    method: 'bank_transfer' as const,
    reference: '',
    providerPaymentId: null,
    recordedBy: null,
    createdAt: '2026-01-15T00:00:00.000Z',
    ...over,
  } satisfies typeof payments.$inferInsert;
  db.insert(payments).values(row).run();
  return row;
}
