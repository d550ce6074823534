import { chmodSync, closeSync, copyFileSync, existsSync, fchmodSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { packageVersion } from '../package.ts';
import type { AppServices } from '../services.ts';
import { backupFile, checkedAndHashed, checkOrError, damageOf, fsyncPath, isHealthy, pageSizeOf, type BackupEntry, type BackupManifest } from '../workspaces/backup.ts';
import { PAGE_SIZE } from '../workspaces/handle.ts';
import { parse, required, UsageError } from './args.ts';
import { print, table, type Command } from './context.ts';
import { claimTransfer, installReplacement, refuseExisting, servingServer } from './replace-file.ts';
import { stampOf } from '../workspaces/registry.ts';
import { isRunning } from '../workspaces/processes.ts';
import { describeWorkspace } from '../domain/workspace/describe.ts';

const MANIFEST = 'manifest.json';
/** A backup directory's name: the UTC time it was begun (`stampOf`). */
const STAMP = /^\d{8}T\d{6}Z$/;
/** In a backup directory while its backup runs: names the process, so that no `prune` deletes it meanwhile. */
const IN_PROGRESS = 'in-progress.json';
/** The only files a backup writes into its directory: copies (and what SQLite may leave beside one), the manifest, its temporary file, the marker. */
const OUR_FILES = /^(?:.+\.sqlite(?:-journal|-wal|-shm)?|manifest\.json(?:\.tmp)?|in-progress\.json)$/;

/**
 * The workspaces a command names (each once), or every one on disk; an unknown name is a usage
 * error, and so is a data directory without any: a backup timer whose DATA_DIR has a typo or names
 * a volume not mounted must fail loudly, not write empty backups (and prune the good ones with `--keep`).
 */
export function selected(services: AppServices, names: string[]): string[] {
  const all = services.registry.list();
  for (const name of names) if (!all.includes(name)) throw new UsageError(`no workspace named "${name}" under ${services.config.dataDir}`);
  if (all.length === 0) throw new UsageError(`no workspaces under ${services.config.dataDir}: is DATA_DIR right?`);
  return names.length > 0 ? [...new Set(names)] : all;
}

const oneLine = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/**
 * Makes `root/<stamp>/`, its owner's only whatever the umask (the copies hold every record,
 * password and key hash; the data directory itself is 0700), with the marker saying a backup of
 * this process is being written there.
 */
function makeBackupDir(root: string, stamp: string, since: Date): string {
  mkdirSync(root, { recursive: true, mode: 0o700 });
  const dir = join(root, stamp);
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new UsageError(`${dir} already exists; wait a second and run the backup again`);
    throw err;
  }
  chmodSync(dir, 0o700);
  writeFileSync(join(dir, IN_PROGRESS), JSON.stringify({ pid: process.pid, host: hostname(), since: since.toISOString() }), { mode: 0o600 });
  return dir;
}

/**
 * Whether a backup is still being written into `dir`: its marker names a process that runs, or one
 * of another machine (a backup root shared over the network), or cannot be read (being written).
 */
function beingWritten(dir: string): boolean {
  const marker = join(dir, IN_PROGRESS);
  if (!existsSync(marker)) return false;
  try {
    const { pid, host } = JSON.parse(readFileSync(marker, 'utf8')) as { pid: number; host: string };
    return host !== hostname() || isRunning(pid);
  } catch {
    return true;
  }
}

/** Whether `dir` holds nothing but what a backup writes: anything else there (or a directory we may not read) is not ours to delete. */
function holdsOnlyOurs(dir: string): boolean {
  try {
    return readdirSync(dir, { withFileTypes: true }).every((e) => e.isFile() && OUR_FILES.test(e.name));
  } catch {
    return false;
  }
}

/** The manifest of a backup directory, or, when it has none this version reads, why (one line). */
function manifestOf(dir: string): BackupManifest | string {
  const path = join(dir, MANIFEST);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return `${dir} is not a backup: it has no ${MANIFEST}`;
    // Not "no manifest": a backup made by another user (its files are its owner's only) is one.
    return `${path} cannot be read: ${oneLine(err)}`;
  }
  let manifest: Partial<BackupManifest> | null;
  try {
    manifest = JSON.parse(text) as Partial<BackupManifest> | null;
  } catch (err) {
    // A backup cut short while its manifest was written (by an older version), or damaged since.
    return `${path} is not valid JSON (${oneLine(err)}): the backup is incomplete or damaged`;
  }
  if (typeof manifest !== 'object' || manifest === null || manifest.format !== 1 || !Array.isArray(manifest.workspaces)) return `${path} is not a manifest this version reads`;
  return manifest as BackupManifest;
}

/**
 * Writes the manifest, the last file of a backup, so that it is there whole or not at all, even
 * after a crash or a power cut: a temporary file flushed to disk, renamed over, then the backup
 * directory and the root flushed (the rename and the directory's own entry). Only then may `prune`
 * delete older backups.
 */
function writeManifest(root: string, dir: string, manifest: BackupManifest): void {
  const path = join(dir, MANIFEST);
  const fd = openSync(`${path}.tmp`, 'w', 0o600);
  try {
    fchmodSync(fd, 0o600); // open's mode is cut by the umask; this is exact
    writeFileSync(fd, `${JSON.stringify(manifest, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(`${path}.tmp`, path);
  rmSync(join(dir, IN_PROGRESS), { force: true });
  fsyncPath(dir);
  fsyncPath(root);
}

/**
 * What `--keep N` lets go of under `root`: the oldest complete backups (a manifest that reads)
 * beyond the newest N, and the incomplete ones (killed half-way, or a manifest that does not read)
 * older than the newest complete one. Only directories that are ours are deleted: named by a time,
 * holding nothing but what a backup writes, and not being written by a backup still running.
 */
function prune(root: string, keep: number): { old: string[]; incomplete: string[] } {
  const dirs = readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory() && STAMP.test(e.name))
    .map((e) => e.name)
    .sort();
  // A broken manifest is no backup: counted, it would push a good one out.
  const complete = dirs.filter((name) => typeof manifestOf(join(root, name)) !== 'string');
  const newest = complete.at(-1) ?? '';
  const old = complete.slice(0, Math.max(0, complete.length - keep)).filter((name) => holdsOnlyOurs(join(root, name)));
  const incomplete = dirs.filter((name) => name < newest && !complete.includes(name) && holdsOnlyOurs(join(root, name)) && !beingWritten(join(root, name)));
  for (const name of [...old, ...incomplete]) rmSync(join(root, name), { recursive: true, force: true });
  return { old, incomplete };
}

/** Copies each workspace into `dir`; one that fails (a damaged file) is reported and the others go on. */
async function copyEach(services: AppServices, names: string[], dir: string) {
  const entries: BackupEntry[] = [];
  const failed: { subdomain: string; error: string }[] = [];
  for (const subdomain of names) {
    try {
      entries.push(await backupFile(subdomain, services.registry.fileFor(subdomain), join(dir, `${subdomain}.sqlite`), services.clock));
    } catch (err) {
      // One bad file must not cost every other workspace its backup (the nightly timer's only one).
      failed.push({ subdomain, error: oneLine(err) });
    }
  }
  return { entries, failed };
}

/**
 * `hourbook backup [<subdomain>...] --to DIR [--keep N]`: a consistent copy of each workspace,
 * taken while the server runs, into DIR/<UTC time>/, each checked with integrity_check, with a
 * manifest of sizes, SHA-256 and schema versions. `--keep N` then deletes all but the N newest.
 * A workspace that cannot be copied is named on stderr and the command exits 1, with every other
 * one backed up.
 */
export const backup: Command = async (argv, services, io) => {
  const { values, positionals } = parse(argv, { to: { type: 'string' }, keep: { type: 'string' } });
  const root = resolve(required('--to', values.to));
  const keep = values.keep === undefined ? undefined : Number(values.keep);
  if (keep !== undefined && !(Number.isInteger(keep) && keep >= 1)) throw new UsageError('--keep: must be a whole number of backups, at least 1');
  const names = selected(services, positionals);
  const createdAt = services.clock();
  const dir = makeBackupDir(root, stampOf(createdAt), createdAt);
  const { entries, failed } = await copyEach(services, names, dir);
  const failures = failed.map((f) => `\n  ${f.subdomain}: ${f.error}`).join('');
  if (entries.length === 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new UsageError(`nothing was backed up, no workspace could be copied:${failures}`);
  }
  const manifest: BackupManifest = {
    format: 1,
    hourbook_version: packageVersion(),
    created_at: createdAt.toISOString(),
    source_data_dir: services.config.dataDir,
    workspaces: entries,
  };
  // Written last: a directory with a manifest is a complete backup.
  writeManifest(root, dir, manifest);
  // Not after a failure: the older backups hold the last good copy of the workspace that failed.
  const pruned = keep === undefined || failed.length > 0 ? { old: [], incomplete: [] } : prune(root, keep);
  const bytes = entries.reduce((sum, e) => sum + e.bytes, 0);
  print(
    io,
    values.json,
    { dir, manifest, pruned: pruned.old, incomplete_removed: pruned.incomplete, failed },
    `backed up ${plural(entries.length, 'workspace')} (${(bytes / 1048576).toFixed(1)} MiB, integrity ok) to ${dir}` +
      (pruned.old.length > 0 ? `\nremoved ${plural(pruned.old.length, 'older backup')}: ${pruned.old.join(', ')}` : '') +
      (pruned.incomplete.length > 0 ? `\nremoved ${plural(pruned.incomplete.length, 'incomplete backup')}: ${pruned.incomplete.join(', ')}` : ''),
  );
  if (failed.length > 0) throw new UsageError(`${plural(failed.length, 'workspace')} not backed up${keep === undefined ? '' : ' (no older backup removed)'}:${failures}`);
};

function readManifest(dir: string): BackupManifest {
  const manifest = manifestOf(dir);
  if (typeof manifest === 'string') throw new UsageError(manifest);
  return manifest;
}

/** Proves one backed-up file against its manifest entry: same bytes, same SHA-256, integrity ok. */
async function verifyEntry(dir: string, entry: BackupEntry): Promise<string> {
  const file = join(dir, entry.file);
  if (!existsSync(file)) throw new UsageError(`${file} is missing from the backup`);
  const changed = () => new UsageError(`${file} does not match its manifest (size or SHA-256 differ): it was changed or damaged`);
  if (statSync(file).size !== entry.bytes) throw changed();
  // A backup's files are its owner's only: another user gets a reason, not a stack.
  const { check, sha256 } = await checkedAndHashed(file).catch((err: unknown) => {
    throw new UsageError(`${file} cannot be read: ${oneLine(err)}`);
  });
  if (sha256 !== entry.sha256) throw changed();
  if (!isHealthy(check)) throw new UsageError(`${file} fails its integrity check`);
  return file;
}

/**
 * `hourbook restore <backup-dir> [<subdomain>...] [--force]`: puts workspaces back from a backup,
 * after proving each copy against the manifest. An existing workspace is replaced only with
 * `--force`, and its current file is kept in DATA_DIR/retired/. When a server serves the data
 * directory, the workspace is handed over first (its requests get 503 and retry) and resumed after,
 * so no request ever sees a half-replaced file.
 */
export const restore: Command = async (argv, services, io) => {
  const { values, positionals } = parse(argv, { force: { type: 'boolean' } });
  const dir = resolve(required('<backup-dir>', positionals[0]));
  const manifest = readManifest(dir);
  const wanted = positionals.slice(1);
  for (const name of wanted) if (!manifest.workspaces.some((e) => e.subdomain === name)) throw new UsageError(`the backup in ${dir} has no workspace "${name}"`);
  const entries = manifest.workspaces.filter((e) => wanted.length === 0 || wanted.includes(e.subdomain));
  refuseExisting(services, entries.map((e) => e.subdomain), values.force);
  const files = new Map<string, string>();
  for (const entry of entries) files.set(entry.subdomain, await verifyEntry(dir, entry));

  const serving = await servingServer(services);
  const restored: string[] = [];
  for (const entry of entries) {
    const transfer = claimTransfer(services, entry.subdomain, 'restore');
    try {
      copyFileSync(files.get(entry.subdomain) as string, transfer.path);
      await installReplacement(services, serving, entry.subdomain, transfer.path, 'restore');
    } finally {
      transfer.release();
    }
    restored.push(entry.subdomain);
  }
  print(
    io,
    values.json,
    { restored, from: dir, backup_created_at: manifest.created_at },
    `restored ${restored.join(', ') || 'nothing'} from the backup of ${manifest.created_at}${serving ? ` (served by pid ${serving.pid}: handed over and resumed)` : ''}`,
  );
};

/**
 * `hourbook check [<subdomain>...] [--quick]`: integrity_check (or quick_check), foreign keys,
 * schema version and page size of every workspace file; exit status 1 when any file is damaged.
 */
export const check: Command = (argv, services, io) => {
  const { values, positionals } = parse(argv, { quick: { type: 'boolean' } });
  const checked = selected(services, positionals).map((subdomain) => {
    const file = services.registry.fileFor(subdomain);
    // An Error: a file too damaged to open or read at all ("database disk image is malformed").
    const c = checkOrError(file, { quick: values.quick });
    // A sound file can still be no workspace: one without its row cannot be served.
    const described = isHealthy(c) ? describeWorkspace(file, subdomain) : null;
    const problem = described && 'problem' in described ? described.problem : null;
    return { subdomain, pageSize: pageSizeOf(file), check: c, problem };
  });
  const results = checked.map(({ subdomain, pageSize, check: c, problem }) => ({
    subdomain,
    ok: isHealthy(c) && problem === null,
    problem,
    integrity: c instanceof Error ? [c.message] : c.integrity.slice(0, 20),
    foreign_key_violations: c instanceof Error ? 0 : c.foreignKeyViolations,
    schema_version: c instanceof Error ? null : c.schema.version,
    pending_migrations: c instanceof Error ? [] : c.schema.pending.map((m) => m.tag),
    newer_than_this_version: c instanceof Error ? false : c.schema.newer,
    page_size: pageSize,
  }));
  const rows = results.map((r, i) => [
    r.subdomain,
    r.ok ? 'ok' : `DAMAGED: ${r.problem ?? damageOf(checked[i]!.check)}`,
    `${r.schema_version ?? 'none'}${r.pending_migrations.length ? ` (${r.pending_migrations.length} pending)` : ''}${r.newer_than_this_version ? ' (newer than this hourbook)' : ''}`,
    `${r.page_size}${r.page_size === PAGE_SIZE ? '' : ` (hourbook vacuum makes it ${PAGE_SIZE})`}`,
  ]);
  print(io, values.json, { workspaces: results }, table([['workspace', 'file', 'schema', 'page size'], ...rows]));
  if (results.some((r) => !r.ok)) throw new UsageError(`${results.filter((r) => !r.ok).length} workspace file(s) failed the check`);
};
