import { deliverOutbox } from '../mail/worker.ts';
import type { Job } from './runner.ts';

/**
 * Delivers queued e-mail. Named 'outbox': the server wakes it (`kick('outbox')`) right after a
 * commit that queued mail; the timer only picks up retries whose backoff has passed.
 */
export const outboxJob: Job = {
  name: 'outbox',
  everyMs: 30_000,
  async run(handle, services) {
    // A large batch is delivered in passes of bounded size; the next one follows at once.
    if ((await deliverOutbox(handle, services)).more) services.notifyOutbox(handle.subdomain);
  },
};
