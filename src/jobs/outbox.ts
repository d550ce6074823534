import { deliverOutbox, nextDueAt } from '../mail/worker.ts';
import type { Job } from './runner.ts';

/**
 * Delivers queued e-mail. Named 'outbox': the server wakes it for a workspace (`kick('outbox',
 * subdomain)`) right after a commit that queued mail; the timer picks up retries whose backoff has
 * passed, and skips workspaces with nothing due.
 */
export const outboxJob: Job = {
  name: 'outbox',
  everyMs: 30_000,
  async run(handle, services) {
    // A large batch is delivered in passes of bounded size; the next one follows at once.
    if ((await deliverOutbox(handle, services)).more) services.wake('outbox', handle.subdomain);
    return nextDueAt(handle.db);
  },
};
