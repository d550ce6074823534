import { eq } from 'drizzle-orm';
import type * as z from 'zod';
import { clients } from '../../db/schema/index.ts';
import { requireAdmin } from '../access.ts';
import { recordEvent } from '../events.ts';
import type { Scope } from '../scope.ts';
import { assertCurrencyFree, getClientRow } from './queries.ts';
import { toClientRecord, type ClientRow } from './records.ts';
import type { updateInput, updateOutput } from './schemas.ts';

/**
 * Endpoint 14: only the given fields change. The identifier stays as it was when the name changes,
 * because project identifiers already carry it. A body that names no known field changes nothing,
 * not even `updated_at`.
 */
export function updateClient(scope: Scope, input: z.output<typeof updateInput>): z.output<typeof updateOutput> {
  requireAdmin(scope, 'update clients');
  return scope.write((tx) => {
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
      ...(c.tax_id !== undefined && { taxId: c.tax_id }),
    };
    if (Object.keys(changes).length > 0) {
      if (changes.currency !== undefined && changes.currency !== current.currency) assertCurrencyFree(tx, current.id);
      const next = { ...current, ...changes, updatedAt: scope.now.toISOString() };
      tx.update(clients).set(next).where(eq(clients.id, current.id)).run();
      recordEvent(scope, 'client.updated', { client: toClientRecord(next, scope.workspace.id) });
    }
    return { notice_code: 'client_updated', client_id: current.id };
  });
}
