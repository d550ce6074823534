import type * as z from 'zod';
import { getTableColumns } from 'drizzle-orm';
import { clients } from '../../db/schema/index.ts';
import { requireAdmin } from '../access.ts';
import { recordEvent } from '../events.ts';
import { inIds } from '../queries.ts';
import type { Scope } from '../scope.ts';
import { changeStatus } from '../status-change.ts';
import { toClientRecord } from './records.ts';
import type { updateStatusInput } from './schemas.ts';

/**
 * Endpoint 15: every id must be a client of this workspace, else nothing changes and the 404 names
 * the missing ids. Clients already in the requested status are left untouched (`updated_at` too).
 */
export function updateClientStatus(scope: Scope, input: z.output<typeof updateStatusInput>): void {
  requireAdmin(scope, 'archive or reactivate clients');
  scope.write((tx) => {
    const moved = changeStatus(tx, { resource: 'client', table: clients, ids: input.client_ids, to: input.status, at: scope.now.toISOString() });
    const rows = moved.length ? tx.select(getTableColumns(clients)).from(clients).where(inIds(clients.id, moved)).all() : [];
    for (const row of rows) recordEvent(scope, 'client.status_changed', { client: toClientRecord(row, scope.workspace.id) });
  });
}
