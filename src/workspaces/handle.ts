import BetterSqlite3 from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import type { Database } from '../db/index.ts';
import { backstopPages, type Checkpointer } from './checkpointer.ts';
import { CommitGroup } from './commit-group.ts';
import { migrateIfBehind } from './migrate.ts';
import { WalSync } from './wal-sync.ts';

/**
 * The page size of a new workspace file. With SQLite's default of 4 KiB, an invoice of 5,000
 * entries took 15 % longer: marking each entry billed moves it within three indexes, and with pages
 * twice as large those moves touch half as many pages in B-trees a level shallower (`npm run bench`,
 * invoices; reports and exports read the same or faster, the write path is unchanged). 16 KiB gained
 * little more and doubles again the size of a new, empty file (about 1.1 MB at 8 KiB). An existing
 * file keeps the page size it was made with until `hourbook vacuum` rewrites it.
 */
export const PAGE_SIZE = 8192;

export interface OpenOptions {
  synchronous: 'FULL' | 'NORMAL';
  /** How long a shared commit waits for more writers (0: until the current turn of the event loop ends). */
  commitDelayMs?: number;
  /** Checkpoints the WAL off the event loop; the connection's own automatic checkpoint is then only a backstop. */
  checkpointer?: Pick<Checkpointer, 'waitFor'> | null;
}

/** One open workspace file: the raw connection (for pragmas and benchmarks) and its drizzle view. */
export class WorkspaceHandle {
  readonly sqlite: BetterSqlite3.Database;
  readonly db: Database;
  /** Shares one commit between the writes of requests that arrive together. */
  readonly commits: CommitGroup;
  /** Requests currently using this handle; the registry never closes a handle in use. */
  users = 0;
  private readonly cache = new Map<unknown, unknown>();
  private readonly walSync: WalSync | null;
  private checkpointer: OpenOptions['checkpointer'];
  private totalChanges: BetterSqlite3.Statement<[], number> | null = null;

  constructor(
    readonly subdomain: string,
    readonly file: string,
    opts: OpenOptions,
  ) {
    this.sqlite = new BetterSqlite3(file, { fileMustExist: false });
    this.walSync = opts.synchronous === 'FULL' ? new WalSync(`${file}-wal`) : null;
    this.commits = new CommitGroup(this.sqlite, opts.commitDelayMs ?? 0, this.walSync);
    try {
      // Only a file that has no page yet takes a page size; WAL mode fixes it from then on.
      if (this.sqlite.pragma('page_count', { simple: true }) === 0) this.sqlite.pragma(`page_size = ${PAGE_SIZE}`);
      this.sqlite.pragma('journal_mode = WAL');
      this.sqlite.pragma('foreign_keys = ON');
      this.sqlite.pragma('busy_timeout = 5000');
      this.sqlite.pragma(`synchronous = ${opts.synchronous}`);
      if (opts.checkpointer) this.useCheckpointer(opts.checkpointer);
      // Behind the current schema only after an upgrade: normally this is two small reads.
      migrateIfBehind(this.sqlite, file);
      // Statement and savepoint journals in memory, not in a temporary file: every write of a
      // shared commit runs in a savepoint whose journal holds a copy of each page it changes, and
      // past 64 KiB SQLite moved it to a file in /var/tmp, opened and unlinked per commit (the
      // write path ~15 % slower). A journal holds no more than the pages its write changes. Set
      // after the migrations, whose table-wide statements may still spill theirs to disk.
      this.sqlite.pragma('temp_store = MEMORY');
      // No relational schema: building its query API cost about half a millisecond per open.
      this.db = drizzle(this.sqlite);
    } catch (err) {
      this.sqlite.close();
      throw err;
    }
  }

  /**
   * A value built once per open file, e.g. a set of prepared statements. Keyed by the builder
   * function itself, so each module's statements are prepared on first use and reused after.
   */
  memo<T>(build: (db: Database) => T): T {
    let value = this.cache.get(build) as T | undefined;
    if (value === undefined) {
      value = build(this.db);
      this.cache.set(build, value);
    }
    return value;
  }

  /** From now on `checkpointer` checkpoints this file's WAL; the connection's own checkpoint becomes a backstop. */
  useCheckpointer(checkpointer: NonNullable<OpenOptions['checkpointer']>): void {
    this.checkpointer = checkpointer;
    this.sqlite.pragma(`wal_autocheckpoint = ${backstopPages(this.sqlite.pragma('page_size', { simple: true }) as number)}`);
  }

  /** How many times the server synced this file's WAL after a shared commit (FULL only). */
  get walSyncs(): number {
    return this.walSync?.syncs ?? 0;
  }

  /** Rows this connection changed since it opened: the checkpointer's sign that the WAL grew. */
  changes(): number {
    this.totalChanges ??= this.sqlite.prepare<[], number>('SELECT total_changes()').pluck();
    return this.totalChanges.get()!;
  }

  close(): void {
    this.cache.clear();
    if (this.sqlite.open) {
      this.commits.flushNow();
      this.walSync?.close();
      // The worker must not hold the file when this connection folds the WAL and closes it.
      this.checkpointer?.waitFor(this.file);
      // Fold the WAL back into the main file so a closed workspace is one self-contained file. A
      // reader in another process (a backup, Litestream's lock) may hold the WAL: then the
      // checkpoint gives up at once instead of waiting out busy_timeout, and the WAL stays.
      try {
        this.sqlite.pragma('busy_timeout = 0');
        this.sqlite.pragma('wal_checkpoint(TRUNCATE)');
      } finally {
        this.sqlite.close();
      }
    }
  }
}
