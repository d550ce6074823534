import { sql } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { projects } from '../../db/schema/index.ts';

/** GLOB treats `*`, `?` and `[` as wildcards; wrapping each in brackets makes it literal. */
const globLiteral = (text: string) => text.replace(/[*?[\]]/g, (c) => `[${c}]`);

/**
 * The next readable identifier for a project of a client: the client's code, a dash and a
 * sequence of at least four digits (`ACME-0001`, `ACME-0002`, ..., `ACME-10000`). The sequence
 * continues after the highest one in use with that prefix — whichever client holds it — so the
 * identifier is unique even if a client's code was ever reused. Call it inside the transaction
 * that inserts the project, so two creates can never take the same number.
 */
export function nextProjectIdentifier(db: Db, clientCode: string): string {
  const prefix = `${clientCode}-`;
  const row = db
    .select({ highest: sql<number | null>`max(cast(substr(${projects.identifier}, ${prefix.length + 1}) as integer))` })
    .from(projects)
    .where(sql`${projects.identifier} GLOB ${`${globLiteral(prefix)}[0-9]*`}`)
    .get();
  const next = (row?.highest ?? 0) + 1;
  return `${prefix}${String(next).padStart(4, '0')}`;
}
