import { eq, sql } from 'drizzle-orm';
import type { Database, Db } from '../../db/index.ts';
import type { Scope } from '../scope.ts';
import { events, webhookEndpoints, webhookFanout } from '../../db/schema/index.ts';
import { notFound } from '../../errors.ts';
import type { EndpointRow } from './records.ts';

export function getEndpointRow(db: Db, endpointId: string): EndpointRow {
  const row = db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpointId)).get();
  if (!row) throw notFound('webhook_endpoint', `No webhook endpoint with id ${endpointId} in this workspace`);
  return row;
}

const FANOUT_ROW = 1;

const positionStatements = (db: Database) => ({
  get: db.select().from(webhookFanout).where(eq(webhookFanout.id, FANOUT_ROW)).prepare(),
  set: db
    .insert(webhookFanout)
    .values({ id: FANOUT_ROW, lastEventRowid: sql.placeholder('rowid') })
    .onConflictDoUpdate({ target: webhookFanout.id, set: { lastEventRowid: sql`excluded.last_event_rowid` } })
    .prepare(),
});

/** The rowid of the last event the fan-out has handled (0 before the first). */
export const fanoutPosition = (scope: Pick<Scope, 'statements'>): number => scope.statements(positionStatements).get.get()?.lastEventRowid ?? 0;

export function setFanoutPosition(scope: Pick<Scope, 'statements'>, rowid: number): void {
  scope.statements(positionStatements).set.run({ rowid });
}

/** The rowid of the newest event (0 before the first): where an endpoint created or turned on now starts. */
export const lastEventRowid = (scope: Pick<Scope, 'statements'>): number => scope.statements(lastEventStatement).get()?.rowid ?? 0;

const lastEventStatement = (db: Database) => db.select({ rowid: sql<number | null>`max(rowid)` }).from(events).prepare();

/**
 * Called when an endpoint is created or turned on, with the newest event's rowid: when it is the
 * only enabled one, the fan-out (which rests while no endpoint is enabled) starts from there, so
 * it never walks the events that happened while nobody listened. Nobody needs them: the endpoints
 * that are off got theirs when they were turned off (`queueUnreadEvents`, fanout.ts).
 */
export function startFanoutHereIfIdle(scope: Pick<Scope, 'statements' | 'db'>, exceptEndpointId: string, last: number): void {
  const others = scope.db
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(sql`${webhookEndpoints.enabled} = 1 AND ${webhookEndpoints.id} <> ${exceptEndpointId}`)
    .limit(1)
    .get();
  if (others) return;
  if (last > fanoutPosition(scope)) setFanoutPosition(scope, last);
}
