import { and, eq, isNull, lte, min, or, sql } from 'drizzle-orm';
import { connectionOf, type Database, type Transaction } from '../../db/index.ts';
import { events, teamMembers, webhookDeliveries, webhookEndpoints } from '../../db/schema/index.ts';
import { enqueueMail } from '../../mail/outbox.ts';
import { groupBy, inIdsPlaceholder } from '../queries.ts';
import type { Scope } from '../scope.ts';
import { timeOrderedUuid } from '../time-ordered-id.ts';
import { queueUnreadEvents } from './fanout.ts';
import type { EndpointRow } from './records.ts';

/** A claim older than this is taken over: the worker holding it died (attempts time out after 10 s). */
export const CLAIM_LEASE_MS = 2 * 60_000;
/** A delivery is retried for this long after it was queued; an endpoint failing this long is turned off. */
export const GIVE_UP_AFTER_MS = 3 * 24 * 3_600_000;
/** Waits after the 1st, 2nd, … failure; the last one repeats until the three days are over. */
const BACKOFF_MS = [5_000, 60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000, 12 * 3_600_000];

const backoffAfter = (failures: number) => BACKOFF_MS[Math.min(failures, BACKOFF_MS.length) - 1] ?? 0;

/** A delivery taken by a worker, with what it needs to send it. */
export interface DueDelivery {
  id: string;
  attempts: number;
  createdAt: string;
  endpoint: Pick<EndpointRow, 'id' | 'url' | 'secret'>;
  event: { id: string; type: string; createdAt: string; data: string };
}

/** What one attempt came to. */
export interface AttemptOutcome {
  delivery: DueDelivery;
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  attemptedAt: Date;
  durationMs: number;
}

const p = sql.placeholder;

/** `status = 'pending'` with the literal, so SQLite may use the partial index of pending deliveries. */
const pendingSql = sql`${webhookDeliveries.status} = 'pending'`;

/**
 * The statements of delivery, prepared once per open workspace file: a busy workspace claims and
 * records thousands of deliveries a minute, and building each query again cost more than running it.
 */
export const deliveryStatements = (db: Database) => ({
  /** Pending and due, of an enabled endpoint, not held by a live worker; oldest due first. */
  due: db
    .select({
      id: webhookDeliveries.id,
      attempts: webhookDeliveries.attempts,
      createdAt: webhookDeliveries.createdAt,
      endpoint: { id: webhookEndpoints.id, url: webhookEndpoints.url, secret: webhookEndpoints.secret },
      event: { id: events.id, type: events.type, createdAt: events.createdAt, data: events.data },
    })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
    .where(
      and(
        pendingSql,
        lte(webhookDeliveries.nextAttemptAt, p('at')),
        or(isNull(webhookDeliveries.claimedAt), lte(webhookDeliveries.claimedAt, p('staleBefore'))),
        eq(webhookEndpoints.enabled, true),
      ),
    )
    .orderBy(webhookDeliveries.nextAttemptAt, webhookDeliveries.createdAt)
    .limit(p('limit'))
    .prepare(),
  claim: db
    .update(webhookDeliveries)
    .set({ claimedAt: sql`${p('at')}` })
    .where(inIdsPlaceholder(webhookDeliveries.id, 'ids'))
    .prepare(),
  // The two statements run for every attempt are better-sqlite3's own: drizzle's filling of named
  // placeholders cost as much as running them.
  // A delivery whose endpoint was deleted while it was being sent is gone (the deletion cascades):
  // its attempt is not recorded, rather than failing the batch's transaction.
  attempt: connectionOf(db).prepare<{ id: string; deliveryId: string; attemptedAt: string; statusCode: number | null; error: string | null; responseBody: string | null; durationMs: number }>(
    `INSERT INTO webhook_attempts (id, delivery_id, attempted_at, status_code, error, response_body, duration_ms)
     SELECT @id, @deliveryId, @attemptedAt, @statusCode, @error, @responseBody, @durationMs WHERE EXISTS (SELECT 1 FROM webhook_deliveries WHERE id = @deliveryId)`,
  ),
  /** After an attempt: released; its status, `delivered_at` and `next_attempt_at` change only when given. */
  outcome: connectionOf(db).prepare<[attempts: number, statusCode: number | null, error: string | null, status: string | null, deliveredAt: string | null, nextAttemptAt: string | null, id: string]>(
    `UPDATE webhook_deliveries SET attempts = ?, claimed_at = NULL, last_status_code = ?, last_error = ?, status = coalesce(?, status),
       delivered_at = coalesce(?, delivered_at), next_attempt_at = coalesce(?, next_attempt_at) WHERE id = ?`,
  ),
  endpoint: db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, p('id'))).prepare(),
});

/**
 * Takes up to `limit` due deliveries in one transaction (oldest due first): they are marked
 * claimed, so another pass or process leaves them alone until their lease ends.
 */
export function claimDueDeliveries(scope: Scope, limit: number): DueDelivery[] {
  const at = scope.now.toISOString();
  const staleBefore = new Date(scope.now.getTime() - CLAIM_LEASE_MS).toISOString();
  const st = scope.statements(deliveryStatements);
  return scope.write(() => {
    const rows = st.due.all({ at, staleBefore, limit });
    if (rows.length > 0) st.claim.run({ at, ids: JSON.stringify(rows.map((r) => r.id)) });
    return rows;
  });
}

/**
 * When this workspace next has a delivery to attempt (ms), Infinity for none: the worker's timer
 * leaves the workspace alone until then or until a new event wakes it.
 */
export function nextDeliveryDue(scope: Pick<Scope, 'statements'>): number {
  const row = scope.statements(nextDueStatement).get();
  return row?.at ? Date.parse(row.at) : Number.POSITIVE_INFINITY;
}

const nextDueStatement = (db: Database) => {
  const lease = `+${CLAIM_LEASE_MS / 1000} seconds`;
  return db
    .select({
      at: min(sql<string>`case when ${webhookDeliveries.claimedAt} is null then ${webhookDeliveries.nextAttemptAt}
        else max(${webhookDeliveries.nextAttemptAt}, strftime('%Y-%m-%dT%H:%M:%fZ', ${webhookDeliveries.claimedAt}, ${lease})) end`),
    })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(and(pendingSql, eq(webhookEndpoints.enabled, true)))
    .prepare();
};

/**
 * Records a batch of attempts in one transaction: each attempt's row; its delivery delivered, or
 * due again after a backoff, or failed once three days have passed since it was queued; each
 * endpoint's run of failures (a success ends it). An endpoint that has failed for three days is
 * turned off, its waiting deliveries failed, and the workspace's Owners are told by e-mail.
 */
export function recordOutcomes(scope: Scope, outcomes: AttemptOutcome[]): void {
  if (outcomes.length === 0) return;
  const st = scope.statements(deliveryStatements);
  scope.write((tx) => {
    for (const outcome of outcomes) recordAttempt(st, outcome);
    for (const [endpointId, ofEndpoint] of groupBy(outcomes, (o) => o.delivery.endpoint.id)) updateFailureRun(scope, tx, endpointId, ofEndpoint);
  });
}

function recordAttempt(st: ReturnType<typeof deliveryStatements>, o: AttemptOutcome): void {
  const finishedAt = new Date(o.attemptedAt.getTime() + o.durationMs);
  st.attempt.run({
    id: timeOrderedUuid(o.attemptedAt),
    deliveryId: o.delivery.id,
    attemptedAt: o.attemptedAt.toISOString(),
    statusCode: o.statusCode,
    error: o.error,
    responseBody: o.responseBody,
    durationMs: o.durationMs,
  });
  const attempts = o.delivery.attempts + 1;
  if (o.ok) {
    st.outcome.run(attempts, o.statusCode, o.error, 'delivered', finishedAt.toISOString(), null, o.delivery.id);
    return;
  }
  const giveUpAt = Date.parse(o.delivery.createdAt) + GIVE_UP_AFTER_MS;
  if (finishedAt.getTime() >= giveUpAt) st.outcome.run(attempts, o.statusCode, o.error, 'failed', null, null, o.delivery.id);
  else st.outcome.run(attempts, o.statusCode, o.error, null, null, new Date(Math.min(finishedAt.getTime() + backoffAfter(attempts), giveUpAt)).toISOString(), o.delivery.id);
}

function updateFailureRun(scope: Scope, tx: Transaction, endpointId: string, outcomes: AttemptOutcome[]): void {
  const endpoint = scope.statements(deliveryStatements).endpoint.get({ id: endpointId });
  if (!endpoint?.enabled) return;
  let failingSince = endpoint.failingSince;
  for (const o of [...outcomes].sort((a, b) => a.attemptedAt.getTime() - b.attemptedAt.getTime())) {
    failingSince = o.ok ? null : (failingSince ?? o.attemptedAt.toISOString());
  }
  const last = outcomes.at(-1);
  if (failingSince !== null && last && scope.now.getTime() - Date.parse(failingSince) >= GIVE_UP_AFTER_MS) {
    disableFailingEndpoint(scope, tx, endpoint, failingSince, last.error ?? `answered ${last.statusCode}`);
  } else if (failingSince !== endpoint.failingSince) {
    tx.update(webhookEndpoints).set({ failingSince }).where(eq(webhookEndpoints.id, endpoint.id)).run();
  }
}

function disableFailingEndpoint(scope: Scope, tx: Transaction, endpoint: EndpointRow, failingSince: string, lastError: string): void {
  const at = scope.now.toISOString();
  const reason = `Every delivery failed for 3 days (since ${failingSince}); last: ${lastError}`.slice(0, 1000);
  // The events of its time on that the fan-out has not read yet are its too: queued now, they are
  // failed with the rest below (listed, to redeliver by hand) instead of never being made.
  queueUnreadEvents(scope, endpoint);
  tx.update(webhookEndpoints).set({ enabled: false, disabledReason: reason, failingSince, updatedAt: at }).where(eq(webhookEndpoints.id, endpoint.id)).run();
  tx.update(webhookDeliveries)
    .set({ status: 'failed', claimedAt: null, lastError: 'the endpoint was turned off after failing for 3 days' })
    .where(and(eq(webhookDeliveries.endpointId, endpoint.id), eq(webhookDeliveries.status, 'pending')))
    .run();
  const owners = tx
    .select({ email: teamMembers.email, firstName: teamMembers.firstName, lastName: teamMembers.lastName })
    .from(teamMembers)
    .where(and(eq(teamMembers.organizationRole, 'Owner'), eq(teamMembers.active, true)))
    .all();
  for (const owner of owners) {
    enqueueMail(scope, tx, {
      kind: 'webhook_disabled',
      to: { address: owner.email, name: `${owner.firstName} ${owner.lastName}` },
      subject: `Webhook endpoint turned off: ${endpoint.url}`,
      text: [
        `Hello ${owner.firstName},`,
        '',
        `hourbook could not deliver events of ${scope.workspace.name} to ${endpoint.url} for 3 days, so it turned that endpoint off.`,
        `Last error: ${lastError}`,
        '',
        'Events that happen while it is off are not kept for it. Once the receiver works again, turn the endpoint on',
        '(`hourbook webhook enable`, or tRPC webhooks.update) and redeliver the events it missed (`hourbook webhook redeliver`).',
      ].join('\n'),
    });
  }
}

/** Delivered and failed deliveries (with their attempts) are kept this long, then forgotten. */
export const KEEP_FINISHED_MS = 30 * 24 * 3_600_000;

/** Forgets up to `limit` finished deliveries older than 30 days; returns how many. */
export function forgetOldDeliveries(db: Database, now: Date, limit: number): number {
  const before = new Date(now.getTime() - KEEP_FINISHED_MS).toISOString();
  return db.run(sql`DELETE FROM ${webhookDeliveries} WHERE ${webhookDeliveries.id} IN (
    SELECT ${webhookDeliveries.id} FROM ${webhookDeliveries}
    WHERE ${webhookDeliveries.status} <> 'pending' AND ${webhookDeliveries.createdAt} < ${before} LIMIT ${limit})`).changes;
}
