import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { clients } from '../../db/schema/index.ts';
import { requireAdmin } from '../access.ts';
import { recordEvent } from '../events.ts';
import type { Scope } from '../scope.ts';
import { clientIdentifier } from './queries.ts';
import { toClientRecord, type ClientRow } from './records.ts';
import type { createInput, createOutput } from './schemas.ts';

/** `clients.create` (tRPC) and the command line's `client create`. */
export function createClient(scope: Scope, input: z.output<typeof createInput>): z.output<typeof createOutput> {
  requireAdmin(scope, 'create clients');
  return scope.write((tx) => {
    const at = scope.now.toISOString();
    const row: ClientRow = {
      id: randomUUID(),
      name: input.name,
      identifier: clientIdentifier(tx, input.name),
      secondaryName: input.secondary_name ?? '',
      internalNotes: input.internal_notes ?? '',
      currency: input.currency,
      status: 'active',
      logo: null,
      defaultInvoiceDueInDays: input.default_invoice_due_in_days,
      includeHoursByPersonInInvoice: false,
      fullAddress: input.full_address ?? '',
      taxId: input.tax_id ?? '',
      lastInvoiceInterval: null,
      createdAt: at,
      updatedAt: at,
    };
    tx.insert(clients).values(row).run();
    const client = toClientRecord(row, scope.workspace.id);
    recordEvent(scope, tx, 'client.created', { client });
    return { client };
  });
}
