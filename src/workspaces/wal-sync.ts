import { closeSync, fsyncSync, openSync } from 'node:fs';
import { WorkerCalls } from '../worker-calls.ts';

/**
 * Makes a workspace's committed WAL frames durable off the event loop: `fsync` of the `-wal` file
 * (the same call SQLite makes for FULL) on a thread of its own, through a descriptor of our own
 * (fsync flushes the file's data whichever descriptor wrote it).
 *
 * With `synchronous = FULL`, SQLite syncs the WAL inside COMMIT, and the event loop stands still
 * for the whole sync; under load that was the largest wait of the write path. The shared commit
 * (commit-group.ts) instead commits with `synchronous = NORMAL` (frames written, not synced) and
 * syncs here: requests that arrive meanwhile are parsed and run into the next group, and no writer
 * of the group is answered before its sync returned. Acknowledged writes are as durable as under
 * FULL: SQLite's NORMAL still syncs the WAL before each checkpoint and the database after it, so
 * the only difference, the per-commit WAL sync, is the one made here.
 *
 * The syncs have a thread of their own rather than libuv's pool of four, which DNS lookups (a
 * webhook receiver's name that never answers holds one for its whole timeout), password hashing
 * and body decompression share: a commit must never wait behind those.
 */
export class WalSync {
  private fd: number | null = null;
  /** Syncs under way: the descriptor is closed only once none is, so its number is never reused under one. */
  private inFlight = 0;
  private closing = false;
  /** Syncs that returned successfully (what a test or an operator can count). */
  syncs = 0;

  constructor(private readonly walFile: string) {}

  /** Resolves once every frame written to the WAL before the call is on disk; rejects (never throws) when that cannot be known. */
  sync(): Promise<void> {
    let fd: number;
    try {
      fd = this.descriptor();
    } catch (err) {
      return Promise.reject(err as Error);
    }
    this.inFlight++;
    return syncThread
      .call({ fd })
      .then(() => {
        this.syncs++;
      })
      .finally(() => {
        this.inFlight--;
        if (this.closing && this.inFlight === 0) this.release();
      });
  }

  /** The same, blocking, on this thread: for a file being closed. */
  syncNow(): void {
    fsyncSync(this.descriptor());
    this.syncs++;
  }

  /** Lets go of the descriptor once the syncs under way are done. */
  close(): void {
    this.closing = true;
    if (this.inFlight === 0) this.release();
  }

  /**
   * The descriptor, opened on first use (the WAL exists once a commit wrote to it). It stays right
   * while the workspace's connection is open: SQLite removes a WAL only when its last connection
   * closes, and the handle closes this before it closes that connection.
   */
  private descriptor(): number {
    if (this.closing) throw new Error(`${this.walFile} is closed for syncing`);
    this.fd ??= openSync(this.walFile, 'r');
    return this.fd;
  }

  private release(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

/** The sync thread: one `fsyncSync` per message, its error (if any) in the answer. */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { fsyncSync } = require('node:fs');
parentPort.on('message', ({ job, fd }) => {
  try {
    fsyncSync(fd);
    parentPort.postMessage({ job });
  } catch (err) {
    parentPort.postMessage({ job, error: 'fsync of the WAL failed: ' + String((err && err.message) || err) });
  }
});
`;

/** The process's one sync thread. A few bytes per message: a small heap (as the checkpointer's) keeps its memory small. */
const syncThread = new WorkerCalls<{ fd: number }, void>('the WAL sync thread', WORKER_SOURCE, { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2 });
