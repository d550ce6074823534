import { fanOutEvents } from '../domain/webhooks/fanout.ts';
import { claimDueDeliveries, forgetOldDeliveries, nextDeliveryDue, recordOutcomes, type AttemptOutcome, type DueDelivery } from '../domain/webhooks/outcomes.ts';
import { signedHeaders, webhookBody } from '../domain/webhooks/payload.ts';
import { runInScope, type AppServices } from '../services.ts';
import type { WorkspaceHandle } from '../workspaces/handle.ts';
import { postWebhook } from './post.ts';

/** Deliveries claimed at once, sent this many at a time, and batches per pass (the next pass follows at once). */
const BATCH = 50;
const PARALLEL = 10;
const BATCHES_PER_PASS = 10;
const FORGET_PER_PASS = 500;

async function attempt(services: AppServices, workspaceId: string, due: DueDelivery): Promise<AttemptOutcome> {
  const attemptedAt = services.clock();
  const started = performance.now();
  const result = await (async () => {
    try {
      const secret = services.secrets.open(due.endpoint.secret, workspaceId);
      const body = webhookBody(due.event);
      // Signed at the wall clock's time: receivers check it against theirs to refuse replays.
      return await postWebhook(due.endpoint.url, signedHeaders(secret, due.event.id, new Date(), body), body, { allowPrivate: services.config.webhookAllowPrivate });
    } catch (err) {
      return { status: null, body: null, error: err instanceof Error ? err.message : String(err) };
    }
  })();
  const ok = result.status !== null && result.status >= 200 && result.status < 300;
  return { delivery: due, ok, statusCode: result.status, error: result.error, responseBody: result.body, attemptedAt, durationMs: Math.round(performance.now() - started) };
}

/** Sends a batch, `PARALLEL` at a time. */
async function sendAll(services: AppServices, workspaceId: string, batch: DueDelivery[]): Promise<AttemptOutcome[]> {
  const outcomes: AttemptOutcome[] = [];
  for (let i = 0; i < batch.length; i += PARALLEL) {
    outcomes.push(...(await Promise.all(batch.slice(i, i + PARALLEL).map((d) => attempt(services, workspaceId, d)))));
  }
  return outcomes;
}

/**
 * Runs the delivery bookkeeping (fan-out, claims, outcomes) without an fsync per commit. Losing
 * them to a power cut loses nothing that matters: a lost fan-out is redone (its position rolls back
 * with its deliveries), a lost claim expires, a lost "delivered" sends the event again (at least
 * once). The business write that recorded the event was committed at the configured durability, and
 * its fsync covers every commit before it. better-sqlite3 is synchronous, so no other transaction
 * can run between the two pragmas.
 */
function bookkeeping<T>(handle: WorkspaceHandle, services: AppServices, work: () => T): T {
  if (services.config.sqliteSynchronous === 'NORMAL') return work();
  handle.sqlite.pragma('synchronous = NORMAL');
  try {
    return work();
  } finally {
    handle.sqlite.pragma(`synchronous = ${services.config.sqliteSynchronous}`);
  }
}

/**
 * One pass of webhook delivery over one workspace: committed events become deliveries, due
 * deliveries are claimed, sent and recorded in batches. Each delivery is marked delivered right
 * after its receiver answered 2xx, in the batch's transaction, so a crash in between sends it
 * again (at least once; receivers deduplicate by `webhook-id`). Returns whether work remains.
 */
export async function deliverWebhooks(handle: WorkspaceHandle, services: AppServices): Promise<{ more: boolean; nextDue: number }> {
  while (bookkeeping(handle, services, () => runInScope(services, handle, fanOutEvents)).more) {
    // a backlog of events: the next batch at once
  }
  const workspaceId = runInScope(services, handle, (scope) => scope.workspace.id);
  for (let i = 0; i < BATCHES_PER_PASS; i++) {
    const nextDue = nextDeliveryDue(handle.db);
    const batch = nextDue <= services.clock().getTime() ? bookkeeping(handle, services, () => runInScope(services, handle, (scope) => claimDueDeliveries(scope, BATCH))) : [];
    if (batch.length === 0) {
      bookkeeping(handle, services, () => forgetOldDeliveries(handle.db, services.clock(), FORGET_PER_PASS));
      return { more: false, nextDue };
    }
    const outcomes = await sendAll(services, workspaceId, batch);
    bookkeeping(handle, services, () => runInScope(services, handle, (scope) => recordOutcomes(scope, outcomes)));
  }
  return { more: true, nextDue: services.clock().getTime() };
}
