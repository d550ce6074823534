import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { litestreamBinary, litestreamConfig, type ReplicaOptions } from '../ops/litestream.ts';
import { PACKAGE_ROOT } from '../package.ts';
import type { AppServices } from '../services.ts';
import { parse, UsageError } from './args.ts';
import { print, type Command } from './context.ts';

/** Where replicas go: the options of `litestream config`, `replicate` and `restore`. */
export const LITESTREAM_OPTIONS = {
  replica: { type: 'string' },
  'sync-interval': { type: 'string' },
  endpoint: { type: 'string' },
  region: { type: 'string' },
  'force-path-style': { type: 'boolean' },
} as const;

export type ReplicaValues = { replica?: string; 'sync-interval'?: string; endpoint?: string; region?: string; 'force-path-style'?: boolean };

export function replicaOptions(values: ReplicaValues, services: AppServices): ReplicaOptions {
  const replicaUrl = values.replica ?? services.config.litestreamReplica;
  if (!replicaUrl) throw new UsageError('--replica is required (or LITESTREAM_REPLICA_URL), e.g. s3://bucket/hourbook or file:///var/backups/hourbook-replica');
  if (!/^(s3|gcs|abs|sftp|file):\/\/\S+$/.test(replicaUrl)) throw new UsageError('--replica: must be an s3://, gcs://, abs://, sftp:// or file:// URL');
  const syncInterval = values['sync-interval'] ?? '1s';
  if (!/^\d+(ms|s|m)$/.test(syncInterval)) throw new UsageError('--sync-interval: must be a duration such as 1s or 500ms');
  return { replicaUrl, syncInterval, s3: { endpoint: values.endpoint, region: values.region, forcePathStyle: values['force-path-style'] } };
}

const workspaceFiles = (services: AppServices) => services.registry.list().map((subdomain) => ({ subdomain, file: services.registry.fileFor(subdomain) }));

/** Writes the file only when its content changes (atomically); true when it did. */
function writeIfChanged(path: string, content: string): boolean {
  if (existsSync(path) && readFileSync(path, 'utf8') === content) return false;
  writeFileSync(`${path}.tmp`, content);
  renameSync(`${path}.tmp`, path);
  return true;
}

/** `hourbook litestream config [--replica URL] [--out FILE]`: Litestream's YAML for every workspace, on stdout or into FILE. */
export const config: Command = (argv, services, io) => {
  const { values } = parse(argv, { ...LITESTREAM_OPTIONS, out: { type: 'string' } });
  const yaml = litestreamConfig(workspaceFiles(services), replicaOptions(values, services));
  if (!values.out) {
    io.out(yaml.trimEnd());
    return;
  }
  const changed = writeIfChanged(resolve(values.out), yaml);
  const count = services.registry.list().length;
  print(io, values.json, { file: resolve(values.out), workspaces: count, changed }, `${changed ? 'wrote' : 'unchanged:'} ${resolve(values.out)} (${count} workspaces)`);
};

/** How often the supervisor looks for added or removed workspace files. */
const WATCH_MS = 2000;

const exited = (child: ChildProcess) =>
  new Promise<number>((done) => {
    if (child.exitCode !== null || child.signalCode !== null) done(child.exitCode ?? 1);
    else child.once('exit', (code) => done(code ?? 1));
  });

/**
 * `hourbook litestream replicate`: runs `hourbook serve` and Litestream side by side, with the
 * configuration written from the workspace list. When a workspace is created or removed, the list
 * is rewritten and only Litestream restarts: the server keeps serving, and Litestream continues
 * every other database from where it stopped. SIGTERM stops the server first (requests in flight
 * finish), then Litestream, which ships what is left. Exits with the server's status.
 */
export const replicate: Command = async (argv, services, io) => {
  const { values } = parse(argv, { ...LITESTREAM_OPTIONS, config: { type: 'string' } });
  const options = replicaOptions(values, services);
  const binary = litestreamBinary();
  if (!binary) throw new UsageError('Litestream is not installed: install @flydotio/litestream-linux-x64 (Linux x64) or put litestream on PATH');
  const configFile = resolve(values.config ?? join(services.config.dataDir, 'litestream.yml'));
  const logger = services.logger;

  let known = '';
  let litestream: ChildProcess | null = null;
  let stopping = false;
  const startLitestream = () => {
    if (stopping || known === '') return;
    const child = spawn(binary, ['replicate', '-config', configFile], { stdio: 'inherit' });
    litestream = child;
    child.once('exit', (code, signal) => {
      if (litestream !== child || stopping) return;
      litestream = null;
      logger.error({ code, signal }, 'litestream exited; restarting it in 1 s');
      setTimeout(startLitestream, 1000).unref();
    });
  };
  const restartLitestream = async () => {
    const old = litestream;
    litestream = null;
    if (old) {
      old.kill('SIGTERM');
      await exited(old);
    }
    startLitestream();
  };
  const refresh = async () => {
    const files = workspaceFiles(services);
    const names = files.map((f) => f.subdomain).join(',');
    if (names === known) return;
    writeIfChanged(configFile, litestreamConfig(files, options));
    const first = known === '' && litestream === null;
    known = names;
    if (first) startLitestream();
    else {
      logger.info({ workspaces: files.length }, 'workspace list changed: restarting litestream with the new configuration');
      await restartLitestream();
    }
  };
  await refresh();

  const server = spawn(process.execPath, [join(PACKAGE_ROOT, 'bin', 'hourbook.js'), 'serve'], { stdio: 'inherit' });
  io.out(`litestream replicating ${known.split(',').filter(Boolean).length} workspaces to ${options.replicaUrl} (configuration: ${configFile})`);
  const watch = setInterval(() => void refresh().catch((err: unknown) => logger.error({ err }, 'could not refresh the litestream configuration')), WATCH_MS);

  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    clearInterval(watch);
    server.kill(signal);
    const status = await exited(server);
    const ls = litestream as ChildProcess | null;
    if (ls) {
      ls.kill('SIGTERM');
      await exited(ls);
    }
    process.exit(status);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
  server.once('exit', () => void stop('SIGTERM'));
};
