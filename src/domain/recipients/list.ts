import { eq, gt } from 'drizzle-orm';
import type * as z from 'zod';
import { recipients } from '../../db/schema/index.ts';
import { getClientRow } from '../clients/queries.ts';
import { keysetPage, mapPage } from '../queries.ts';
import type { Scope } from '../scope.ts';
import { toRecipientRecord } from './records.ts';
import type { listInput, listOutput } from './schemas.ts';
import { requireAdmin } from '../access.ts';

/** tRPC `recipients.list`: keyset pages of one client's recipients. */
export function listRecipients(scope: Scope, input: z.output<typeof listInput>): z.output<typeof listOutput> {
  requireAdmin(scope, 'see recipients');
  getClientRow(scope.db, input.client_id);
  const page = keysetPage(
    scope.db.select().from(recipients).$dynamic(),
    recipients,
    [
      eq(recipients.clientId, input.client_id),
      input.include_deleted ? undefined : eq(recipients.deleted, false),
      input.updated_since ? gt(recipients.updatedAt, input.updated_since) : undefined,
    ],
    input,
  );
  return mapPage(page, (rows) => rows.map(toRecipientRecord));
}
