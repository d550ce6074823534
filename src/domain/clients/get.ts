import { eq, sql } from 'drizzle-orm';
import type * as z from 'zod';
import type { Database } from '../../db/index.ts';
import { clients } from '../../db/schema/index.ts';
import { notFound } from '../../errors.ts';
import { liveRecipientsOf } from '../recipients/queries.ts';
import { toRecipientRecord } from '../recipients/records.ts';
import type { Scope } from '../scope.ts';
import { toClientRecord } from './records.ts';
import type { getInput, getOutput } from './schemas.ts';
import { requireAdmin } from '../access.ts';

const statements = (db: Database) => ({
  byId: db.select().from(clients).where(eq(clients.id, sql.placeholder('id'))).prepare(),
});

/** Endpoint 13 and `clients.get`: the client with its live recipients, two prepared queries. */
export function getClient(scope: Scope, input: z.output<typeof getInput>): z.output<typeof getOutput> {
  requireAdmin(scope, 'see clients');
  const row = scope.statements(statements).byId.get({ id: input.client_id });
  if (!row) throw notFound('client', `No client with id ${input.client_id} in this workspace`);
  return {
    client: toClientRecord(row, scope.workspace.id),
    recipients: liveRecipientsOf(scope, row.id).map(toRecipientRecord),
  };
}
