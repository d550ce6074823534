import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { litestreamBinary } from '../src/ops/litestream.ts';
import { prepareTarget, startWriter, storedNames, type Target, type Writer } from './helpers/load.ts';
import { hourbook, spawnHourbook, type Spawned } from './helpers/processes.ts';
import { freePort } from './helpers/ports.ts';

const LITESTREAM = litestreamBinary();
if (!LITESTREAM) console.log('litestream.test.ts skipped: no Litestream binary (the optional dependency @flydotio/litestream-linux-x64 is Linux x64 only; elsewhere put litestream on PATH)');

const exec = promisify(execFile);
const root = mkdtempSync(join(tmpdir(), 'hourbook-litestream-'));
let supervisor: Spawned | undefined;
afterAll(async () => {
  await supervisor?.kill9();
  rmSync(root, { recursive: true, force: true });
});

/** Litestream ships the WAL every second (--sync-interval 1s) after noticing it changed (its 1 s monitor interval). */
const SYNC_INTERVAL_MS = 1000;
const REPLICATION_WINDOW_MS = 2 * SYNC_INTERVAL_MS;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!LITESTREAM)('running under Litestream', () => {
  it('hourbook litestream config writes one entry per workspace', async () => {
    const dataDir = join(root, 'config');
    for (const s of ['b-ws', 'a-ws']) await hourbook({ DATA_DIR: dataDir }, 'workspace', 'create', s, '--owner-email', `o@${s}.test`);
    const res = await hourbook({ DATA_DIR: dataDir }, 'litestream', 'config', '--replica', 's3://bucket/hb', '--endpoint', 'https://s3.example.com', '--force-path-style');
    expect(res.code).toBe(0);
    expect(res.stdout).toContain(`- path: "${join(dataDir, 'a-ws.sqlite')}"\n    replicas:\n      - url: "s3://bucket/hb/a-ws"\n        sync-interval: 1s\n        endpoint: "https://s3.example.com"\n        force-path-style: true`);
    expect(res.stdout.indexOf('a-ws.sqlite')).toBeLessThan(res.stdout.indexOf('b-ws.sqlite'));
    expect((await hourbook({ DATA_DIR: dataDir }, 'litestream', 'config')).stderr).toMatch(/--replica is required/);
  });

  it('replicates every workspace, one added while running too; after kill -9 and the data directory deleted, litestream restore brings back every write acknowledged more than the replication window before the crash', async () => {
    const dataDir = join(root, 'data');
    const configFile = join(root, 'litestream.yml');
    const replica = `file://${join(root, 'replica')}`;
    const keys: Record<string, string> = {};
    const create = async (subdomain: string) => {
      const res = await hourbook({ DATA_DIR: dataDir }, 'workspace', 'create', subdomain, '--owner-email', `owner@${subdomain}.test`, '--json');
      expect(res.code).toBe(0);
      keys[subdomain] = JSON.parse(res.stdout).api_key;
    };
    await create('acme');
    await create('globex');
    const port = await freePort();
    supervisor = await spawnHourbook(
      { DATA_DIR: dataDir, PORT: String(port) },
      ['litestream', 'replicate', '--replica', replica, '--sync-interval', `${SYNC_INTERVAL_MS / 1000}s`, '--config', configFile],
    );
    const target = (subdomain: string): Target => ({ url: `http://127.0.0.1:${port}`, host: `${subdomain}.localhost`, key: keys[subdomain] as string, ownerEmail: `owner@${subdomain}.test` });
    const writers: Record<string, Writer> = {};
    const write = async (subdomain: string) => {
      writers[subdomain] = startWriter(target(subdomain), await prepareTarget(target(subdomain)), { prefix: subdomain, toleratesConnectionErrors: true, concurrency: 1 });
    };
    await write('acme');
    await write('globex');
    await sleep(1500);

    // A workspace created while it all runs joins the replication; the others go on being replicated.
    await create('initech');
    for (let i = 0; i < 400 && !/initialized db.*initech\.sqlite/.test(supervisor.output()); i++) await sleep(25);
    expect(supervisor.output()).toMatch(/initialized db.*initech\.sqlite/);
    expect(readFileSync(configFile, 'utf8')).toContain('initech');
    await write('initech');
    await sleep(3000);

    const crashAt = Date.now();
    await supervisor.kill9();
    for (const writer of Object.values(writers)) await writer.stop();
    rmSync(dataDir, { recursive: true, force: true });

    mkdirSync(dataDir, { recursive: true });
    for (const [subdomain, writer] of Object.entries(writers)) {
      const file = join(dataDir, `${subdomain}.sqlite`);
      await exec(LITESTREAM as string, ['restore', '-config', configFile, '-o', file, file]);
      const db = new BetterSqlite3(file, { readonly: true });
      expect(db.pragma('integrity_check', { simple: true }), subdomain).toBe('ok');
      db.close();
      expect(writer.failures, subdomain).toEqual([]);
      const stored = storedNames(file);
      const due = writer.acked.filter((a) => a.at < crashAt - REPLICATION_WINDOW_MS);
      expect(due.length, subdomain).toBeGreaterThan(3);
      expect(due.filter((a) => !stored.has(a.name)), subdomain).toEqual([]);
    }
    // The restored files are workspaces hourbook serves again.
    const listed = await hourbook({ DATA_DIR: dataDir }, 'workspace', 'list', '--json');
    expect(JSON.parse(listed.stdout).workspaces.map((w: { subdomain: string }) => w.subdomain)).toEqual(['acme', 'globex', 'initech']);
  }, 120_000);
});
