import { eq, sql } from 'drizzle-orm';
import type { Database } from '../../db/index.ts';
import { clients } from '../../db/schema/index.ts';
import { notFound } from '../../errors.ts';
import type { WorkspaceHandle } from '../../workspaces/handle.ts';
import { liveRecipientsOf, toRecipientRecord } from '../recipients/recipients.ts';
import { toClientRecord } from './clients.ts';
import type { getOutput } from './schemas.ts';
import type { z } from 'zod';

const statements = (db: Database) => ({
  byId: db.select().from(clients).where(eq(clients.id, sql.placeholder('id'))).prepare(),
});

/** Endpoint 13 and `clients.get`: the client with its live recipients, two prepared queries. */
export function readClient(handle: WorkspaceHandle, organizationId: string, clientId: string): z.infer<typeof getOutput> {
  const memo = <T>(build: (db: Database) => T) => handle.memo(build);
  const row = memo(statements).byId.get({ id: clientId });
  if (!row) throw notFound('client', `No client with id ${clientId} in this workspace`);
  return {
    client: toClientRecord(row, organizationId),
    recipients: liveRecipientsOf(memo, row.id).map(toRecipientRecord),
  };
}
