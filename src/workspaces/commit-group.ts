import type BetterSqlite3 from 'better-sqlite3';

/** One shared transaction: the promise its writers wait on, settled by COMMIT. */
interface Group {
  committed: Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit for one workspace connection: writes of requests that arrive together share one
 * transaction, and so one fsync under `synchronous = FULL` (as PostgreSQL's commit delay does).
 *
 * The first write of a turn of the event loop opens the shared transaction (BEGIN IMMEDIATE); each
 * write then runs in a savepoint of its own (better-sqlite3 nests transaction functions as
 * savepoints), so a write that fails rolls back alone while its neighbours stay. The transaction
 * commits in the next check phase (`setImmediate`), after every request whose bytes arrived in the
 * same poll phase has run (or, with COMMIT_DELAY_MS, that many milliseconds later). A request is answered only once the promise `join` gave it resolves,
 * that is after COMMIT returned; if the COMMIT fails, every write of the group fails and none stays.
 */
export class CommitGroup {
  private group: Group | null = null;

  constructor(
    private readonly sqlite: BetterSqlite3.Database,
    /** Extra time a group stays open for more writers (PostgreSQL's commit_delay); 0 by default. */
    private readonly delayMs = 0,
  ) {}

  /**
   * Before a write that shares the commit: opens the shared transaction unless one is open, and
   * returns the promise that settles when it commits.
   */
  join(): Promise<void> {
    if (this.group && !this.sqlite.inTransaction) {
      // SQLite rolled the whole transaction back itself (disk full, I/O error): every write the
      // group held is gone, so its writers fail, and this write starts a new group.
      this.settle(new Error('the shared transaction was rolled back by SQLite'));
    }
    if (this.group) return this.group.committed;
    this.sqlite.exec('BEGIN IMMEDIATE');
    let resolve!: () => void;
    let reject!: (err: unknown) => void;
    const committed = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // Writers await it; a failure nobody awaits (all its writers already failed) is not unhandled.
    committed.catch(() => {});
    this.group = { committed, resolve, reject };
    if (this.delayMs > 0) setTimeout(() => this.flush(), this.delayMs);
    else setImmediate(() => this.flush());
    return committed;
  }

  /** The open shared transaction's commit, or a resolved promise when none is open. */
  pending(): Promise<void> {
    return this.group?.committed ?? Promise.resolve();
  }

  /**
   * Commits the shared transaction now. Writers that need their own commit at once (jobs, the
   * command line, closing the file) call it first, so they never join a group they would not wait for.
   */
  flush(): void {
    if (!this.group) return;
    try {
      if (!this.sqlite.inTransaction) throw new Error('the shared transaction was rolled back by SQLite');
      this.sqlite.exec('COMMIT');
      this.settle(null);
    } catch (err) {
      if (this.sqlite.inTransaction) this.sqlite.exec('ROLLBACK');
      this.settle(err);
    }
  }

  private settle(err: unknown): void {
    const group = this.group;
    this.group = null;
    if (err) group?.reject(err);
    else group?.resolve();
  }
}
