import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';

/**
 * Continuous replication with Litestream (https://litestream.io), 0.3 as fly.io's npm packages
 * ship it (`@flydotio/litestream-linux-x64`, an optional dependency; elsewhere, litestream on PATH). Litestream 0.3 replicates the databases its configuration lists, one entry per
 * file (watching a directory came only in 0.5), so hourbook writes that list from its workspaces
 * and rewrites it when a workspace is added; `hourbook litestream replicate` then restarts only
 * Litestream, which picks up every other database where it stopped.
 */

export interface ReplicaOptions {
  /** Where replicas go, one folder per workspace below it: `s3://bucket/prefix`, `file:///var/backups/hourbook-replica`, ... */
  replicaUrl: string;
  /** How often Litestream ships the WAL (Litestream's `sync-interval`): the most a crash can lose. */
  syncInterval: string;
  /** S3-compatible storage that is not AWS (MinIO, R2, B2, ...): its endpoint, region, path-style addressing. */
  s3?: { endpoint?: string; region?: string; forcePathStyle?: boolean };
}

const yamlString = (value: string) => JSON.stringify(value);

/**
 * Litestream's configuration for these workspace files. Credentials are never written: Litestream
 * reads LITESTREAM_ACCESS_KEY_ID and LITESTREAM_SECRET_ACCESS_KEY from its environment.
 */
export function litestreamConfig(files: { subdomain: string; file: string }[], opts: ReplicaOptions): string {
  const base = opts.replicaUrl.replace(/\/+$/, '');
  const s3 = base.startsWith('s3://') ? opts.s3 : undefined;
  const lines = [
    '# Written by `hourbook litestream config`: one entry per workspace file. Rewritten when a',
    '# workspace is added (hourbook litestream replicate does it itself; see docs/operations.md).',
  ];
  if (files.length === 0) return `${[...lines, 'dbs: []'].join('\n')}\n`;
  lines.push('dbs:');
  for (const { subdomain, file } of files) {
    lines.push(`  - path: ${yamlString(file)}`, '    replicas:', `      - url: ${yamlString(`${base}/${subdomain}`)}`, `        sync-interval: ${opts.syncInterval}`);
    if (s3?.endpoint) lines.push(`        endpoint: ${yamlString(s3.endpoint)}`);
    if (s3?.region) lines.push(`        region: ${yamlString(s3.region)}`);
    if (s3?.forcePathStyle) lines.push('        force-path-style: true');
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The Litestream binary: from the platform package (`@flydotio/litestream-<platform>-<arch>`;
 * only linux-x64 is published), else one on PATH.
 */
export function litestreamBinary(): string | null {
  try {
    const pkg = createRequire(import.meta.url).resolve(`@flydotio/litestream-${process.platform}-${process.arch}/package.json`);
    const binary = join(dirname(pkg), 'litestream');
    if (existsSync(binary)) return binary;
  } catch {
    // not installed for this platform
  }
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, 'litestream'))) return join(dir, 'litestream');
  }
  return null;
}
