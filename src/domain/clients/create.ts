import { randomUUID } from 'node:crypto';
import type * as z from 'zod';
import { clients } from '../../db/schema/index.ts';
import { requireAdmin } from '../access.ts';
import { recordEvent } from '../events.ts';
import type { Scope } from '../scope.ts';
import { clientIdentifier } from './queries.ts';
import { toClientRecord, type ClientRow } from './records.ts';
import type { addInput, addOutput, createInput, createOutput } from './schemas.ts';

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
      status: input.status ?? 'active',
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
    recordEvent(scope, 'client.created', { client });
    return { client };
  });
}

/** The vendor's POST v1 /clients: the REST-shaped body over the same operation, in one transaction. */
export function addClient(scope: Scope, input: z.output<typeof addInput>): z.output<typeof addOutput> {
  const c = input.client;
  return scope.write(() => {
    const { client } = createClient(scope, {
      name: c.name,
      secondary_name: c.secondary_name,
      internal_notes: c.internal_notes,
      currency: c.currency,
      default_invoice_due_in_days: c.default_invoice_due_in_days ?? 30,
      full_address: c.address_attributes?.full_address,
      tax_id: c.tax_id,
      status: c.status,
    });
    return { notice_code: 'client_created' as const, client_id: client.id, client };
  });
}
