import { eq, gt, sql } from 'drizzle-orm';
import type * as z from 'zod';
import { clients } from '../../db/schema/index.ts';
import { keysetPage, mapPage } from '../queries.ts';
import type { Scope } from '../scope.ts';
import { toClientRecord } from './records.ts';
import type { listInput, listOutput } from './schemas.ts';
import { requireAdmin } from '../access.ts';

/** `%`, `_` and the escape character itself match literally in a search. */
const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;

/** tRPC `clients.list`: keyset pages by creation, filtered by status, name and change time. */
export function listClients(scope: Scope, input: z.output<typeof listInput>): z.output<typeof listOutput> {
  requireAdmin(scope, 'see clients');
  const page = keysetPage(
    scope.db.select().from(clients).$dynamic(),
    clients,
    [
      input.status ? eq(clients.status, input.status) : undefined,
      // SQLite's LIKE ignores case for ASCII letters only.
      input.search ? sql`${clients.name} LIKE ${likePattern(input.search)} ESCAPE '\\'` : undefined,
      input.updated_since ? gt(clients.updatedAt, input.updated_since) : undefined,
    ],
    input,
  );
  return mapPage(page, (rows) => rows.map((r) => toClientRecord(r, scope.workspace.id)));
}
