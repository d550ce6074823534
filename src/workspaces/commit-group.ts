import type BetterSqlite3 from 'better-sqlite3';
import type { WalSync } from './wal-sync.ts';

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
 * same poll phase has run (or, with COMMIT_DELAY_MS, that many milliseconds later). A request is
 * answered only once the promise `join` gave it resolves, that is after COMMIT returned and, under
 * `synchronous = FULL`, after the WAL was synced (`WalSync`: off the event loop, so the requests
 * that arrive meanwhile form the next group); if the COMMIT or the sync fails, every write of the
 * group fails.
 */
export class CommitGroup {
  private group: Group | null = null;
  /** The last committed group's sync, while it runs: readers of its writes wait for it too. */
  private syncing: Promise<void> | null = null;
  /** Why the last sync failed, until a later one returns. */
  private syncFailed: Error | null = null;

  constructor(
    private readonly sqlite: BetterSqlite3.Database,
    /** Extra time a group stays open for more writers (PostgreSQL's commit_delay); 0 by default. */
    private readonly delayMs = 0,
    /** Under FULL: syncs the WAL after each shared commit, which then commits as NORMAL. Null under NORMAL. */
    private readonly wal: WalSync | null = null,
  ) {}

  /**
   * Before a write that shares the commit: opens the shared transaction unless one is open, and
   * returns the promise that settles when it commits.
   */
  join(): Promise<void> {
    if (this.group && !this.sqlite.inTransaction) {
      // SQLite rolled the whole transaction back itself (disk full, I/O error): every write the
      // group held is gone, so its writers fail, and this write starts a new group.
      this.end()?.reject(new Error('the shared transaction was rolled back by SQLite'));
    }
    if (this.group) return this.group.committed;
    // The group's COMMIT writes its frames without syncing them; flush syncs them off the loop.
    if (this.wal) this.sqlite.pragma('synchronous = NORMAL');
    try {
      this.sqlite.exec('BEGIN IMMEDIATE');
    } catch (err) {
      if (this.wal) this.sqlite.pragma('synchronous = FULL');
      throw err;
    }
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

  /**
   * The open shared transaction's commit, else the sync of the last one while it runs, else a
   * resolved promise: what a reader that may have seen the group's writes waits for.
   */
  pending(): Promise<void> {
    return this.group?.committed ?? this.syncing ?? Promise.resolve();
  }

  /**
   * Resolves once every commit made so far is on disk: what a job waits for before it tells the
   * world about a change (sends its mail or webhook), so nothing goes out for a write that a power
   * cut could still take back. A sync covers every frame written before it began, so the last one
   * started is enough.
   */
  synced(): Promise<void> {
    return this.syncing ?? (this.syncFailed ? Promise.reject(this.syncFailed) : Promise.resolve());
  }

  /**
   * Commits the shared transaction now; its writers are answered once the WAL is synced. Writers
   * that need their own commit at once (jobs, the command line) call it first, so they never join
   * a group they would not wait for; their own commits sync inside COMMIT, as the connection's
   * `synchronous` setting says.
   */
  flush(): void {
    if (!this.group) return;
    let failure: unknown = null;
    try {
      if (!this.sqlite.inTransaction) throw new Error('the shared transaction was rolled back by SQLite');
      this.sqlite.exec('COMMIT');
    } catch (err) {
      if (this.sqlite.inTransaction) this.sqlite.exec('ROLLBACK');
      failure = err;
    }
    const group = this.end()!;
    if (failure) group.reject(failure);
    else if (!this.wal) group.resolve();
    else this.afterSync(this.wal.sync(), group);
  }

  /**
   * Runs `work`, whose own commits are not synced: for bookkeeping whose loss to a power cut costs
   * nothing (webhook deliveries: a lost fan-out is redone, a lost claim expires, a lost "delivered"
   * sends again). The open group commits first, synced as ever; better-sqlite3 is synchronous, so
   * no other write runs inside `work`.
   */
  unsynced<T>(work: () => T): T {
    if (!this.wal) return work();
    this.flush();
    this.sqlite.pragma('synchronous = NORMAL');
    try {
      return work();
    } finally {
      this.sqlite.pragma('synchronous = FULL');
    }
  }

  /** Commits the open group and syncs the WAL before returning: for a file about to be closed. */
  flushNow(): void {
    if (!this.group) return;
    this.flush();
    this.wal?.syncNow();
  }

  /**
   * The group's writers are answered when `synced` settles; until then readers wait for it too.
   * A sync that fails fails its writers (500), though SQLite already made their rows visible: as
   * with any failure reported after COMMIT, the rows may stay, and a client that retries with an
   * idempotency key gets the stored answer. Until a later commit syncs, `synced` keeps failing,
   * so no mail or webhook goes out for writes whose durability is not known.
   */
  private afterSync(synced: Promise<void>, group: Group): void {
    this.syncing = synced;
    synced.then(
      () => {
        this.syncFailed = null;
        group.resolve();
      },
      (err: Error) => {
        this.syncFailed = err;
        group.reject(err);
      },
    ).finally(() => {
      if (this.syncing === synced) this.syncing = null;
    });
  }

  /** Ends the open group: the connection syncs as configured again. Returns the group. */
  private end(): Group | null {
    const group = this.group;
    this.group = null;
    if (group && this.wal) this.sqlite.pragma('synchronous = FULL');
    return group;
  }
}
