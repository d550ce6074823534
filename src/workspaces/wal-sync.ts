import { closeSync, fsync, fsyncSync, openSync } from 'node:fs';

/**
 * Makes a workspace's committed WAL frames durable off the event loop: `fsync` of the `-wal` file
 * on libuv's thread pool (the same call SQLite makes for FULL), through a descriptor of our own
 * (fsync flushes the file's data whichever descriptor wrote it).
 *
 * With `synchronous = FULL`, SQLite syncs the WAL inside COMMIT, and the event loop stands still
 * for the whole sync; under load that was the largest wait of the write path. The shared commit
 * (commit-group.ts) instead commits with `synchronous = NORMAL` (frames written, not synced) and
 * syncs here: requests that arrive meanwhile are parsed and run into the next group, and no writer
 * of the group is answered before its sync returned. Acknowledged writes are as durable as under
 * FULL: SQLite's NORMAL still syncs the WAL before each checkpoint and the database after it, so
 * the only difference, the per-commit WAL sync, is the one made here.
 */
export class WalSync {
  private fd: number | null = null;
  /** Syncs under way: the descriptor is closed only once none is, so its number is never reused under one. */
  private inFlight = 0;
  private closing = false;

  constructor(private readonly walFile: string) {}

  /** Resolves once every frame written to the WAL before the call is on disk. */
  sync(): Promise<void> {
    const fd = this.descriptor();
    this.inFlight++;
    return new Promise<void>((resolve, reject) => {
      fsync(fd, (err) => {
        this.inFlight--;
        if (this.closing && this.inFlight === 0) this.release();
        if (err) reject(err);
        else resolve();
      });
    });
  }

  /** The same, blocking: for a file being closed. */
  syncNow(): void {
    fsyncSync(this.descriptor());
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
