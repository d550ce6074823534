import type { z } from 'zod';
import { clients } from '../../db/schema/index.ts';
import { requireAdmin } from '../access.ts';
import type { Scope } from '../scope.ts';
import { changeStatus } from '../status-change.ts';
import type { updateStatusInput } from './schemas.ts';

/**
 * Endpoint 15: every id must be a client of this workspace, else nothing changes and the 404 names
 * the missing ids. Clients already in the requested status are left untouched (`updated_at` too).
 */
export function updateClientStatus(scope: Scope, input: z.output<typeof updateStatusInput>): void {
  requireAdmin(scope, 'archive or reactivate clients');
  scope.write((tx) => {
    changeStatus(tx, { resource: 'client', table: clients, ids: input.client_ids, to: input.status, at: scope.now.toISOString() });
  });
}
