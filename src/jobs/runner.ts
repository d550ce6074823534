import type { Logger } from 'pino';
import type { AppServices } from '../services.ts';
import type { WorkspaceHandle } from '../workspaces/handle.ts';

/** A background task that each workspace may have work for (mail delivery, reminders, digests). */
export interface Job {
  name: string;
  /**
   * One pass for one workspace: does what is due now and returns when this workspace next has work
   * for the job (ms on the service clock; Infinity for none). The schedule waits until then unless
   * the workspace is kicked or, for jobs that follow writes, its data changes.
   */
  run(handle: WorkspaceHandle, services: AppServices): Promise<number> | number;
  /** A committed write may move this job's schedule (a new due date, a changed digest day). */
  followsWrites?: boolean;
  /**
   * A pass never starts sooner than this after the job's last pass ended (real time), so the
   * work of many small commits is done in one pass instead of one pass each (its fixed costs, its
   * transactions, once for all of them).
   */
  coalesceMs?: number;
}

/** Runs a job once for every workspace on disk (or only the given ones), one after another. */
export async function runJobOnce(job: Job, services: AppServices, only?: Iterable<string>): Promise<void> {
  for (const subdomain of only ?? services.registry.list()) await runFor(job, services, subdomain);
}

/** How a pass for one workspace ended: when it is next due, or null when the workspace is gone. */
async function runFor(job: Job, services: AppServices, subdomain: string): Promise<number | null> {
  // A paused workspace (its file is being copied to another node) is left alone and looked at again
  // shortly; a job's writes must not land in a file that is being copied.
  const leave = services.registry.gate.tryEnterWrite(subdomain);
  if (!leave) return services.clock().getTime() + RETRY_WHILE_PAUSED_MS;
  try {
    const handle = services.registry.get(subdomain);
    if (!handle) return null;
    return await services.registry.using(handle, () => job.run(handle, services));
  } catch (err) {
    services.logger.error({ err, job: job.name, workspace: subdomain }, 'job failed');
    return services.clock().getTime() + RETRY_AFTER_FAILURE_MS;
  } finally {
    leave();
  }
}

/** A pass that threw is tried again after this long. */
const RETRY_AFTER_FAILURE_MS = 60_000;
/** A paused workspace is looked at again after this long. */
const RETRY_WHILE_PAUSED_MS = 5_000;
/**
 * Each workspace is visited at least this often even when it said it has nothing due, in case a
 * change came from outside this process (the command line, a restored file).
 */
const REVISIT_MS = 6 * 3_600_000;
/** Writes to a workspace move its data-following jobs at most this often. */
const AFTER_WRITE_MS = 1_000;
/** How often the data directory is listed for workspaces created by another process. */
const RESCAN_MS = 60_000;
/** The jobs together give the event loop back after this much work, so requests are answered meanwhile. */
const SLICE_MS = 10;

/**
 * Turns on the event loop for the jobs' work: one job works per turn, for one slice, and the jobs
 * take turns in the order they asked. A slice per job and turn let five jobs hold one turn for
 * 50 ms at start-up (each visiting thousands of files), and /readyz waited 129 ms behind them.
 */
const turns = {
  /** When the current slice began. */
  began: 0,
  waiting: [] as (() => void)[],
};

/** Resolves in a later turn of the event loop, when it is this caller's turn to work. */
function nextTurn(): Promise<void> {
  return new Promise((resume) => {
    turns.waiting.push(resume);
    if (turns.waiting.length === 1) setImmediate(wakeNext);
  });
}

function wakeNext(): void {
  turns.began = performance.now();
  turns.waiting.shift()?.();
  if (turns.waiting.length > 0) setImmediate(wakeNext);
}

/** Waits for a turn unless this one's slice still has time left. */
async function keepSlice(): Promise<void> {
  if (performance.now() - turns.began >= SLICE_MS) await nextTurn();
}

/** setTimeout's limit; a later due time is re-armed when this one fires. */
const MAX_DELAY_MS = 2 ** 31 - 1;

/**
 * One job's schedule: when each workspace is next due. Passes of one job never overlap; a pass
 * runs every workspace that is due, in due order, and the timer sleeps until the earliest next
 * due time, so an idle server with ten thousand workspaces does nothing at all between due times.
 */
class JobSchedule {
  private readonly due = new Map<string, number>();
  private running: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private armedFor = Number.POSITIVE_INFINITY;
  /** The workspace a pass is running for right now (not in `due` meanwhile). */
  private current: string | null = null;
  /** When the last pass ended (performance.now()), for `coalesceMs`. */
  private lastPassEnded = Number.NEGATIVE_INFINITY;
  stopped = false;

  constructor(
    readonly job: Job,
    private readonly services: AppServices,
    private readonly logger: Logger,
  ) {}

  private now = () => this.services.clock().getTime();

  /** The workspace is due at `at` (or earlier, if it already was). */
  dueAt(subdomain: string, at: number): void {
    if (this.stopped) return;
    const current = this.due.get(subdomain);
    if (current !== undefined && current <= at) return;
    this.due.set(subdomain, at);
    if (this.running) return; // the pass re-arms when it ends
    this.arm(at);
  }

  /** Workspaces on disk that the schedule has not seen are due now; those gone are dropped. */
  sync(onDisk: ReadonlySet<string>): void {
    for (const subdomain of this.due.keys()) if (!onDisk.has(subdomain)) this.due.delete(subdomain);
    for (const subdomain of onDisk) if (!this.due.has(subdomain) && subdomain !== this.current) this.dueAt(subdomain, this.now());
  }

  private arm(at: number): void {
    if (this.stopped || at >= this.armedFor) return;
    if (this.timer) clearTimeout(this.timer);
    this.armedFor = at;
    const coalescing = (this.job.coalesceMs ?? 0) - (performance.now() - this.lastPassEnded);
    this.timer = setTimeout(() => this.pass(), Math.min(MAX_DELAY_MS, Math.max(0, at - this.now(), coalescing)));
    this.timer.unref();
  }

  private pass(): void {
    this.timer = null;
    this.armedFor = Number.POSITIVE_INFINITY;
    if (this.stopped || this.running) return;
    this.running = this.runDue()
      .catch((err: unknown) => this.logger.error({ err, job: this.job.name }, 'job pass failed'))
      .finally(() => {
        this.running = null;
        this.lastPassEnded = performance.now();
        this.arm(this.earliest());
      });
  }

  private async runDue(): Promise<void> {
    const now = this.now();
    const due = [...this.due].filter(([, at]) => at <= now).sort((a, b) => a[1] - b[1]);
    for (const [subdomain] of due) {
      // Most passes finish synchronously: without this, the first visit of ten thousand files at
      // start-up would hold the event loop, and every request, until the last one was done.
      await keepSlice();
      if (this.stopped) return;
      this.due.delete(subdomain);
      this.current = subdomain;
      const next = await runFor(this.job, this.services, subdomain);
      this.current = null;
      // A kick that arrived during its own pass left an earlier time: keep it.
      if (next !== null) this.due.set(subdomain, Math.min(this.due.get(subdomain) ?? Number.POSITIVE_INFINITY, next, this.now() + REVISIT_MS));
    }
  }

  private earliest(): number {
    let min = Number.POSITIVE_INFINITY;
    for (const at of this.due.values()) if (at < min) min = at;
    return min;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}

export interface RunningJobs {
  /** Runs a job for one workspace soon (work was just queued there), without visiting the others. */
  kick(name: string, subdomain: string): void;
  /** A write committed in a workspace: the jobs that follow writes look at it again shortly. */
  changed(subdomain: string): void;
  stop(): Promise<void>;
}

/**
 * Starts every job on one schedule per job. Each workspace on disk is visited once at start;
 * after that a workspace is visited only when it said it would be due, when it is kicked, or
 * (for jobs that follow writes) shortly after a write. New workspace files are found by listing
 * the data directory once a minute.
 */
export function startJobs(jobs: Job[], services: AppServices, logger: Logger): RunningJobs {
  const schedules = jobs.map((job) => new JobSchedule(job, services, logger));
  const now = () => services.clock().getTime();
  const discover = () => {
    const onDisk = new Set(services.registry.list());
    for (const s of schedules) s.sync(onDisk);
  };
  discover();
  const rescan = setInterval(discover, RESCAN_MS);
  rescan.unref();

  return {
    kick(name, subdomain) {
      schedules.find((s) => s.job.name === name)?.dueAt(subdomain, now());
    },
    changed(subdomain) {
      for (const s of schedules) if (s.job.followsWrites) s.dueAt(subdomain, now() + AFTER_WRITE_MS);
    },
    async stop() {
      clearInterval(rescan);
      await Promise.all(schedules.map((s) => s.stop()));
    },
  };
}
