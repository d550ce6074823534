import { spawn } from 'node:child_process';
import { closeSync, cpSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { litestreamBinary } from '../src/ops/litestream.ts';
import { prepareTarget, startWriter, storedNames, type Target, type Writer } from './helpers/load.ts';
import { hourbook, spawnHourbook, type Spawned } from './helpers/processes.ts';
import { freePort } from './helpers/ports.ts';

const LITESTREAM = litestreamBinary();
if (!LITESTREAM) console.log('litestream.test.ts skipped: no Litestream binary (the optional dependency @flydotio/litestream-linux-x64 is Linux x64 only; elsewhere put litestream on PATH)');

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
    // hourbook's restore runs `litestream restore` for each workspace of the configuration and
    // puts a copy in place only once it passes integrity_check. On a failure, Litestream's log
    // (generations, checkpoints, restarts) is in the message.
    const restored = await hourbook({ DATA_DIR: dataDir }, 'litestream', 'restore', '--config', configFile);
    expect({ code: restored.code, stderr: restored.stderr }, `litestream and server log:\n${supervisor.output().slice(-6000)}`).toEqual({ code: 0, stderr: '' });
    expect(restored.stdout).toMatch(/^restored acme \(\d+ bytes, integrity ok\)\nrestored globex \(\d+ bytes, integrity ok\)\nrestored initech \(\d+ bytes, integrity ok\)\n$/);
    for (const [subdomain, writer] of Object.entries(writers)) {
      const file = join(dataDir, `${subdomain}.sqlite`);
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

  it('litestream restore puts back only copies that pass integrity_check: a replica of a damaged file is reported and left out, the others are restored', async () => {
    const dataDir = join(root, 'damaged');
    for (const s of ['fine', 'broken']) expect((await hourbook({ DATA_DIR: dataDir }, 'workspace', 'create', s, '--owner-email', `o@${s}.test`)).code).toBe(0);
    // A page of one of broken's indexes damaged on disk: Litestream replicates the file as it is.
    const brokenFile = join(dataDir, 'broken.sqlite');
    const db = new BetterSqlite3(brokenFile);
    const { rootpage } = db.prepare("SELECT rootpage FROM sqlite_master WHERE name = 'team_members_email_idx'").get() as { rootpage: number };
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    db.close();
    const fd = openSync(brokenFile, 'r+');
    writeSync(fd, Buffer.from([0]), 0, 1, (rootpage - 1) * pageSize);
    closeSync(fd);

    const configFile = join(dataDir, 'litestream.yml');
    expect((await hourbook({ DATA_DIR: dataDir }, 'litestream', 'config', '--replica', `file://${join(root, 'damaged-replica')}`, '--out', configFile)).code).toBe(0);
    const litestream = spawn(LITESTREAM as string, ['replicate', '-config', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    for (const stream of [litestream.stdout, litestream.stderr]) stream.on('data', (d: Buffer) => (log += d.toString()));
    for (let i = 0; i < 200 && (log.match(/wal segment written/g) ?? []).length < 2; i++) await sleep(50);
    litestream.kill('SIGTERM');
    await new Promise((r) => litestream.once('exit', r));

    const restoreDir = join(root, 'damaged-restored');
    const res = await hourbook({ DATA_DIR: restoreDir }, 'litestream', 'restore', '--config', configFile, '--json');
    expect(res.code, log).toBe(1);
    expect(res.stderr).toMatch(/^hourbook: broken: the restored copy fails its integrity check \(.+\); nothing was put in place\. Try an earlier point with --timestamp\n$/);
    expect(JSON.parse(res.stdout)).toMatchObject({ restored: [{ subdomain: 'fine', retired: null }], failed: [{ subdomain: 'broken' }] });
    expect(readdirSync(restoreDir).sort()).toEqual(['.transfer', 'fine.sqlite']);
    expect(readdirSync(join(restoreDir, '.transfer'))).toEqual([]);

    // A workspace without a replica, named with --replica: Litestream's own words.
    const none = await hourbook({ DATA_DIR: restoreDir }, 'litestream', 'restore', 'nosuch', '--replica', `file://${join(root, 'damaged-replica')}`);
    expect(none).toMatchObject({ code: 1, stderr: 'hourbook: nosuch: litestream restore failed: no matching backups found\n' });
    expect((await hourbook({ DATA_DIR: restoreDir }, 'litestream', 'restore', '--config', configFile, 'fine')).stderr).toMatch(/fine already exists in .*; --force replaces/);
    expect((await hourbook({ DATA_DIR: restoreDir }, 'litestream', 'restore', '--config', configFile, '--timestamp', '2026-11-28')).stderr).toMatch(/--timestamp: must be a time such as/);
    expect((await hourbook({ DATA_DIR: restoreDir }, 'litestream', 'restore', 'fine', '--config', configFile, '--replica', 'file:///x')).stderr).toMatch(/give --config or --replica, not both/);

    // A replica whose WAL segment is damaged: Litestream fails, and none of its work files stay.
    const bad = join(root, 'bad-wal-replica');
    cpSync(join(root, 'damaged-replica'), bad, { recursive: true });
    const generations = join(bad, 'fine', 'generations');
    const wal = join(generations, readdirSync(generations)[0]!, 'wal');
    for (const segment of readdirSync(wal)) writeFileSync(join(wal, segment), Buffer.alloc(4096, 7));
    const broken = await hourbook({ DATA_DIR: restoreDir }, 'litestream', 'restore', 'fine', '--replica', `file://${bad}`, '--force');
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/^hourbook: fine: litestream restore failed: .+\n$/);
    expect(readdirSync(join(restoreDir, '.transfer'))).toEqual([]);
    expect(readdirSync(restoreDir).sort()).toEqual(['.transfer', 'fine.sqlite']);
  }, 60_000);
});
