import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { PACKAGE_ROOT } from '../package.ts';

/**
 * WAL checkpoints on a worker thread, off the event loop.
 *
 * SQLite's automatic checkpoint runs inside the COMMIT that pushes the WAL over 1,000 pages, so one
 * request in every few dozen writes pays for copying thousands of pages back into the database
 * file (and, under FULL or NORMAL, two fsyncs): about 30 ms of an invoice of 5,000 entries, and the
 * slowest commits of the write path. Here the workspace's own connection checkpoints only as a
 * backstop (`backstopPages`), and a worker thread with a connection of its own runs a PASSIVE
 * checkpoint of each workspace that wrote since its last one (see `BATCH_CHANGES`). A
 * PASSIVE checkpoint never waits for or blocks writers or readers; SQLite's locks make a
 * checkpoint by another connection as safe as one by the writer.
 *
 * The worker opens a file only for one checkpoint and closes it before it says it is done, and
 * one checkpoint runs at a time. A handle that closes while the worker has its file open waits for
 * it (`waitFor`), so the worker is never the file's last connection (which would fold and delete
 * the WAL by name while a move or a restore renames files) and never holds a file that is moved.
 */

/**
 * The workspace connection's own automatic checkpoint. Besides catching up should the worker fall
 * behind, it is what lets a WAL under steady writes start over: SQLite restarts the WAL only after
 * a checkpoint that no commit overlapped, which the worker's never is while requests keep writing,
 * so the writer's own checkpoint does it, inside one commit, with its two fsyncs (20-50 ms here).
 * At 16 MB of WAL that commit came about once a second under the bench's load and made the slowest
 * 1 % of requests (p99 2.1× the floor's); at 64 MB it comes a quarter as often, and the worker has
 * copied nearly every page by then. SQLite counts it in pages, so the pages are those of the file's
 * own page size (files made before 8 KiB pages keep 4 KiB ones until `hourbook vacuum`).
 */
const BACKSTOP_WAL_BYTES = 64 * 1024 * 1024;
export const backstopPages = (pageSize: number) => Math.round(BACKSTOP_WAL_BYTES / pageSize);
/** How often the open workspaces are looked at. */
const INTERVAL_MS = 200;
/**
 * A workspace is checkpointed once this many rows changed since its last checkpoint, or once
 * `SETTLE_MS` passed with any change: checkpoints of a busy file stay a few hundred pages apart
 * (a page written many times between two is copied once), a quiet one is folded in soon.
 */
const BATCH_CHANGES = 500;
const SETTLE_MS = 1000;

/** The worker: one PASSIVE checkpoint per message, its connection closed before it answers. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const busy = new Int32Array(workerData.busy);
parentPort.on('message', ({ job, file, synchronous }) => {
  let error = null;
  try {
    const db = new Database(file, { fileMustExist: true });
    try {
      db.pragma('synchronous = ' + synchronous);
      db.pragma('wal_checkpoint(PASSIVE)');
    } finally {
      db.close();
    }
  } catch (err) {
    error = String(err && err.message || err);
  }
  Atomics.store(busy, 0, 0);
  Atomics.notify(busy, 0);
  parentPort.postMessage({ job, file, error });
});
`;

/** What the checkpointer needs of an open workspace. */
export interface CheckpointTarget {
  readonly file: string;
  /** SQLite's count of rows this connection changed since it opened (`total_changes()`). */
  changes(): number;
}

export class Checkpointer {
  private readonly worker: Worker;
  /** 1 while the worker has a file open (set before the job is posted, cleared by the worker). */
  private readonly busy = new Int32Array(new SharedArrayBuffer(4));
  /** The file of the job posted last, until the worker answers that job. */
  private busyFile: string | null = null;
  private job = 0;
  /** `total_changes()` of each workspace, and the time, when its last checkpoint was asked for. */
  private readonly checkpointedAt = new Map<string, { changes: number; at: number }>();
  private readonly timer: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly targets: () => Iterable<CheckpointTarget>,
    private readonly synchronous: 'FULL' | 'NORMAL',
    private readonly onError: (file: string, error: string) => void,
  ) {
    const driver = createRequire(join(PACKAGE_ROOT, 'package.json')).resolve('better-sqlite3');
    // The worker runs a few statements at a time: a small heap keeps its memory small beside the server's.
    const resourceLimits = { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2, codeRangeSizeMb: 4 };
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, busy: this.busy.buffer }, resourceLimits });
    this.worker.unref();
    this.worker.on('message', ({ job, file, error }: { job: number; file: string; error: string | null }) => {
      // An answer may arrive after the next job was posted (the shared flag already said done).
      if (job === this.job) this.busyFile = null;
      if (error) this.onError(file, error);
    });
    // A worker that dies leaves the workspace connections' backstop checkpoints.
    this.worker.on('error', (err) => this.onError(this.busyFile ?? '(worker)', err.message));
    this.worker.on('exit', () => {
      // Gone, so it holds no file: nobody waits for it any more.
      this.halt();
      this.busyFile = null;
      Atomics.store(this.busy, 0, 0);
    });
    this.timer = setInterval(() => {
      try {
        this.tick();
      } catch (err) {
        // A workspace that cannot be read now is looked at again next time; the server goes on.
        this.onError('(tick)', err instanceof Error ? err.message : String(err));
      }
    }, INTERVAL_MS).unref();
  }

  /** Asks for a checkpoint of the workspace that wrote the most since its last one. */
  private tick(): void {
    if (this.stopped || Atomics.load(this.busy, 0) === 1) return;
    const now = Date.now();
    let chosen: { target: CheckpointTarget; changes: number; behind: number } | null = null;
    for (const target of this.targets()) {
      const changes = target.changes();
      const last = this.checkpointedAt.get(target.file) ?? { changes: 0, at: 0 };
      const behind = changes - last.changes;
      const due = behind >= BATCH_CHANGES || (behind > 0 && now - last.at >= SETTLE_MS);
      if (due && (!chosen || behind > chosen.behind)) chosen = { target, changes, behind };
    }
    if (!chosen) return;
    this.checkpointedAt.set(chosen.target.file, { changes: chosen.changes, at: now });
    this.busyFile = chosen.target.file;
    Atomics.store(this.busy, 0, 1);
    this.worker.postMessage({ job: ++this.job, file: chosen.target.file, synchronous: this.synchronous });
  }

  /**
   * Called by a workspace connection about to close: returns once the worker has no connection to
   * `file` (at once, unless it is checkpointing that file now).
   */
  waitFor(file: string): void {
    if (this.busyFile === file) Atomics.wait(this.busy, 0, 1, 60_000);
    this.checkpointedAt.delete(file);
  }

  private halt(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  /** Lets a checkpoint in progress finish, then ends the worker (after the registry closed every file). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.halt();
    Atomics.wait(this.busy, 0, 1, 60_000);
    await this.worker.terminate();
  }
}
