import { deliverWebhooks } from '../webhooks/deliver.ts';
import type { Job } from './runner.ts';

/**
 * Signed webhook delivery (docs/webhooks.md). Named 'webhooks': a commit that recorded an event
 * wakes it for its workspace (`scope.after('webhooks')`); the timer picks up retries whose backoff
 * has passed and skips workspaces with nothing due.
 */
export const webhooksJob: Job = {
  name: 'webhooks',
  everyMs: 30_000,
  async run(handle, services) {
    const { more, nextDue } = await deliverWebhooks(handle, services);
    if (more) services.wake('webhooks', handle.subdomain);
    return nextDue;
  },
};
