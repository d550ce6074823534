import { eq } from 'drizzle-orm';
import { connectionOf, type Database } from '../../db/index.ts';
import { webhookEndpoints } from '../../db/schema/index.ts';
import type { Scope } from '../scope.ts';
import { timeOrderedUuid } from '../time-ordered-id.ts';
import type { DueDelivery } from './outcomes.ts';
import { fanoutPosition, setFanoutPosition } from './queries.ts';
import { eventTypesOf, type EndpointRow } from './records.ts';
import { ALL_EVENTS } from './schemas.ts';

/** Events read at a time, and the most one fan-out reads (by rowid) in one transaction. */
const PAGE = 100;
const READ_AT_MOST = 5000;

/** Prepared once per open workspace file: fan-out runs after nearly every commit of a busy workspace. */
const fanoutStatements = (db: Database) => ({
  anyEnabled: db.select({ id: webhookEndpoints.id }).from(webhookEndpoints).where(eq(webhookEndpoints.enabled, true)).limit(1).prepare(),
  endpoints: db
    .select({ id: webhookEndpoints.id, url: webhookEndpoints.url, secret: webhookEndpoints.secret, eventTypes: webhookEndpoints.eventTypes, after: webhookEndpoints.enabledAfterEvent })
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.enabled, true))
    .prepare(),
  // Run for every event and every delivery: better-sqlite3's own statements (drizzle's named
  // placeholders and row mapping cost as much as running them).
  events: connectionOf(db).prepare<[after: number, limit: number], { rowid: number; id: string; type: string; createdAt: string; data: string }>(
    'SELECT rowid, id, type, created_at AS createdAt, data FROM events WHERE rowid > ? ORDER BY rowid LIMIT ?',
  ),
  // Only an endpoint's catch-up when it is turned off reads these: ids and types, no bodies.
  eventsOf: connectionOf(db).prepare<[after: number, all: 0 | 1, types: string], { id: string }>(
    'SELECT id FROM events WHERE rowid > ? AND (? = 1 OR type IN (SELECT value FROM json_each(?))) ORDER BY rowid',
  ),
  delivery: connectionOf(db).prepare<[id: string, endpointId: string, eventId: string, nextAttemptAt: string, claimedAt: string | null, createdAt: string]>(
    `INSERT INTO webhook_deliveries (id, endpoint_id, event_id, status, attempts, next_attempt_at, claimed_at, manual, created_at)
     VALUES (?, ?, ?, 'pending', 0, ?, ?, 0, ?)`,
  ),
});

/** Whether any endpoint is on: with none, there is nothing to fan out or deliver. */
export const anyEndpointEnabled = (scope: Pick<Scope, 'statements'>): boolean => scope.statements(fanoutStatements).anyEnabled.get() !== undefined;

/**
 * Turns committed events into deliveries, claimed by the caller, who sends them next: one per
 * event and enabled endpoint that wants its type and was on when it committed, for events until
 * about `limit` deliveries are made (an event is never split). Events are read in commit order
 * (rowid, after the stored position) and the position moves in the same transaction as the
 * deliveries it created, so an event is fanned out exactly once and never lost; a delivery whose
 * sender dies is taken over when its claim's lease ends (outcomes.ts). `more` when events may be
 * left. While no endpoint is enabled nothing is read or written.
 */
export function fanOutEvents(scope: Scope, limit: number): { made: DueDelivery[]; more: boolean } {
  // Most writes happen with no endpoint at all: then not even a transaction is opened.
  if (limit <= 0 || !anyEndpointEnabled(scope)) return { made: [], more: false };
  const st = scope.statements(fanoutStatements);
  return scope.write(() => {
    const endpoints = st.endpoints.all().map((e) => ({ ...e, types: new Set(eventTypesOf(e)) }));
    if (endpoints.length === 0) return { made: [], more: false };
    const at = scope.now.toISOString();
    const made: DueDelivery[] = [];
    const start = fanoutPosition(scope);
    let position = start;
    // Events no endpoint wants make nothing: read on (a page at a time, at most READ_AT_MOST) until enough is made.
    let more = true;
    while (made.length < limit && position - start < READ_AT_MOST) {
      const page = st.events.all(position, PAGE);
      for (const event of page) {
        if (made.length >= limit) break;
        for (const endpoint of endpoints) {
          // An endpoint that is on has been on since the event `after` (turning it on commits
          // between two events). Those up to it committed before its creation, in its time off,
          // or in an earlier time on, and those were queued for it when it was turned off.
          if (event.rowid <= endpoint.after || !(endpoint.types.has(ALL_EVENTS) || endpoint.types.has(event.type))) continue;
          const id = timeOrderedUuid(scope.now);
          st.delivery.run(id, endpoint.id, event.id, at, at, at);
          made.push({ id, attempts: 0, createdAt: at, endpoint: { id: endpoint.id, url: endpoint.url, secret: endpoint.secret }, event });
        }
        position = event.rowid;
      }
      if (page.length < PAGE) {
        more = made.length >= limit;
        break;
      }
    }
    if (position !== start) setFanoutPosition(scope, position);
    return { made, more };
  });
}

/**
 * Called in the transaction that turns an endpoint off (by a person, or after 3 days of failures),
 * or changes which events an endpoint that is on wants, before the change is written: queues for
 * it, unclaimed and due, every event it wants now that committed while it was on and that the
 * fan-out has not read yet. The fan-out skips an endpoint that is off, and reads the others' types
 * as they are when it runs, so without this such events would never reach it (or reach it under
 * types it chose later); with this, which events an endpoint gets depends only on when they
 * committed. Usually a few events (the fan-out runs 20 ms after a commit), many only while the
 * job is behind. Returns how many deliveries were queued.
 */
export function queueUnreadEvents(scope: Scope, endpoint: Pick<EndpointRow, 'id' | 'eventTypes' | 'enabledAfterEvent'>): number {
  const st = scope.statements(fanoutStatements);
  const types = eventTypesOf(endpoint);
  const after = Math.max(fanoutPosition(scope), endpoint.enabledAfterEvent);
  const wanted = st.eventsOf.all(after, types.includes(ALL_EVENTS) ? 1 : 0, JSON.stringify(types));
  const at = scope.now.toISOString();
  for (const event of wanted) st.delivery.run(timeOrderedUuid(scope.now), endpoint.id, event.id, at, null, at);
  return wanted.length;
}
