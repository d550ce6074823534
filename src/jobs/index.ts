import { approvalDigestJob } from './approval-digest.ts';
import { idempotencyKeysJob } from './idempotency.ts';
import { outboxJob } from './outbox.ts';
import { remindersJob } from './reminders.ts';
import { webhooksJob } from './webhooks.ts';
import type { Job } from './runner.ts';

/** Every background job of the product; `hourbook serve` runs them all. */
export const jobs: Job[] = [approvalDigestJob, idempotencyKeysJob, outboxJob, remindersJob, webhooksJob];
