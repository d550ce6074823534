import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { litestreamBinary, litestreamConfig } from '../ops/litestream.ts';
import type { AppServices } from '../services.ts';
import { checkOrError, damageOf, isHealthy, removeDatabaseFiles, useRollbackJournal } from '../workspaces/backup.ts';
import { isValidSubdomain } from '../workspaces/host.ts';
import { parse, UsageError } from './args.ts';
import { print, type Command } from './context.ts';
import { LITESTREAM_OPTIONS, replicaOptions, type ReplicaValues } from './litestream.ts';
import { claimTransfer, installReplacement, refuseExisting, servingServer, type Transfer } from './replace-file.ts';
import { privateDir } from '../workspaces/registry.ts';

const run = promisify(execFile);

/** One workspace to restore: its name here, and the database path that names it in the configuration. */
interface Entry {
  subdomain: string;
  path: string;
}

/**
 * The `path:` of every database in a configuration `hourbook litestream config` wrote (one per
 * workspace, `DATA_DIR/<subdomain>.sqlite` of the machine it ran on); the workspace is the file's name.
 */
function entriesOf(configFile: string): Entry[] {
  const paths = [...readFileSync(configFile, 'utf8').matchAll(/^\s*- path: (".*")\s*$/gm)].map((m) => JSON.parse(m[1]!) as string);
  const entries = paths.map((path) => ({ subdomain: basename(path, '.sqlite'), path })).filter((e) => isValidSubdomain(e.subdomain));
  const twice = entries.find((e, i) => entries.findIndex((o) => o.subdomain === e.subdomain) !== i);
  if (twice) throw new UsageError(`${configFile} lists two databases named ${twice.subdomain}.sqlite: restore them one at a time from configurations of their own`);
  return entries;
}

/**
 * Which configuration to restore from, and which workspaces: `--config FILE` (or the one
 * `litestream replicate` keeps in DATA_DIR, when it survived) lists them; with `--replica URL` (or
 * LITESTREAM_REPLICA_URL) the workspaces are named on the command line, since a bucket cannot be
 * listed through Litestream, and the configuration is written for them.
 */
function planOf(values: ReplicaValues & { config?: string }, named: string[], services: AppServices): { configFile: string; entries: Entry[]; written: boolean } {
  if (values.config !== undefined && values.replica !== undefined) throw new UsageError('give --config or --replica, not both');
  const kept = join(services.config.dataDir, 'litestream.yml');
  const configFile = typeof values.config === 'string' ? resolve(values.config) : values.replica === undefined && existsSync(kept) ? kept : null;
  if (configFile) {
    if (!existsSync(configFile)) throw new UsageError(`no Litestream configuration at ${configFile}`);
    const listed = entriesOf(configFile);
    for (const name of named) if (!listed.some((e) => e.subdomain === name)) throw new UsageError(`${configFile} has no workspace "${name}"`);
    return { configFile, entries: listed.filter((e) => named.length === 0 || named.includes(e.subdomain)), written: false };
  }
  if (named.length === 0) throw new UsageError('name the workspaces to restore (a replica cannot be listed), or give --config FILE');
  for (const name of named) if (!isValidSubdomain(name)) throw new UsageError(`"${name}" is not a workspace name`);
  const entries = named.map((subdomain) => ({ subdomain, path: services.registry.fileFor(subdomain) }));
  const options = replicaOptions(values, services);
  const dir = privateDir(join(services.config.dataDir, '.transfer'));
  const written = join(dir, `litestream-restore-${process.pid}.yml`);
  writeFileSync(written, litestreamConfig(entries.map((e) => ({ subdomain: e.subdomain, file: e.path })), options));
  return { configFile: written, entries, written: true };
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** Litestream's last words on a failed restore: the `error="…"` of its last log line ("no matching backups found", …). */
function lastWords(text: string): string {
  const line = text.trim().split('\n').at(-1)?.trim() ?? '';
  return /\berror="((?:[^"\\]|\\.)*)"/.exec(line)?.[1] ?? line;
}

/**
 * Restores one workspace from its replica into a scratch file and checks it. Returns the scratch
 * file, or why it cannot be used (the scratch file is then deleted).
 */
async function restoreChecked(scratch: string, configFile: string, entry: Entry, timestamp: string | undefined): Promise<{ file: string } | { error: string }> {
  try {
    return await restoreInto(scratch, configFile, entry, timestamp);
  } finally {
    // Litestream restores into `<out>.tmp` (and `<out>.tmp-<index>-wal` for each WAL segment) and
    // renames it once done: what a failed or finished restore leaves of those names.
    const dir = dirname(scratch);
    for (const name of readdirSync(dir)) if (name.startsWith(`${basename(scratch)}.tmp`)) rmSync(join(dir, name), { force: true });
  }
}

/** `litestream restore` into `scratch`, then the check; the scratch file is deleted unless it passed. */
async function restoreInto(scratch: string, configFile: string, entry: Entry, timestamp: string | undefined): Promise<{ file: string } | { error: string }> {
  const args = ['restore', '-config', configFile, '-o', scratch, ...(timestamp ? ['-timestamp', timestamp] : []), entry.path];
  try {
    await run(litestreamBinary() as string, args, { maxBuffer: 16 * 1024 * 1024 });
  } catch (err) {
    removeDatabaseFiles(scratch);
    const { stderr, stdout, message } = err as { stderr?: string; stdout?: string; message: string };
    return { error: `litestream restore failed: ${lastWords(stderr ?? '') || lastWords(stdout ?? '') || message}` };
  }
  if (!existsSync(scratch)) return { error: 'litestream restore wrote no file (no replica?)' };
  // Its WAL was checkpointed into it and removed: marked so, the check makes no -wal or -shm beside it.
  await useRollbackJournal(scratch);
  const check = checkOrError(scratch);
  if (isHealthy(check)) return { file: scratch };
  removeDatabaseFiles(scratch);
  return { error: `the restored copy fails its integrity check (${damageOf(check)}); nothing was put in place. Try an earlier point with --timestamp` };
}

/**
 * `hourbook litestream restore [<subdomain>...] [--config FILE | --replica URL] [--timestamp T] [--force]`:
 * `litestream restore` for each workspace, into a scratch file that must pass `integrity_check`
 * before it is put in place (as `restore` does: an existing workspace only with `--force`, its file
 * kept in retired/, a serving server handing it over and back). A replica that restores to a
 * damaged file is reported and left out, never installed; the others are restored all the same,
 * and the command fails at the end.
 */
export const restoreFromReplica: Command = async (argv, services, io) => {
  const { values, positionals } = parse(argv, { ...LITESTREAM_OPTIONS, config: { type: 'string' }, timestamp: { type: 'string' }, force: { type: 'boolean' } });
  if (!litestreamBinary()) throw new UsageError('Litestream is not installed: install @flydotio/litestream-linux-x64 (Linux x64) or put litestream on PATH');
  if (values.timestamp !== undefined && !RFC3339.test(values.timestamp)) throw new UsageError('--timestamp: must be a time such as 2026-11-28T10:00:00Z (RFC 3339, as Litestream takes it)');
  const { configFile, entries, written } = planOf(values, positionals, services);
  try {
    if (entries.length === 0) throw new UsageError(`${configFile} lists no workspace`);
    refuseExisting(services, entries.map((e) => e.subdomain), values.force);
    const { restored, failed } = await restoreAll(services, configFile, entries, values.timestamp);
    const lines = restored.map((r) => `restored ${r.subdomain} (${r.bytes} bytes, integrity ok)${r.retired ? `; the previous file is in ${r.retired}` : ''}`);
    if (values.json) print(io, true, { restored, failed, config: written ? null : configFile, timestamp: values.timestamp ?? null }, '');
    else if (lines.length > 0) io.out(lines.join('\n'));
    if (failed.length > 0) throw new UsageError(failed.map((f) => `${f.subdomain}: ${f.error}`).join('\n'));
  } finally {
    if (written) rmSync(configFile, { force: true });
  }
};

/** Each workspace restored, checked and put in place in turn; one that fails does not stop the others. */
async function restoreAll(services: AppServices, configFile: string, entries: Entry[], timestamp: string | undefined) {
  const serving = await servingServer(services);
  const restored: { subdomain: string; bytes: number; retired: string | null }[] = [];
  const failed: { subdomain: string; error: string }[] = [];
  for (const entry of entries) {
    let transfer: Transfer | undefined;
    try {
      transfer = claimTransfer(services, entry.subdomain, 'litestream-restore');
      const result = await restoreChecked(transfer.path, configFile, entry, timestamp);
      if ('error' in result) {
        failed.push({ subdomain: entry.subdomain, error: result.error });
        continue;
      }
      const bytes = statSync(result.file).size;
      const retired = await installReplacement(services, serving, entry.subdomain, result.file, 'litestream-restore');
      restored.push({ subdomain: entry.subdomain, bytes, retired });
    } catch (err) {
      // A workspace a move or another command holds, say: the copy is deleted, the others go on.
      failed.push({ subdomain: entry.subdomain, error: (err as Error).message });
    } finally {
      transfer?.release();
    }
  }
  return { restored, failed };
}
