import { deliverWebhooks } from '../webhooks/deliver.ts';
import type { Job } from './runner.ts';

/**
 * Signed webhook delivery (docs/webhooks.md). Named 'webhooks': a commit that recorded an event
 * wakes it for its workspace (`scope.after('webhooks')`); otherwise the workspace is next visited
 * when its earliest retry comes due.
 */
export const webhooksJob: Job = {
  name: 'webhooks',
  // Events of a busy workspace go out in batches a few milliseconds apart, not one pass per commit.
  coalesceMs: 20,
  async run(handle, services) {
    const { more, nextDue } = await deliverWebhooks(handle, services);
    if (more) services.wake('webhooks', handle.subdomain);
    return nextDue;
  },
};
