import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hourbook } from './helpers/processes.ts';

/**
 * `hourbook backup` and `restore` when things are not as they should be: a damaged workspace
 * file, a torn manifest, leftovers of killed runs, a umask that lets everyone read, a name given
 * twice. No server: plain files in a temp DATA_DIR, the real command.
 */
const root = mkdtempSync(join(tmpdir(), 'hourbook-backup-robust-'));
const dataDir = join(root, 'data');
const env = { DATA_DIR: dataDir };
const modeOf = (path: string) => statSync(path).mode & 0o777;
const workspacesOf = (dir: string) => (JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { workspaces: { subdomain: string }[] }).workspaces.map((w) => w.subdomain);
let umask = 0;

/** A real backup of acme, its directory renamed to the time `stamp` (so runs within one second do not collide). */
async function backupAs(to: string, stamp: string): Promise<string> {
  const res = await hourbook(env, 'backup', 'acme', '--to', to, '--json');
  expect(res.code, res.stderr).toBe(0);
  const dir = join(to, stamp);
  renameSync(JSON.parse(res.stdout).dir, dir);
  return dir;
}

beforeAll(async () => {
  // The documented cron setup: files everyone may read unless made otherwise.
  umask = process.umask(0o022);
  for (const subdomain of ['acme', 'globex']) {
    const created = await hourbook(env, 'workspace', 'create', subdomain, '--owner-email', `owner@${subdomain}.test`);
    expect(created.code, created.stderr).toBe(0);
  }
});
afterAll(() => {
  process.umask(umask);
  rmSync(root, { recursive: true, force: true });
});

describe('hourbook backup and restore, robustly', () => {
  it('a damaged workspace file is named in one line, every other workspace is backed up, and nothing older is pruned', async () => {
    const to = join(root, 'damaged-backups');
    const earlier = await backupAs(to, '20000101T000000Z');
    const junk = join(dataDir, 'junk.sqlite');
    writeFileSync(junk, Buffer.alloc(8192, 0x5a));
    try {
      const res = await hourbook(env, 'backup', '--to', to, '--keep', '1', '--json');
      expect(res.code).toBe(1);
      expect(res.stderr).toBe('hourbook: 1 workspace not backed up (no older backup removed):\n  junk: file is not a database\n');
      const out = JSON.parse(res.stdout);
      expect(out.failed).toEqual([{ subdomain: 'junk', error: 'file is not a database' }]);
      expect(workspacesOf(out.dir)).toEqual(['acme', 'globex']);
      expect(readdirSync(out.dir).sort()).toEqual(['acme.sqlite', 'globex.sqlite', 'manifest.json']);
      // The older backup may hold junk's last good copy: kept despite --keep 1.
      expect(existsSync(join(earlier, 'manifest.json'))).toBe(true);
      // Out of the way of the next run's directory, which may be named for the same second.
      renameSync(out.dir, join(to, '20000102T000000Z'));

      // Nothing could be copied: nothing is written.
      const only = join(root, 'only-junk');
      mkdirSync(only);
      copyFileSync(junk, join(only, 'junk.sqlite'));
      const before = readdirSync(to).sort();
      const none = await hourbook({ DATA_DIR: only }, 'backup', '--to', to, '--keep', '1');
      expect(none.code).toBe(1);
      expect(none.stderr).toBe('hourbook: nothing was backed up, no workspace could be copied:\n  junk: file is not a database\n');
      expect(readdirSync(to).sort()).toEqual(before);
    } finally {
      rmSync(junk, { force: true });
    }
  });

  it('writes the manifest to a temporary file, flushes it, renames it over, then flushes the backup directory and its root', async () => {
    const to = join(root, 'durable-backups');
    const log = join(root, 'fs-calls.log');
    const spy = join(root, 'fs-spy.mjs');
    // Watches the real command's file-system calls (named imports of node:fs included).
    writeFileSync(
      spy,
      `import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
const { openSync, fsyncSync, renameSync, writeFileSync } = fs;
const opened = new Map();
const note = (line) => writeFileSync(${JSON.stringify(log)}, line + '\\n', { flag: 'a' });
fs.openSync = function (path, ...rest) { const fd = openSync.call(this, path, ...rest); opened.set(fd, String(path)); return fd; };
fs.fsyncSync = function (fd) { note('fsync ' + opened.get(fd)); return fsyncSync.call(this, fd); };
fs.renameSync = function (from, to) { note('rename ' + from + ' ' + to); return renameSync.call(this, from, to); };
fs.writeFileSync = function (file, ...rest) { if (typeof file !== 'number') note('write ' + file); return writeFileSync.call(this, file, ...rest); };
syncBuiltinESMExports();
`,
    );
    const res = await hourbook({ ...env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${spy}` }, 'backup', '--to', to, '--json');
    expect(res.code, res.stderr).toBe(0);
    const dir: string = JSON.parse(res.stdout).dir;
    const manifest = join(dir, 'manifest.json');
    const calls = readFileSync(log, 'utf8').split('\n');
    // Never written in place; and the root flushed last, once the manifest's rename is on disk.
    expect(calls.filter((line) => line.includes('manifest.json') || line === `fsync ${dir}` || line === `fsync ${to}`)).toEqual([
      `fsync ${manifest}.tmp`,
      `rename ${manifest}.tmp ${manifest}`,
      `fsync ${dir}`,
      `fsync ${to}`,
    ]);
    expect(existsSync(`${manifest}.tmp`)).toBe(false);
    expect(workspacesOf(dir)).toEqual(['acme', 'globex']);
  });

  it('restore of a backup whose manifest is empty or corrupt is a one-line error naming the file', async () => {
    const good = await backupAs(join(root, 'restore-backups'), '20000101T000000Z');
    const manifest = join(good, 'manifest.json');
    for (const [text, reason] of [
      ['', 'is not valid JSON \\(Unexpected end of JSON input\\): the backup is incomplete or damaged'],
      ['{"format": 1, "works', 'is not valid JSON \\(.*\\): the backup is incomplete or damaged'],
      ['null', 'is not a manifest this version reads'],
    ] as const) {
      writeFileSync(manifest, text);
      const res = await hourbook(env, 'restore', good, 'acme', '--force');
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(new RegExp(`^hourbook: ${manifest} ${reason}\\n$`));
    }
  });

  it('--keep counts only backups whose manifest reads, and removes incomplete ones older than the newest, never anything not ours', async () => {
    const to = join(root, 'prune-backups');
    const good = await backupAs(to, '20000101T000000Z');
    const make = (name: string, files: Record<string, string>) => {
      mkdirSync(join(to, name));
      for (const [file, text] of Object.entries(files)) writeFileSync(join(to, name, file), text);
    };
    const copy = readFileSync(join(good, 'acme.sqlite'), 'latin1');
    // The manifest torn by a crash while it was written; a run killed before its manifest.
    make('20000102T000000Z', { 'acme.sqlite': copy, 'manifest.json': '' });
    make('20000103T000000Z', { 'acme.sqlite': copy });
    // Killed while it copied: its marker names a process that is gone.
    const gone = spawn(process.execPath, ['-e', '']);
    await new Promise((r) => gone.once('exit', r));
    make('20000103T120000Z', { 'acme.sqlite': copy, 'in-progress.json': JSON.stringify({ pid: gone.pid, host: hostname(), since: '2000-01-03T12:00:00.000Z' }) });
    // Still being written by a backup that runs (this process stands in for it).
    make('20000104T000000Z', { 'acme.sqlite': copy, 'in-progress.json': JSON.stringify({ pid: process.pid, host: hostname(), since: '2000-01-04T00:00:00.000Z' }) });
    // Not ours: a file an operator put there, a directory of another name, a plain file, one newer than any backup.
    make('20000105T000000Z', { 'notes.txt': 'mine' });
    make('keep-me', {});
    writeFileSync(join(to, '20000106T000000Z'), 'a file');
    make('29991231T000000Z', { 'acme.sqlite': copy });

    const res = await hourbook(env, 'backup', 'acme', '--to', to, '--keep', '2', '--json');
    expect(res.code, res.stderr).toBe(0);
    const out = JSON.parse(res.stdout);
    expect(out.pruned).toEqual([]);
    expect(out.incomplete_removed).toEqual(['20000102T000000Z', '20000103T000000Z', '20000103T120000Z']);
    expect(readdirSync(to).sort()).toEqual(
      ['20000101T000000Z', '20000104T000000Z', '20000105T000000Z', '20000106T000000Z', '29991231T000000Z', 'keep-me', out.dir.split('/').at(-1)].sort(),
    );
    expect(workspacesOf(good)).toEqual(['acme']);
  });

  it('makes backups readable by their owner only, whatever the umask', async () => {
    const to = join(root, 'private-backups');
    // Workspace files others may read (made by an older version, or copied in by hand): a copy takes its source's mode.
    for (const subdomain of ['acme', 'globex']) chmodSync(join(dataDir, `${subdomain}.sqlite`), 0o644);
    const res = await hourbook(env, 'backup', '--to', to, '--json');
    expect(res.code, res.stderr).toBe(0);
    const dir: string = JSON.parse(res.stdout).dir;
    expect({ root: modeOf(to), dir: modeOf(dir) }).toEqual({ root: 0o700, dir: 0o700 });
    for (const file of readdirSync(dir)) expect([file, modeOf(join(dir, file))]).toEqual([file, 0o600]);
  });

  it('a workspace named twice is backed up once', async () => {
    const res = await hourbook(env, 'backup', 'acme', 'acme', '--to', join(root, 'twice-backups'), '--json');
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(workspacesOf(JSON.parse(res.stdout).dir)).toEqual(['acme']);
  });
});
