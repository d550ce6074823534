import type { Logger } from 'pino';
import type { AppServices } from '../trpc/context.ts';
import type { WorkspaceHandle } from '../workspaces/handle.ts';

/** A periodic task over every workspace (reminders, digests, mail delivery). */
export interface Job {
  name: string;
  everyMs: number;
  /** One pass for one workspace. Must not throw for one workspace's bad data; errors are logged. */
  run(handle: WorkspaceHandle, services: AppServices): Promise<void> | void;
}

/** Runs one pass of a job over every workspace on disk, one after another. */
export async function runJobOnce(job: Job, services: AppServices): Promise<void> {
  for (const subdomain of services.registry.list()) {
    const handle = services.registry.get(subdomain);
    if (!handle) continue;
    try {
      await services.registry.using(handle, () => job.run(handle, services));
    } catch (err) {
      services.logger.error({ err, job: job.name, workspace: subdomain }, 'job failed');
    }
  }
}

/**
 * Starts each job on its own timer. A pass never overlaps the previous one of the same job. The
 * returned function stops the timers and waits for passes in flight.
 */
export function startJobs(jobs: Job[], services: AppServices, logger: Logger): { stop: () => Promise<void>; kick: (name: string) => void } {
  let stopped = false;
  const state = jobs.map((job) => ({ job, running: null as Promise<void> | null, again: false, timer: null as NodeJS.Timeout | null }));

  const pass = (s: (typeof state)[number]) => {
    if (stopped) return;
    if (s.running) {
      s.again = true;
      return;
    }
    if (s.timer) clearTimeout(s.timer);
    s.running = runJobOnce(s.job, services)
      .catch((err: unknown) => logger.error({ err, job: s.job.name }, 'job pass failed'))
      .finally(() => {
        s.running = null;
        if (stopped) return;
        if (s.again) {
          s.again = false;
          pass(s);
        } else {
          s.timer = setTimeout(() => pass(s), s.job.everyMs);
          s.timer.unref();
        }
      });
  };
  for (const s of state) pass(s);

  return {
    kick(name) {
      const s = state.find((x) => x.job.name === name);
      if (s) pass(s);
    },
    async stop() {
      stopped = true;
      for (const s of state) if (s.timer) clearTimeout(s.timer);
      await Promise.all(state.map((s) => s.running));
    },
  };
}
