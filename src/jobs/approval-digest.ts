import { nextDigestAt, queueDueDigests } from '../domain/time-entries/digest.ts';
import { runInScope } from '../services.ts';
import type { Job } from './runner.ts';

/**
 * The weekly digest of time awaiting approval. The schedule itself (each project's day and time in
 * the workspace's time zone) and the once-a-week guarantee live in the domain; the workspace is
 * next visited at its earliest coming digest time, or after a write (a changed digest day).
 */
export const approvalDigestJob: Job = {
  name: 'approval-digest',
  followsWrites: true,
  run(handle, services) {
    return runInScope(services, handle, (scope) => {
      queueDueDigests(scope);
      return nextDigestAt(scope);
    });
  },
};
