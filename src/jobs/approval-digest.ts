import { queueDueDigests } from '../domain/time-entries/digest.ts';
import { runInScope } from '../services.ts';
import type { Job } from './runner.ts';

/**
 * The weekly digest of time awaiting approval. It runs every minute; the schedule itself (each
 * project's day and time in the workspace's time zone) and the once-a-week guarantee live in the
 * domain function, which records each sent digest in the workspace file.
 */
export const approvalDigestJob: Job = {
  name: 'approval-digest',
  everyMs: 60_000,
  run(handle, services) {
    runInScope(services, handle, queueDueDigests);
  },
};
