import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageSizeOf } from '../src/workspaces/backup.ts';
import { knownMigrations } from '../src/workspaces/migrate.ts';
import { prepareTarget, startWriter, storedNames, type Target } from './helpers/load.ts';
import { controlSocketPath } from '../src/ops/control-socket.ts';
import { adminCall } from '../src/ops/node-client.ts';
import { send } from './helpers/http.ts';
import { BIN, hourbook, spawnHourbook, type Spawned } from './helpers/processes.ts';
import { freePort } from './helpers/ports.ts';

const root = mkdtempSync(join(tmpdir(), 'hourbook-backup-'));
const dataDir = join(root, 'data');
const backups = join(root, 'backups');
const env = { DATA_DIR: dataDir };
let server: Spawned;
let acme: Target;
let acmeClient = '';

beforeAll(async () => {
  for (const subdomain of ['acme', 'globex']) {
    const created = await hourbook(env, 'workspace', 'create', subdomain, '--owner-email', `owner@${subdomain}.test`, '--json');
    expect(created.code).toBe(0);
    if (subdomain === 'acme') acme = { url: '', host: 'acme.localhost', key: JSON.parse(created.stdout).api_key, ownerEmail: 'owner@acme.test' };
  }
  // acme as a file made before new files had 8 KiB pages: `vacuum` below gives it them.
  const old = new BetterSqlite3(join(dataDir, 'acme.sqlite'));
  old.pragma('journal_mode = DELETE');
  old.pragma('page_size = 4096');
  old.exec('VACUUM');
  old.pragma('journal_mode = WAL');
  old.close();
  const port = await freePort();
  server = await spawnHourbook({ ...env, PORT: String(port) }, ['serve']);
  acme.url = `http://127.0.0.1:${port}`;
  acmeClient = await prepareTarget(acme);
});
afterAll(async () => {
  await server?.kill9();
  rmSync(root, { recursive: true, force: true });
});

/** `hourbook` run as another user (a uid and gid of its own), as root can. */
function runAs(uid: number, environment: Record<string, string>, args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { uid, gid: uid, env: { ...process.env, LOG_LEVEL: 'warn', ...environment }, timeout: 30_000 }, (err, _stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stderr }),
    );
  });
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const integrity = (file: string) => {
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    return db.pragma('integrity_check', { simple: true });
  } finally {
    db.close();
  }
};

describe('hourbook backup, check and restore while the server runs and writes', () => {
  let backupDir = '';

  it('backup takes a consistent, checked copy of every workspace with a manifest, under write load', async () => {
    const writer = startWriter(acme, acmeClient, { prefix: 'before' });
    await new Promise((r) => setTimeout(r, 500));
    const startedAt = Date.now();
    const result = await hourbook(env, 'backup', '--to', backups, '--json');
    await writer.stop();
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(writer.failures).toEqual([]);
    const out = JSON.parse(result.stdout);
    backupDir = out.dir;
    expect(backupDir).toMatch(/\/\d{8}T\d{6}Z$/);
    const manifest = JSON.parse(readFileSync(join(backupDir, 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({ format: 1, hourbook_version: expect.any(String), source_data_dir: dataDir });
    expect(manifest.workspaces.map((w: { subdomain: string }) => w.subdomain)).toEqual(['acme', 'globex']);
    for (const entry of manifest.workspaces) {
      const file = join(backupDir, entry.file);
      expect(entry).toMatchObject({ integrity: 'ok', schema_version: knownMigrations().at(-1)!.tag, bytes: statSync(file).size, sha256: sha256(file) });
      expect(integrity(file)).toBe('ok');
      // one self-contained file: no WAL beside it
      expect(existsSync(`${file}-wal`)).toBe(false);
    }
    // Every write acknowledged before the backup began is in the copy.
    const copied = storedNames(join(backupDir, 'acme.sqlite'));
    const before = writer.acked.filter((a) => a.at < startedAt);
    expect(before.length).toBeGreaterThan(5);
    expect(before.filter((a) => !copied.has(a.name))).toEqual([]);
  });

  it('check verifies every workspace file and fails on a damaged one', async () => {
    const ok = await hourbook(env, 'check');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/acme\s+ok\s+\S+\s+4096 \(hourbook vacuum makes it 8192\)/);
    expect(ok.stdout).toMatch(/globex\s+ok\s+\S+\s+8192$/m);

    const damagedDir = join(root, 'damaged');
    mkdirSync(damagedDir);
    const file = join(damagedDir, 'broken.sqlite');
    copyFileSync(join(backupDir, 'acme.sqlite'), file);
    const bytes = readFileSync(file);
    const pageSize = bytes.readUInt16BE(16); // the file header's page size
    bytes.fill(0x5a, pageSize * 3 + 8, pageSize * 3 + 600); // scribble over a b-tree page
    writeFileSync(file, bytes);
    const bad = await hourbook({ DATA_DIR: damagedDir }, 'check');
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/broken\s+DAMAGED/);
    expect(bad.stderr).toMatch(/1 workspace file\(s\) failed the check/);
  });

  it('restore refuses to replace a live workspace without --force; with it, the served workspace is replaced and keeps taking writes', async () => {
    const after = startWriter(acme, acmeClient, { prefix: 'after' });
    await new Promise((r) => setTimeout(r, 300));
    const refused = await hourbook(env, 'restore', backupDir, 'acme');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/acme already exists .*--force/);

    const restored = await hourbook(env, 'restore', backupDir, 'acme', '--force');
    await new Promise((r) => setTimeout(r, 300));
    await after.stop();
    expect(restored.stderr).toBe('');
    expect(restored.code).toBe(0);
    expect(restored.stdout).toMatch(/restored acme .*handed over and resumed/);
    expect(after.failures).toEqual([]);

    // The server now serves the backup's data: what was written before the backup is there,
    // writes made between backup and restore are not (that is what a restore means), and the
    // writes acknowledged after the restore are stored.
    const names = storedNames(join(dataDir, 'acme.sqlite'));
    const backupNames = storedNames(join(backupDir, 'acme.sqlite'));
    for (const name of backupNames) expect(names.has(name)).toBe(true);
    expect(integrity(join(dataDir, 'acme.sqlite'))).toBe('ok');
    expect(readdirSync(join(dataDir, 'retired'))).toEqual([expect.stringMatching(/^acme-before-restore-\d{8}T\d{6}Z\.sqlite$/)]);
    const written = after.acked.filter((a) => !backupNames.has(a.name));
    const late = written.filter((a) => names.has(a.name));
    expect(late.length).toBeGreaterThan(0);
  });

  it('vacuum rewrites a served workspace with 8 KiB pages while it takes writes, and loses none', async () => {
    const file = join(dataDir, 'acme.sqlite');
    expect(pageSizeOf(file)).toBe(4096);
    const writer = startWriter(acme, acmeClient, { prefix: 'vacuum' });
    await new Promise((r) => setTimeout(r, 300));
    const res = await hourbook(env, 'vacuum', 'acme', '--json');
    await new Promise((r) => setTimeout(r, 300));
    await writer.stop();
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const [out] = JSON.parse(res.stdout).workspaces;
    expect(out).toMatchObject({ subdomain: 'acme', page_size_before: 4096, page_size: 8192, retired: expect.stringMatching(/retired\/acme-before-vacuum-\d{8}T\d{6}Z\.sqlite$/) });
    expect(existsSync(out.retired)).toBe(true);
    expect(readdirSync(join(dataDir, '.transfer'))).toEqual([]);
    // Writes during the copy were refused with 503 and retried; every acknowledged one is stored.
    expect(writer.failures).toEqual([]);
    expect(writer.retries).toBeGreaterThan(0);
    expect(pageSizeOf(file)).toBe(8192);
    expect(integrity(file)).toBe('ok');
    const names = storedNames(file);
    expect(writer.acked.length).toBeGreaterThan(5);
    expect(writer.acked.filter((a) => !names.has(a.name))).toEqual([]);
    // Everything the old file held is in the new one.
    for (const name of storedNames(out.retired)) expect(names.has(name)).toBe(true);
  });

  it('a workspace another operation holds (a move under way) refuses restore and vacuum without touching the hold; workspace resume lifts an abandoned hold, a handed-over one only with --force', async () => {
    const control = { socketPath: controlSocketPath(dataDir) };
    const holdOf = async () => (await adminCall<{ holds: Record<string, { hold: string; operation: string | null }> }>(control, 'GET', '/status')).holds.acme;
    const write = () => send(acme.url, 'POST', '/trpc/clients.create', { host: acme.host, key: acme.key, body: { email: acme.ownerEmail, name: `Held ${Date.now()}`, currency: 'EUR' } });
    await adminCall(control, 'POST', '/workspaces/acme/pause', { reason: 'moving to node2', operation: 'move-1' });
    const retiredBefore = readdirSync(join(dataDir, 'retired'));

    const restore = await hourbook(env, 'restore', backupDir, 'acme', '--force');
    expect(restore.code).toBe(1);
    expect(restore.stderr).toMatch(/^hourbook: acme is held by another operation \(moving to node2, since .*\); wait for it to end, or resume the workspace if it was abandoned\n$/);
    const vacuum = await hourbook(env, 'vacuum', 'acme');
    expect(vacuum.code).toBe(1);
    expect(vacuum.stderr).toMatch(/acme is held by another operation \(moving to node2/);
    // Neither command lifted the move's hold, replaced the file or left a copy behind.
    expect(await holdOf()).toMatchObject({ hold: 'writes', operation: 'move-1' });
    expect((await write()).status).toBe(503);
    expect(readdirSync(join(dataDir, '.transfer'))).toEqual([]);
    expect(readdirSync(join(dataDir, 'retired'))).toEqual(retiredBefore);

    // The move's process died: the operator lifts its hold.
    const resumed = await hourbook(env, 'workspace', 'resume', 'acme');
    expect(resumed.stderr).toBe('');
    expect(resumed.stdout).toMatch(/^resumed acme on the server of .* \(pid \d+\) \(it was writes paused: moving to node2, since \d{4}-.*\)\n$/);
    expect(await holdOf()).toBeUndefined();
    expect((await write()).status).toBe(200);
    expect((await hourbook(env, 'workspace', 'resume', 'acme')).stdout).toMatch(/^acme is not held on the server of .*: nothing to resume\n$/);

    // Handed over, another node may serve it: --force is needed.
    await adminCall(control, 'POST', '/workspaces/acme/hand-over', { reason: 'moved to node2', operation: 'move-2' });
    const refused = await hourbook(env, 'workspace', 'resume', 'acme');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/acme was handed over on .* \(moved to node2, since .*\): another node may serve it now\. Check where HAProxy routes it; .* with --force/);
    expect(await holdOf()).toMatchObject({ hold: 'all', operation: 'move-2' });
    const forced = await hourbook(env, 'workspace', 'resume', 'acme', '--force', '--json');
    expect(forced.code).toBe(0);
    expect(JSON.parse(forced.stdout)).toMatchObject({ subdomain: 'acme', resumed: true, hold: { hold: 'all', reason: 'moved to node2', operation: 'move-2' } });
    expect((await write()).status).toBe(200);
    expect((await hourbook(env, 'workspace', 'resume', 'constructor')).stdout).toMatch(/^constructor is not held/);
    // No server on a data directory: nothing is held there either, and that is no error.
    const idle = { DATA_DIR: join(root, 'idle') };
    expect((await hourbook(idle, 'workspace', 'create', 'quiet', '--owner-email', 'o@quiet.test')).code).toBe(0);
    const unserved = await hourbook(idle, 'workspace', 'resume', 'quiet', '--json');
    expect(unserved.code).toBe(0);
    expect(JSON.parse(unserved.stdout)).toEqual({ subdomain: 'quiet', resumed: false, hold: null });

    // Moved away (handed over and retired, the move's hold kept for stray requests), then restored
    // here from the backup: the restore takes that hold over, and the workspace is served again.
    await adminCall(control, 'POST', '/workspaces/acme/hand-over', { reason: 'moved to node2', operation: 'move-3' });
    await adminCall(control, 'POST', '/workspaces/acme/retire', { operation: 'move-3' });
    expect((await write()).status).toBe(503);
    const back = await hourbook(env, 'restore', backupDir, 'acme');
    expect(back.stderr).toBe('');
    expect(back.code).toBe(0);
    expect(await holdOf()).toBeUndefined();
    expect((await write()).status).toBe(200);
  });

  it.skipIf(process.getuid?.() !== 0)('a user the control socket refuses is told so, and restore and serve stop, instead of taking the server for absent', async () => {
    // Another user than the server's (here: nobody, the tests running as root) may read the data
    // directory, and the backup (made its owner's only).
    chmodSync(root, 0o755);
    chmodSync(dataDir, 0o755);
    for (const path of [backups, backupDir]) chmodSync(path, 0o755);
    for (const file of readdirSync(backupDir)) chmodSync(join(backupDir, file), 0o644);
    try {
      for (const args of [['workspace', 'resume', 'acme'], ['restore', backupDir, 'acme', '--force'], ['serve']]) {
        const res = await runAs(65534, { ...env, PORT: String(await freePort()), HOME: tmpdir() }, args);
        expect(res, args.join(' ')).toMatchObject({ code: 1, stderr: expect.stringMatching(/^hourbook: cannot reach the server of this data directory: its control socket .*\.hourbook\.sock refuses this user/) });
      }
    } finally {
      chmodSync(root, 0o700);
    }
  });

  it('a restore or vacuum of a workspace another such command works on stops at once and says who; a lock a killed command left is taken over', async () => {
    const lock = join(dataDir, '.transfer', 'globex.lock');
    const file = join(dataDir, 'globex.sqlite');
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      mkdirSync(join(dataDir, '.transfer'), { recursive: true });
      writeFileSync(lock, JSON.stringify({ pid: other.pid, what: 'restore', since: '2026-11-29T10:00:00.000Z' }));
      const before = sha256(file);
      for (const args of [['restore', backupDir, 'globex', '--force'], ['vacuum', 'globex']]) {
        const res = await hourbook(env, ...args);
        expect(res.code).toBe(1);
        expect(res.stderr).toContain(`globex is being worked on by another command (restore, pid ${other.pid}, since 2026-11-29T10:00:00.000Z)`);
      }
      expect(sha256(file)).toBe(before);
      expect(JSON.parse(readFileSync(lock, 'utf8')).pid).toBe(other.pid);
      expect(readdirSync(join(dataDir, '.transfer')).filter((n) => n.startsWith('globex-'))).toEqual([]);
    } finally {
      other.kill('SIGKILL');
      await new Promise((r) => other.once('exit', r));
    }
    // Its holder is gone (killed): the next command takes the lock over, and lets go of it after.
    const restored = await hourbook(env, 'restore', backupDir, 'globex', '--force');
    expect(restored.stderr).toBe('');
    expect(restored.code).toBe(0);
    expect(existsSync(lock)).toBe(false);
    expect(integrity(file)).toBe('ok');
  });

  it('restore refuses a copy that no longer matches its manifest', async () => {
    const tampered = join(root, 'tampered');
    mkdirSync(tampered);
    for (const f of readdirSync(backupDir)) copyFileSync(join(backupDir, f), join(tampered, f));
    appendFileSync(join(tampered, 'globex.sqlite'), Buffer.from([0]));
    const res = await hourbook(env, 'restore', tampered, 'globex', '--force');
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/does not match its manifest/);
  });

  it('backup --keep N keeps the newest N backups; unknown workspaces are refused', async () => {
    await new Promise((r) => setTimeout(r, 1100));
    const second = await hourbook(env, 'backup', 'globex', '--to', backups, '--keep', '1');
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/removed 1 older backup/);
    expect(readdirSync(backups)).toHaveLength(1);
    expect(JSON.parse(readFileSync(join(backups, readdirSync(backups)[0]!, 'manifest.json'), 'utf8')).workspaces).toHaveLength(1);
    const ghost = await hourbook(env, 'backup', 'ghost', '--to', backups);
    expect(ghost.code).toBe(1);
    expect(ghost.stderr).toMatch(/no workspace named "ghost"/);
    // A wrong DATA_DIR (a typo, a volume not mounted) fails, writes nothing and prunes nothing.
    const kept = readdirSync(backups);
    const typo = { DATA_DIR: join(root, 'no-such-data') };
    const empty = await hourbook(typo, 'backup', '--to', backups, '--keep', '1');
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/no workspaces under .*no-such-data: is DATA_DIR right\?/);
    expect(readdirSync(backups)).toEqual(kept);
    expect((await hourbook(typo, 'check')).code).toBe(1);
  });
});
