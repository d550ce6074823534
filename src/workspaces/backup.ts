import { chmodSync, closeSync, constants, existsSync, fsyncSync, openSync, readSync, renameSync, rmSync, statSync } from 'node:fs';
import { copyFile, open, truncate } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { WorkerCalls } from '../worker-calls.ts';
import { schemaState, type SchemaState } from './migrate.ts';

/**
 * Consistent copies of workspace files and the checks made on them: used by `hourbook backup`,
 * `restore`, `check`, and by a move between nodes. All of them open the files with their own
 * connection and never through the registry, so looking at a file never migrates it.
 */

/** How long `whileFrozen` keeps trying while locks are taken. */
const FREEZE_WITHIN_MS = 5000;
/**
 * How long a reader may keep the WAL from being checkpointed before `whileFrozen` gives up: a
 * request's read ends within it, a long reader (Litestream holds one for up to a minute) does not.
 */
const PINNED_GIVE_UP_MS = 300;

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const isBusy = (err: unknown) => String((err as { code?: unknown }).code ?? '').startsWith('SQLITE_BUSY');

/**
 * Runs `work` while the database file `file` holds every committed transaction and nothing can
 * write to it, so that reading its bytes reads one consistent snapshot; resolves to false, without
 * running `work`, when it could not get there: locks taken for 5 s, or another reader keeping the
 * WAL from being checkpointed for more than `PINNED_GIVE_UP_MS` (a long reader such as Litestream's).
 *
 * In WAL mode only a checkpoint writes to the database file. With the write lock held by a second
 * connection (`BEGIN IMMEDIATE`, so no commit can land meanwhile), a PASSIVE checkpoint moves the
 * whole WAL into the file, and a read transaction begun then reads the file alone (read mark 0):
 * SQLite lets no checkpoint write to the file while such a reader lasts (it must lock read mark 0
 * first), however long `work` takes. The write lock is let go at once, within the same turn of
 * the event loop, so writers go on meanwhile and their commits wait in the WAL. No connection here
 * waits on a lock (busy_timeout 0): an attempt that finds one taken is tried again after a pause,
 * since the process calling this may itself hold it (a shared commit open across a turn of its
 * event loop), and waiting would keep that process from ever letting it go.
 */
export async function whileFrozen(file: string, work: (snapshot: FrozenFile) => Promise<void>): Promise<boolean> {
  const reader = new BetterSqlite3(file, { fileMustExist: true });
  const writer = new BetterSqlite3(file, { fileMustExist: true });
  try {
    for (const db of [reader, writer]) db.pragma('busy_timeout = 0');
    const deadline = performance.now() + FREEZE_WITHIN_MS;
    let pinnedSince: number | null = null;
    for (let attempt = 0; performance.now() < deadline; attempt++) {
      if (attempt > 0) await delay(Math.min(20, attempt) * Math.random());
      const snapshot = freeze(reader, writer);
      if (snapshot === 'pinned') pinnedSince ??= performance.now();
      else pinnedSince = null;
      if (pinnedSince !== null && performance.now() - pinnedSince > PINNED_GIVE_UP_MS) return false;
      if (typeof snapshot === 'string') continue;
      try {
        await work(snapshot);
        return true;
      } finally {
        reader.exec('COMMIT');
      }
    }
    return false;
  } finally {
    reader.close();
    writer.close();
  }
}

/** The database a frozen file holds: its first `pageCount` pages of `pageSize` bytes (the file may be longer). */
export interface FrozenFile {
  pageSize: number;
  pageCount: number;
}

/**
 * One attempt of `whileFrozen`: what the file holds, once `reader` is left in a read transaction of
 * the file alone; else `busy` (a lock was taken) or `pinned` (a reader of an older snapshot keeps
 * part of the WAL out of the file).
 */
function freeze(reader: BetterSqlite3.Database, writer: BetterSqlite3.Database): FrozenFile | 'busy' | 'pinned' {
  // Most of the WAL is moved in before the write lock is taken, so that writers of other
  // processes wait only for what was committed since.
  reader.pragma('wal_checkpoint(PASSIVE)');
  try {
    writer.exec('BEGIN IMMEDIATE');
  } catch (err) {
    if (isBusy(err)) return 'busy';
    throw err;
  }
  try {
    const [checkpoint] = reader.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
    // log is -1 for a file not in WAL mode, whose readers would hold its writers back.
    if (!checkpoint || checkpoint.busy !== 0 || checkpoint.log < 0) return 'busy';
    if (checkpoint.checkpointed !== checkpoint.log) return 'pinned';
    reader.exec('BEGIN');
    // The first read starts the read transaction; the page count is then the snapshot's own.
    reader.prepare('SELECT count(*) FROM sqlite_schema').get();
    const pageCount = reader.pragma('page_count', { simple: true }) as number;
    return { pageSize: reader.pragma('page_size', { simple: true }) as number, pageCount };
  } catch (err) {
    if (reader.inTransaction) reader.exec('COMMIT');
    if (isBusy(err)) return 'busy';
    throw err;
  } finally {
    writer.exec('ROLLBACK');
  }
}

/**
 * Runs `work` on a consistent image of the live workspace file `source`: the file itself while it
 * is frozen (`whileFrozen`), or, when it cannot be frozen, a copy of the file and its WAL at
 * `scratch` (`copyWithWal`), deleted afterwards. For a server's endpoints: the copies run on the
 * thread pool, leaving its event loop free.
 */
export async function withConsistentImage(source: string, scratch: string, work: (path: string, image: FrozenFile) => Promise<void>): Promise<void> {
  if (await whileFrozen(source, (image) => work(source, image))) return;
  try {
    await work(scratch, await copyWithWal(source, scratch));
  } finally {
    removeDatabaseFiles(scratch);
  }
}

/**
 * Copies a live workspace file: what is committed when the copy is taken, never a half-written
 * transaction, while the server goes on serving. The file is copied byte for byte while frozen
 * (`whileFrozen`), as fast as `cp`; a file that cannot be frozen is copied with its WAL instead
 * (`copyWithWal`), about as fast. The copy is left as a single self-contained file (rollback
 * journal, no -wal), not yet flushed to disk: the caller syncs it (`backupFile` while it checks
 * it). Returns how it was copied.
 */
export async function copyConsistent(source: string, target: string): Promise<'frozen' | 'with its WAL'> {
  if (existsSync(target)) throw new Error(`${target} already exists`);
  try {
    const frozen = await whileFrozen(source, async ({ pageSize, pageCount }) => {
      await copyFile(source, target, constants.COPYFILE_EXCL);
      // Bytes past the database's last page (none after a checkpoint) are not part of it.
      await truncate(target, pageSize * pageCount);
    });
    if (!frozen) await copyWithWal(source, target);
    await useRollbackJournal(target);
    return frozen ? 'frozen' : 'with its WAL';
  } catch (err) {
    removeDatabaseFiles(target);
    throw err;
  }
}

/**
 * A consistent copy of a live file that cannot be frozen, because a long reader (Litestream's)
 * keeps part of its WAL out of it: the file and its WAL, both copied while a read transaction of
 * ours lasts; the copied WAL is then folded into the copy. As Litestream's own snapshots, it relies
 * on two rules of SQLite's WAL:
 *
 * - While our read transaction lasts, a checkpoint writes into the file only frames older than our
 *   snapshot, and the WAL cannot start over, so those frames stay in it: every page a checkpoint
 *   writes into the file while we copy it, possibly torn under our read, is in the WAL we copy.
 * - Unless the transaction began on a WAL wholly in the file: it then reads the file alone (read
 *   mark 0), no checkpoint can write to the file while it lasts, but the WAL may start over. If it
 *   did while we copied it (its header changed), the file's copy alone is our snapshot.
 * - Opening the copy replays the copied WAL's frames up to its last whole commit (the salts and
 *   checksums of each frame say where that is), which rewrites every such page.
 *
 * The copy is the database as of a commit at least as recent as our read transaction (test:
 * test/frozen-copy.test.ts). `copyBytes` is for tests, which slow the copy down to let many
 * commits and checkpoints happen during it.
 */
export async function copyWithWal(source: string, target: string, copyBytes: (from: string, to: string) => Promise<void> = (from, to) => copyFile(from, to, constants.COPYFILE_EXCL)): Promise<FrozenFile> {
  removeDatabaseFiles(target);
  const reader = new BetterSqlite3(source, { fileMustExist: true });
  try {
    await beginRead(reader);
    await copyBytes(source, target);
    if (existsSync(`${source}-wal`)) {
      await copyBytes(`${source}-wal`, `${target}-wal`);
      // The WAL started over (or was truncated) while it was copied, so the copy may hold the old
      // header with new frames: possible only if our snapshot reads the file alone (read mark 0),
      // which no checkpoint writes to meanwhile, so the file's copy alone is that snapshot.
      if (!walHeader(`${source}-wal`).equals(walHeader(`${target}-wal`))) rmSync(`${target}-wal`);
    }
  } finally {
    if (reader.inTransaction) reader.exec('COMMIT');
    reader.close();
  }
  let image: FrozenFile;
  const copy = new BetterSqlite3(target, { fileMustExist: true });
  try {
    // No fsync of the copy here, on the event loop of a server: the caller syncs it where it must.
    copy.pragma('synchronous = OFF');
    const [folded] = copy.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
    if (!folded || folded.busy !== 0) throw new Error(`could not fold the copied WAL into ${target}`);
    image = { pageSize: copy.pragma('page_size', { simple: true }) as number, pageCount: copy.pragma('page_count', { simple: true }) as number };
  } finally {
    // The last connection to close deletes the (now empty) WAL.
    copy.close();
  }
  rmSync(`${target}-shm`, { force: true });
  // Bytes past the database's last page (the file may have been longer) are not part of it.
  await truncate(target, image.pageSize * image.pageCount);
  return image;
}

/** The 32-byte header of a WAL file (its salts change whenever it starts over); empty for an empty file. */
function walHeader(file: string): Buffer {
  if (!existsSync(file)) return Buffer.alloc(0);
  const fd = openSync(file, 'r');
  try {
    const header = Buffer.alloc(32);
    return header.subarray(0, readSync(fd, header, 0, 32, 0));
  } finally {
    closeSync(fd);
  }
}

/**
 * Begins a read transaction without waiting on a lock (busy_timeout 0, as `whileFrozen`): a taken
 * lock, rare for a reader in WAL mode, is tried again after a pause for up to 5 s, so the event
 * loop of a server is never held.
 */
async function beginRead(db: BetterSqlite3.Database): Promise<void> {
  db.pragma('busy_timeout = 0');
  const deadline = performance.now() + FREEZE_WITHIN_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      db.exec('BEGIN');
      db.prepare('SELECT count(*) FROM sqlite_schema').get();
      return;
    } catch (err) {
      if (db.inTransaction) db.exec('COMMIT');
      if (!isBusy(err) || performance.now() > deadline) throw err;
      await delay(Math.min(20, attempt + 1) * Math.random());
    }
  }
}

/**
 * Marks a copy as a rollback-journal database: header bytes 18 and 19 (the file format's write and
 * read versions) become 1, as `PRAGMA journal_mode = DELETE` leaves them for a database whose WAL
 * is empty, which a copy's is (it has none). Opened, it then makes no -wal or -shm beside itself.
 * Done by hand because that pragma syncs the whole file at once, before the copy can be checked.
 */
export async function useRollbackJournal(file: string): Promise<void> {
  const handle = await open(file, 'r+');
  try {
    await handle.write(Buffer.from([1, 1]), 0, 2, 18);
  } finally {
    await handle.close();
  }
}

/** Flushes a file to disk on the thread pool, so that a check can read it meanwhile. */
export async function syncFile(file: string): Promise<void> {
  const handle = await open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Writes a compact copy of a workspace file to `target` with SQLite's `VACUUM INTO`: every table
 * and index rebuilt in order, no free pages, and pages of `pageSize` bytes (a file's page size
 * changes only by such a rewrite). A consistent snapshot, like `copyConsistent`; a caller whose
 * copy is to replace the file pauses the workspace's writes first, or the writes made meanwhile
 * would be lost with the old file.
 */
export function copyCompacted(source: string, target: string, pageSize: number): void {
  if (existsSync(target)) throw new Error(`${target} already exists`);
  const db = new BetterSqlite3(source, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    // Read by VACUUM INTO as the new file's page size, even from a WAL-mode file.
    db.pragma(`page_size = ${pageSize}`);
    db.prepare('VACUUM INTO ?').run(target);
  } catch (err) {
    rmSync(target, { force: true });
    throw err;
  } finally {
    db.close();
  }
}

/** A workspace file's page size, read from its header (bytes 16-17; 1 stands for 65,536). */
export function pageSizeOf(file: string): number {
  const fd = openSync(file, 'r');
  try {
    const header = Buffer.alloc(2);
    readSync(fd, header, 0, 2, 16);
    const size = header.readUInt16BE(0);
    return size === 1 ? 65536 : size;
  } finally {
    closeSync(fd);
  }
}

/**
 * A hashing thread: per message, the SHA-256 of one file, or (with `pageSize`) of each of its
 * `pageCount` pages from `firstPage`, read in 1 MiB reads (with 64 KiB ones, hashing a large file took half
 * as long again).
 */
const HASH_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { closeSync, openSync, readSync } = require('node:fs');
const { createHash } = require('node:crypto');
const buffer = Buffer.allocUnsafe(1 << 20);
function wholeFile(fd) {
  const hash = createHash('sha256');
  for (let n; (n = readSync(fd, buffer, 0, buffer.length, null)) > 0; ) hash.update(buffer.subarray(0, n));
  return hash.digest('hex');
}
function eachPage(fd, pageSize, firstPage, pageCount) {
  const hashes = Buffer.alloc(pageCount * 32);
  const perRead = Math.max(1, Math.floor(buffer.length / pageSize));
  for (let i = 0; i < pageCount; ) {
    const want = Math.min(perRead, pageCount - i) * pageSize;
    const n = readSync(fd, buffer, 0, want, (firstPage + i) * pageSize);
    if (n < want) throw new Error('the file ends before page ' + (firstPage + i + 1 + Math.floor(n / pageSize)));
    for (let at = 0; at < n; at += pageSize, i++) createHash('sha256').update(buffer.subarray(at, at + pageSize)).digest().copy(hashes, i * 32);
  }
  return hashes;
}
parentPort.on('message', ({ job, path, pageSize, firstPage, pageCount }) => {
  let fd = null;
  try {
    fd = openSync(path, 'r');
    const result = pageSize ? eachPage(fd, pageSize, firstPage, pageCount) : wholeFile(fd);
    parentPort.postMessage({ job, result }, pageSize ? [result.buffer] : []);
  } catch (err) {
    parentPort.postMessage({ job, error: 'hashing ' + path + ' failed: ' + String((err && err.message) || err) });
  } finally {
    if (fd !== null) closeSync(fd);
  }
});
`;
const hashingThread = (n: number) =>
  new WorkerCalls<{ path: string; pageSize?: number; firstPage?: number; pageCount?: number }, string | Uint8Array>(`hashing thread ${n}`, HASH_SOURCE, {
    maxOldGenerationSizeMb: 16,
    maxYoungGenerationSizeMb: 2,
  });
/** One per core (up to 4): a file's pages are hashed by all of them at once, each a part of the file. */
const hashThreads = Array.from({ length: Math.max(1, Math.min(4, availableParallelism())) }, (_, n) => hashingThread(n + 1));
const hashThread = hashThreads[0]!;

/**
 * The SHA-256 of a file, hex, computed on a thread of its own: a serving process's event loop
 * stays free, and a caller that also checks the file (`checkFile`, which holds this thread for
 * as long as `integrity_check` reads) runs both at once on two cores (`checkedAndHashed`).
 */
export const sha256File = async (path: string): Promise<string> => (await hashThread.call({ path })) as string;

/** Bytes of one page's hash in `pageHashes`. */
export const PAGE_HASH_BYTES = 32;

/**
 * The SHA-256 of each of the first `pageCount` pages of a file, one after the other
 * (`PAGE_HASH_BYTES` each), computed by every hashing thread at once, each over its part of the
 * file: what a move compares to send only the pages that differ (src/ops/page-diff.ts), while the
 * workspace's writes are paused.
 */
export async function pageHashes(path: string, { pageSize, pageCount }: FrozenFile): Promise<Buffer> {
  const share = Math.ceil(pageCount / hashThreads.length);
  const parts = await Promise.all(
    hashThreads.map((thread, i) => {
      const firstPage = i * share;
      return thread.call({ path, pageSize, firstPage, pageCount: Math.max(0, Math.min(share, pageCount - firstPage)) }) as Promise<Uint8Array>;
    }),
  );
  return Buffer.concat(parts);
}

export interface FileCheck {
  /** `ok`, or SQLite's own lines describing the damage. */
  integrity: string[];
  /** Rows whose foreign key points at nothing. */
  foreignKeyViolations: number;
  schema: SchemaState;
}

/** `PRAGMA integrity_check` (or the faster `quick_check`), foreign keys and schema version of one file. */
export function checkFile(path: string, opts: { quick?: boolean } = {}): FileCheck {
  const db = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    const integrity = (db.pragma(opts.quick ? 'quick_check' : 'integrity_check') as Record<string, string>[]).map((row) => Object.values(row)[0] ?? '');
    const foreignKeyViolations = (db.pragma('foreign_key_check') as unknown[]).length;
    return { integrity, foreignKeyViolations, schema: schemaState(db) };
  } finally {
    db.close();
  }
}

/**
 * `checkFile` and `sha256File` of one file at once: the hash on its thread while the check reads
 * the file here (the two take about as long). A file SQLite cannot even open has, as its check,
 * the error that said so.
 */
export async function checkedAndHashed(path: string, opts: { quick?: boolean } = {}): Promise<{ check: FileCheck | Error; sha256: string }> {
  const hashing = sha256File(path);
  const check = checkOrError(path, opts);
  return { check, sha256: await hashing };
}

/** `checkFile`, or, for a file SQLite cannot even open, the error that said so. */
export function checkOrError(path: string, opts: { quick?: boolean } = {}): FileCheck | Error {
  try {
    return checkFile(path, opts);
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

/** Deletes a database file with whatever journal, `-wal` or `-shm` file lies beside it. */
export function removeDatabaseFiles(file: string): void {
  for (const suffix of ['', '-journal', '-wal', '-shm']) rmSync(file + suffix, { force: true });
}

export const isHealthy = (check: FileCheck | Error): boolean => !(check instanceof Error) && check.integrity.length === 1 && check.integrity[0] === 'ok' && check.foreignKeyViolations === 0;

/** What is wrong with a file that failed its check, in a line: SQLite's first words of it, the foreign keys. */
export function damageOf(check: FileCheck | Error): string {
  if (check instanceof Error) return check.message;
  const integrity = check.integrity[0] === 'ok' ? [] : check.integrity.slice(0, 2);
  return [...integrity, ...(check.foreignKeyViolations ? [`${check.foreignKeyViolations} foreign key violations`] : [])].join('; ');
}

/** One workspace in a backup: what `restore` checks before it trusts the copy. */
export interface BackupEntry {
  subdomain: string;
  file: string;
  bytes: number;
  sha256: string;
  /** The newest migration the copy has (its schema version). */
  schema_version: string | null;
  integrity: 'ok';
  copied_at: string;
}

export interface BackupManifest {
  format: 1;
  hourbook_version: string;
  created_at: string;
  source_data_dir: string;
  workspaces: BackupEntry[];
}

/**
 * Copies one workspace file to `target` and proves the copy: integrity_check must answer `ok`,
 * else the copy is deleted and this throws (a one-line reason). Returns the manifest entry.
 */
export async function backupFile(subdomain: string, source: string, target: string, now: () => Date): Promise<BackupEntry> {
  await copyConsistent(source, target);
  try {
    // The copy holds every record, password and key hash: its owner's only, whatever the umask
    // (copyFile gives it the workspace file's mode, often 0644).
    chmodSync(target, 0o600);
    const copiedAt = now().toISOString();
    // Written to disk while it is read back: the check and the hash read it from the page cache.
    const [{ check, sha256 }] = await Promise.all([checkedAndHashed(target), syncFile(target)]);
    if (check instanceof Error || !isHealthy(check)) throw new Error(`its copy fails its integrity check: ${damageOf(check)}`);
    return {
      subdomain,
      file: target.split(/[\\/]/).at(-1) ?? target,
      bytes: statSync(target).size,
      sha256,
      schema_version: check.schema.version,
      integrity: 'ok',
      copied_at: copiedAt,
    };
  } catch (err) {
    removeDatabaseFiles(target);
    throw err;
  }
}

/** Flushes a file, or a directory's entries (a file created, renamed or deleted in it), to disk. */
export const fsyncPath = (path: string) => {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
};

/**
 * Puts a verified copy in place as `file`: the copy is flushed to disk, whatever `-wal`/`-shm` a
 * previous file left is removed (a stale WAL would be replayed over the copy), the copy is renamed
 * over (atomic on one file system) and the directory flushed, so after a crash the workspace is
 * either the old file or the whole new one.
 */
export function installCopy(copy: string, file: string): void {
  fsyncPath(copy);
  for (const suffix of ['-wal', '-shm']) rmSync(file + suffix, { force: true });
  renameSync(copy, file);
  fsyncPath(dirname(file));
}
