import { deliverOutbox, nextDueAt } from '../mail/worker.ts';
import type { Job } from './runner.ts';

/**
 * Delivers queued e-mail. Named 'outbox': the server wakes it for a workspace (`kick('outbox',
 * subdomain)`) right after a commit that queued mail; otherwise the workspace is next visited when
 * its earliest retry comes due.
 */
export const outboxJob: Job = {
  name: 'outbox',
  async run(handle, services) {
    // A large batch is delivered in passes of bounded size; the next one follows at once.
    if ((await deliverOutbox(handle, services)).more) services.wake('outbox', handle.subdomain);
    return nextDueAt(handle.db);
  },
};
