import type { Logger } from 'pino';
import type { AppServices } from '../services.ts';
import type { WorkspaceHandle } from '../workspaces/handle.ts';

/** A periodic task over every workspace (reminders, digests, mail delivery). */
export interface Job {
  name: string;
  everyMs: number;
  /**
   * One pass for one workspace; errors are logged, never stop the pass over the others. It may
   * return when the workspace next has work (ms on the service clock; Infinity for none): timer
   * passes leave it closed until then. Kicks always run.
   */
  run(handle: WorkspaceHandle, services: AppServices): Promise<number | void> | number | void;
}

/** Per job: workspaces with no work before the given time (ms on the service clock). */
export type IdleMap = Map<string, number>;

/**
 * Runs one pass of a job over every workspace on disk (or only the given ones), one after another.
 * With `idle`, a pass over every workspace skips those that said they have nothing due yet.
 */
export async function runJobOnce(job: Job, services: AppServices, only?: Iterable<string>, idle?: IdleMap): Promise<void> {
  for (const subdomain of only ?? services.registry.list()) {
    if (!only && (idle?.get(subdomain) ?? 0) > services.clock().getTime()) continue;
    // A paused workspace (its file is being copied) is left alone; the next pass catches up.
    const leave = services.registry.gate.tryEnterWrite(subdomain);
    if (!leave) continue;
    try {
      const handle = services.registry.get(subdomain);
      if (!handle) continue;
      const nextDue = await services.registry.using(handle, () => job.run(handle, services));
      if (typeof nextDue === 'number') idle?.set(subdomain, nextDue);
      else idle?.delete(subdomain);
    } catch (err) {
      idle?.delete(subdomain);
      services.logger.error({ err, job: job.name, workspace: subdomain }, 'job failed');
    } finally {
      leave();
    }
  }
}

interface JobState {
  job: Job;
  running: Promise<void> | null;
  timer: NodeJS.Timeout | null;
  /** The timer came due: a pass over every workspace is owed. */
  fullPending: boolean;
  /** Workspaces kicked since the last pass began. */
  kicked: Set<string>;
  idle: IdleMap;
}

/**
 * Starts each job on its own timer; a timer pass visits every workspace. `kick(name, subdomain)`
 * runs a pass for that one workspace at once (e.g. mail queued by a request), without waiting for
 * the timer or visiting the others. Passes of one job never overlap: what comes due meanwhile runs
 * right after. The returned `stop` stops the timers and waits for a pass in flight.
 */
export function startJobs(jobs: Job[], services: AppServices, logger: Logger): { stop: () => Promise<void>; kick: (name: string, subdomain: string) => void } {
  let stopped = false;
  const state: JobState[] = jobs.map((job) => ({ job, running: null, timer: null, fullPending: true, kicked: new Set(), idle: new Map() }));

  const drain = (s: JobState) => {
    if (stopped || s.running) return;
    const full = s.fullPending;
    if (!full && s.kicked.size === 0) return;
    const only = full ? undefined : s.kicked;
    s.fullPending = false;
    s.kicked = new Set();
    s.running = runJobOnce(s.job, services, only, s.idle)
      .catch((err: unknown) => logger.error({ err, job: s.job.name }, 'job pass failed'))
      .finally(() => {
        s.running = null;
        if (stopped) return;
        if (full) {
          s.timer = setTimeout(() => {
            s.fullPending = true;
            drain(s);
          }, s.job.everyMs);
          s.timer.unref();
        }
        drain(s);
      });
  };
  for (const s of state) drain(s);

  return {
    kick(name, subdomain) {
      const s = state.find((x) => x.job.name === name);
      if (!s || stopped) return;
      s.kicked.add(subdomain);
      s.idle.delete(subdomain);
      drain(s);
    },
    async stop() {
      stopped = true;
      for (const s of state) if (s.timer) clearTimeout(s.timer);
      await Promise.all(state.map((s) => s.running));
    },
  };
}
