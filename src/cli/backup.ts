import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { packageVersion } from '../package.ts';
import type { AppServices } from '../services.ts';
import { backupFile, checkedAndHashed, checkOrError, damageOf, isHealthy, pageSizeOf, type BackupEntry, type BackupManifest } from '../workspaces/backup.ts';
import { PAGE_SIZE } from '../workspaces/handle.ts';
import { parse, required, UsageError } from './args.ts';
import { print, table, type Command } from './context.ts';
import { claimTransfer, installReplacement, refuseExisting, servingServer, stampOf } from './replace-file.ts';

const MANIFEST = 'manifest.json';

/**
 * The workspaces a command names, or every one on disk; an unknown name is a usage error, and so
 * is a data directory without any: a backup timer whose DATA_DIR has a typo or names a volume not
 * mounted must fail loudly, not write empty backups (and prune the good ones with `--keep`).
 */
export function selected(services: AppServices, names: string[]): string[] {
  const all = services.registry.list();
  for (const name of names) if (!all.includes(name)) throw new UsageError(`no workspace named "${name}" under ${services.config.dataDir}`);
  if (all.length === 0) throw new UsageError(`no workspaces under ${services.config.dataDir}: is DATA_DIR right?`);
  return names.length > 0 ? names : all;
}

/** Deletes the oldest backups under `root` (directories holding a manifest) beyond the newest `keep`. */
function prune(root: string, keep: number): string[] {
  const backups = readdirSync(root)
    .filter((name) => /^\d{8}T\d{6}Z$/.test(name) && existsSync(join(root, name, MANIFEST)))
    .sort();
  const old = backups.slice(0, Math.max(0, backups.length - keep));
  for (const name of old) rmSync(join(root, name), { recursive: true, force: true });
  return old;
}

/**
 * `hourbook backup [<subdomain>...] --to DIR [--keep N]`: a consistent copy of each workspace,
 * taken while the server runs, into DIR/<UTC time>/, each checked with integrity_check, with a
 * manifest of sizes, SHA-256 and schema versions. `--keep N` then deletes all but the N newest.
 */
export const backup: Command = async (argv, services, io) => {
  const { values, positionals } = parse(argv, { to: { type: 'string' }, keep: { type: 'string' } });
  const root = resolve(required('--to', values.to));
  const keep = values.keep === undefined ? undefined : Number(values.keep);
  if (keep !== undefined && !(Number.isInteger(keep) && keep >= 1)) throw new UsageError('--keep: must be a whole number of backups, at least 1');
  const names = selected(services, positionals);
  const createdAt = services.clock();
  const dir = join(root, stampOf(createdAt));
  if (existsSync(dir)) throw new UsageError(`${dir} already exists; wait a second and run the backup again`);
  mkdirSync(dir, { recursive: true });
  const entries: BackupEntry[] = [];
  try {
    for (const subdomain of names) {
      entries.push(await backupFile(subdomain, services.registry.fileFor(subdomain), join(dir, `${subdomain}.sqlite`), services.clock));
    }
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const manifest: BackupManifest = {
    format: 1,
    hourbook_version: packageVersion(),
    created_at: createdAt.toISOString(),
    source_data_dir: services.config.dataDir,
    workspaces: entries,
  };
  // Written last: a directory with a manifest is a complete backup.
  writeFileSync(join(dir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  const pruned = keep === undefined ? [] : prune(root, keep);
  const bytes = entries.reduce((sum, e) => sum + e.bytes, 0);
  print(
    io,
    values.json,
    { dir, manifest, pruned },
    `backed up ${entries.length} workspace${entries.length === 1 ? '' : 's'} (${(bytes / 1048576).toFixed(1)} MiB, integrity ok) to ${dir}` +
      (pruned.length > 0 ? `\nremoved ${pruned.length} older backup${pruned.length === 1 ? '' : 's'}: ${pruned.join(', ')}` : ''),
  );
};

function readManifest(dir: string): BackupManifest {
  const path = join(dir, MANIFEST);
  if (!existsSync(path)) throw new UsageError(`${dir} is not a backup: it has no ${MANIFEST}`);
  const manifest = JSON.parse(readFileSync(path, 'utf8')) as BackupManifest;
  if (manifest.format !== 1 || !Array.isArray(manifest.workspaces)) throw new UsageError(`${path} is not a manifest this version reads`);
  return manifest;
}

/** Proves one backed-up file against its manifest entry: same bytes, same SHA-256, integrity ok. */
async function verifyEntry(dir: string, entry: BackupEntry): Promise<string> {
  const file = join(dir, entry.file);
  if (!existsSync(file)) throw new UsageError(`${file} is missing from the backup`);
  const changed = () => new UsageError(`${file} does not match its manifest (size or SHA-256 differ): it was changed or damaged`);
  if (statSync(file).size !== entry.bytes) throw changed();
  const { check, sha256 } = await checkedAndHashed(file);
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
    return { subdomain, pageSize: pageSizeOf(file), check: checkOrError(file, { quick: values.quick }) };
  });
  const results = checked.map(({ subdomain, pageSize, check: c }) => ({
    subdomain,
    ok: isHealthy(c),
    integrity: c instanceof Error ? [c.message] : c.integrity.slice(0, 20),
    foreign_key_violations: c instanceof Error ? 0 : c.foreignKeyViolations,
    schema_version: c instanceof Error ? null : c.schema.version,
    pending_migrations: c instanceof Error ? [] : c.schema.pending.map((m) => m.tag),
    newer_than_this_version: c instanceof Error ? false : c.schema.newer,
    page_size: pageSize,
  }));
  const rows = results.map((r, i) => [
    r.subdomain,
    r.ok ? 'ok' : `DAMAGED: ${damageOf(checked[i]!.check)}`,
    `${r.schema_version ?? 'none'}${r.pending_migrations.length ? ` (${r.pending_migrations.length} pending)` : ''}${r.newer_than_this_version ? ' (newer than this hourbook)' : ''}`,
    `${r.page_size}${r.page_size === PAGE_SIZE ? '' : ` (hourbook vacuum makes it ${PAGE_SIZE})`}`,
  ]);
  print(io, values.json, { workspaces: results }, table([['workspace', 'file', 'schema', 'page size'], ...rows]));
  if (results.some((r) => !r.ok)) throw new UsageError(`${results.filter((r) => !r.ok).length} workspace file(s) failed the check`);
};
