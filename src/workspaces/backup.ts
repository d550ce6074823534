import { closeSync, existsSync, fsyncSync, openSync, readSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { WorkerCalls } from '../worker-calls.ts';
import { schemaState, type SchemaState } from './migrate.ts';

/**
 * Consistent copies of workspace files and the checks made on them: used by `hourbook backup`,
 * `restore`, `check`, and by a move between nodes. All of them open the files with their own
 * connection and never through the registry, so looking at a file never migrates it.
 */

/** Bytes copied per step when the copy must leave the event loop free (a serving process). */
const BYTES_PER_STEP_SHARED = 4 * 1024 * 1024;
const ALL_PAGES = 0x7fffffff;

/**
 * Copies a live workspace file with SQLite's online backup API: what is committed when the copy
 * finishes, WAL included, never a half-written transaction, while the server goes on serving.
 * `shareEventLoop` copies in steps (a process that also serves requests); a step that finds the
 * source changed by another connection starts over, so on a busy file one big step (the default)
 * is what finishes. The copy is left as a single self-contained file (rollback journal, no -wal).
 */
export async function copyConsistent(source: string, target: string, opts: { shareEventLoop?: boolean } = {}): Promise<void> {
  if (existsSync(target)) throw new Error(`${target} already exists`);
  const db = new BetterSqlite3(source, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    const pages = opts.shareEventLoop ? Math.max(1, Math.round(BYTES_PER_STEP_SHARED / (db.pragma('page_size', { simple: true }) as number))) : ALL_PAGES;
    await db.backup(target, { progress: () => pages });
  } catch (err) {
    rmSync(target, { force: true });
    throw err;
  } finally {
    db.close();
  }
  const copy = new BetterSqlite3(target);
  try {
    copy.pragma('journal_mode = DELETE');
  } finally {
    copy.close();
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

/** The hashing thread: reads one file per message in 1 MiB reads (with 64 KiB ones, hashing a large file took half as long again). */
const HASH_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { closeSync, openSync, readSync } = require('node:fs');
const { createHash } = require('node:crypto');
const buffer = Buffer.allocUnsafe(1 << 20);
parentPort.on('message', ({ job, path }) => {
  let fd = null;
  try {
    fd = openSync(path, 'r');
    const hash = createHash('sha256');
    for (let n; (n = readSync(fd, buffer, 0, buffer.length, null)) > 0; ) hash.update(buffer.subarray(0, n));
    parentPort.postMessage({ job, result: hash.digest('hex') });
  } catch (err) {
    parentPort.postMessage({ job, error: 'hashing ' + path + ' failed: ' + String((err && err.message) || err) });
  } finally {
    if (fd !== null) closeSync(fd);
  }
});
`;
const hashThread = new WorkerCalls<{ path: string }, string>('the hashing thread', HASH_SOURCE, { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2 });

/**
 * The SHA-256 of a file, hex, computed on a thread of its own: a serving process's event loop
 * stays free, and a caller that also checks the file (`checkFile`, which holds this thread for
 * as long as `integrity_check` reads) runs both at once on two cores (`checkedAndHashed`).
 */
export const sha256File = (path: string): Promise<string> => hashThread.call({ path });

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
  let check: FileCheck | Error;
  try {
    check = checkFile(path, opts);
  } catch (err) {
    check = err instanceof Error ? err : new Error(String(err));
  }
  return { check, sha256: await hashing };
}

export const isHealthy = (check: FileCheck | Error): boolean => !(check instanceof Error) && check.integrity.length === 1 && check.integrity[0] === 'ok' && check.foreignKeyViolations === 0;

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
 * else the copy is deleted and the backup fails. Returns the manifest entry.
 */
export async function backupFile(subdomain: string, source: string, target: string, now: () => Date): Promise<BackupEntry> {
  await copyConsistent(source, target);
  const copiedAt = now().toISOString();
  const { check, sha256 } = await checkedAndHashed(target);
  if (check instanceof Error || !isHealthy(check)) {
    rmSync(target, { force: true });
    throw new Error(`the copy of ${subdomain} failed its integrity check: ${check instanceof Error ? check.message : check.integrity.slice(0, 3).join('; ')}`);
  }
  return {
    subdomain,
    file: target.split(/[\\/]/).at(-1) ?? target,
    bytes: statSync(target).size,
    sha256,
    schema_version: check.schema.version,
    integrity: 'ok',
    copied_at: copiedAt,
  };
}

const fsyncPath = (path: string) => {
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
