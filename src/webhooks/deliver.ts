import type { Database } from '../db/index.ts';
import { anyEndpointEnabled, fanOutEvents } from '../domain/webhooks/fanout.ts';
import { claimDueDeliveries, forgetOldDeliveries, nextDeliveryDue, recordOutcomes, type AttemptOutcome, type DueDelivery } from '../domain/webhooks/outcomes.ts';
import { signedHeaders, signingKey, webhookBody } from '../domain/webhooks/payload.ts';
import { runInScope, type AppServices } from '../services.ts';
import type { WorkspaceHandle } from '../workspaces/handle.ts';
import { postWebhooks, type WebhookPost } from './post.ts';
import { noAnswer } from './sender.ts';

/** Deliveries claimed at once, sent this many at a time, and batches per pass (the next pass follows at once). */
const BATCH = 50;
const PARALLEL = 10;
const BATCHES_PER_PASS = 10;
const FORGET_PER_PASS = 500;

/**
 * Sends a batch, `PARALLEL` at a time, and says what each attempt came to. Each endpoint's secret
 * is opened once for the batch; each body is signed at the wall clock's time (receivers check it
 * against theirs to refuse replays).
 */
async function sendAll(services: AppServices, workspaceId: string, batch: DueDelivery[]): Promise<AttemptOutcome[]> {
  const keys = new Map<string, Buffer | string>();
  const keyOf = (due: DueDelivery): Buffer | string => {
    let key = keys.get(due.endpoint.id);
    if (key === undefined) {
      try {
        key = signingKey(services.secrets.open(due.endpoint.secret, workspaceId));
      } catch (err) {
        key = err instanceof Error ? err.message : String(err); // an unreadable secret fails that endpoint's attempts
      }
      keys.set(due.endpoint.id, key);
    }
    return key;
  };
  const attemptedAt = services.clock();
  const signedAt = new Date();
  const prepared = batch.map((due): { post: WebhookPost } | { error: string } => {
    const key = keyOf(due);
    if (typeof key === 'string') return { error: key };
    const body = webhookBody(due.event);
    return { post: { url: due.endpoint.url, headers: signedHeaders(key, due.event.id, signedAt, body), body } };
  });
  const results = await postWebhooks(
    prepared.flatMap((p) => ('post' in p ? [p.post] : [])),
    { allowPrivate: services.config.webhookAllowPrivate, parallel: PARALLEL },
  );
  let sent = 0;
  return batch.map((due, i) => {
    const p = prepared[i]!;
    const result = 'post' in p ? results[sent++]! : noAnswer(p.error);
    return {
      delivery: due,
      ok: result.status !== null && result.status >= 200 && result.status < 300,
      statusCode: result.status,
      error: result.error,
      responseBody: result.body,
      attemptedAt: new Date(attemptedAt.getTime() + result.startedAfterMs),
      durationMs: result.durationMs,
    };
  });
}

/**
 * Runs the delivery bookkeeping (fan-out, claims, outcomes) without an fsync per commit
 * (`CommitGroup.unsynced`). Losing them to a power cut loses nothing that matters: a lost fan-out
 * is redone (its position rolls back with its deliveries), a lost claim expires, a lost
 * "delivered" sends the event again (at least once). The business write that recorded the event
 * was committed at the configured durability, and its sync covers every commit before it.
 */
const bookkeeping = <T>(handle: WorkspaceHandle, work: () => T): T => handle.commits.unsynced(work);

/** When this handle last forgot old deliveries (ms), kept per open file. */
const forgetting = () => ({ last: Number.NEGATIVE_INFINITY });
const FORGET_EVERY_MS = 3_600_000;

/** Forgets finished deliveries past their 30 days, at most once an hour per open workspace. */
function forgetNowAndThen(handle: WorkspaceHandle, services: AppServices): void {
  const state = handle.memo(forgetting);
  const now = services.clock();
  if (now.getTime() - state.last < FORGET_EVERY_MS) return;
  state.last = now.getTime();
  bookkeeping(handle, () => forgetOldDeliveries(handle.db, now, FORGET_PER_PASS));
}

/**
 * One pass of webhook delivery over one workspace, in batches: due retries (up to half a batch,
 * so new events never hold them back) and deliveries of newly committed events are claimed and
 * sent; each batch's outcomes are recorded in the transaction that claims the next one. A
 * delivery is marked delivered right after its receiver answered 2xx, so a crash in between sends
 * it again (at least once; receivers deduplicate by `webhook-id`). Returns whether work remains.
 * With no endpoint on nothing can be due: a pass then reads one row.
 */
export async function deliverWebhooks(handle: WorkspaceHandle, services: AppServices): Promise<{ more: boolean; nextDue: number }> {
  const statements = { statements: <T>(build: (db: Database) => T) => handle.memo(build) };
  if (!anyEndpointEnabled(statements)) {
    forgetNowAndThen(handle, services);
    return { more: false, nextDue: Number.POSITIVE_INFINITY };
  }
  const workspaceId = runInScope(services, handle, (scope) => scope.workspace.id);
  let sent: AttemptOutcome[] = [];
  for (let i = 0; ; i++) {
    const last = i === BATCHES_PER_PASS;
    // The last batch's outcomes, then this batch's claims and fan-out: one transaction.
    const { batch, more } = bookkeeping(handle, () =>
      runInScope(services, handle, (scope) =>
        scope.write(() => {
          recordOutcomes(scope, sent);
          if (last) return { batch: [], more: true };
          const due = claimDueDeliveries(scope, BATCH / 2);
          const fresh = fanOutEvents(scope, BATCH - due.length);
          return { batch: [...due, ...fresh.made], more: fresh.more };
        }),
      ),
    );
    if (last) return { more: true, nextDue: services.clock().getTime() };
    if (batch.length === 0 && more) {
      sent = [];
      continue; // events no endpoint wants, and more of them
    }
    if (batch.length === 0) {
      forgetNowAndThen(handle, services);
      return { more: false, nextDue: nextDeliveryDue(statements) };
    }
    // The events were read committed; they go out once they are also on disk.
    await handle.commits.synced();
    sent = await sendAll(services, workspaceId, batch);
  }
}
