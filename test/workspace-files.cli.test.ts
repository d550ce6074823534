import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkspaceHandle } from '../src/workspaces/handle.ts';
import { knownMigrations, MIGRATIONS_FOLDER } from '../src/workspaces/migrate.ts';
import { stampOf } from '../src/workspaces/registry.ts';
import { freePort } from './helpers/ports.ts';
import { hourbook } from './helpers/processes.ts';

/**
 * Workspace files through the command line: retired copies are never overwritten and are private,
 * listing and `migrate --check` go on past a damaged file and change no file, a file without its
 * workspace row is named, and `serve` says in a line why it cannot listen.
 */

const root = mkdtempSync(join(tmpdir(), 'hourbook-wsfiles-'));
const umaskBefore = process.umask(0o022);
afterAll(() => {
  process.umask(umaskBefore);
  rmSync(root, { recursive: true, force: true });
});

const modeOf = (path: string) => statSync(path).mode & 0o777;

/** The name stored in a workspace file's row, read without touching anything else. */
function nameIn(file: string): string {
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    return (db.prepare('SELECT name FROM workspace').pluck().get() as string) ?? '';
  } finally {
    db.close();
  }
}

function rename(file: string, name: string): void {
  const db = new BetterSqlite3(file);
  try {
    db.prepare('UPDATE workspace SET name = ?').run(name);
  } finally {
    db.close();
  }
}

/** A workspace file as the first version left it: schema 0000 with its workspace row. */
function oldWorkspace(dataDir: string, subdomain: string): string {
  const migrations = join(root, 'migrations-0000');
  mkdirSync(join(migrations, 'meta'), { recursive: true });
  const first = knownMigrations()[0]!;
  copyFileSync(join(MIGRATIONS_FOLDER, `${first.tag}.sql`), join(migrations, `${first.tag}.sql`));
  const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8'));
  writeFileSync(join(migrations, 'meta', '_journal.json'), JSON.stringify({ ...journal, entries: journal.entries.slice(0, 1) }));
  const file = join(dataDir, `${subdomain}.sqlite`);
  const db = new BetterSqlite3(file);
  db.pragma('journal_mode = WAL');
  migrate(drizzle(db), { migrationsFolder: migrations });
  db.prepare("INSERT INTO workspace (id, subdomain, name, time_zone, created_at, updated_at) VALUES ('w1', ?, 'Old Agency', 'UTC', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')").run(subdomain);
  db.close();
  return file;
}

describe('restore --force keeps every replaced file', () => {
  const dataDir = join(root, 'restore');
  const env = { DATA_DIR: dataDir };
  let backupDir = '';

  beforeAll(async () => {
    expect((await hourbook(env, 'workspace', 'create', 'acme', '--owner-email', 'o@acme.test', '--json')).code).toBe(0);
    const backups = join(root, 'backups');
    expect((await hourbook(env, 'backup', '--to', backups)).code).toBe(0);
    backupDir = join(backups, readdirSync(backups)[0]!);
  });

  it('two restores in the same second: neither overwrites a retired copy; retired/ is 0700, its copies 0600', async () => {
    const file = join(dataDir, 'acme.sqlite');
    rename(file, 'live data');
    // Copies an earlier restore retired, one for every second these restores may run in: the old
    // code renamed over the one of its own second. (Not a race: each second is taken.)
    const retired = join(dataDir, 'retired');
    mkdirSync(retired, { mode: 0o700 });
    const start = Date.now() - 2000;
    const planted = Array.from({ length: 120 }, (_, i) => join(retired, `acme-before-restore-${stampOf(new Date(start + i * 1000))}.sqlite`));
    for (const path of planted) writeFileSync(path, `earlier copy ${path}`);
    rmSync(retired, { recursive: true });

    // The first restore makes retired/ itself; the planted copies are put there right after.
    const first = await hourbook(env, 'restore', backupDir, 'acme', '--force');
    expect(first).toMatchObject({ code: 0, stderr: '' });
    const [firstCopy] = readdirSync(retired);
    expect(readdirSync(retired)).toEqual([firstCopy]);
    expect(modeOf(retired)).toBe(0o700);
    expect(modeOf(join(dataDir, '.transfer'))).toBe(0o700);
    expect(modeOf(join(retired, firstCopy!))).toBe(0o600);
    expect(nameIn(join(retired, firstCopy!))).toBe('live data');
    for (const path of planted) if (!existsSync(path)) writeFileSync(path, `earlier copy ${path}`);

    rename(file, 'restored, then changed');
    const second = await hourbook(env, 'restore', backupDir, 'acme', '--force');
    expect(second).toMatchObject({ code: 0, stderr: '' });

    for (const path of planted) if (!path.endsWith(firstCopy!)) expect(readFileSync(path, 'utf8')).toBe(`earlier copy ${path}`);
    expect(nameIn(join(retired, firstCopy!))).toBe('live data');
    // (Reading a copy here leaves its -wal and -shm beside it.)
    const added = readdirSync(retired).filter((name) => name.endsWith('.sqlite') && !planted.some((p) => p.endsWith(`/${name}`)));
    expect(added).toHaveLength(1);
    expect(added[0]).toMatch(/^acme-before-restore-\d{8}T\d{6}Z-2\.sqlite$/);
    expect(nameIn(join(retired, added[0]!))).toBe('restored, then changed');
    expect(modeOf(join(retired, added[0]!))).toBe(0o600);
    expect(nameIn(file)).toBe('acme');
  });
});

describe('a damaged workspace file', () => {
  const dataDir = join(root, 'damaged');
  const env = { DATA_DIR: dataDir };

  beforeAll(async () => {
    expect((await hourbook(env, 'workspace', 'create', 'acme', '--owner-email', 'o@acme.test', '--json')).code).toBe(0);
    writeFileSync(join(dataDir, 'junk.sqlite'), Buffer.alloc(8192, 0x5a));
  });

  it('workspace list lists the others and names it with a reason (exit 0)', async () => {
    const human = await hourbook(env, 'workspace', 'list');
    expect(human.code).toBe(0);
    expect(human.stderr).toBe('');
    expect(human.stdout).toMatch(/^acme\tacme\t1 members\tUTC$/m);
    expect(human.stdout).toMatch(/^junk\tPROBLEM: .*junk\.sqlite cannot be read: file is not a database$/m);
    const json = JSON.parse((await hourbook(env, 'workspace', 'list', '--json')).stdout);
    expect(json.workspaces.map((w: { subdomain: string }) => w.subdomain)).toEqual(['acme']);
    expect(json.problems).toEqual([{ subdomain: 'junk', problem: 'cannot be read: file is not a database' }]);
  });

  it('migrate --check and migrate report it in a line, do the others, and exit 1', async () => {
    const check = await hourbook(env, 'migrate', '--check');
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/^acme: up to date/m);
    expect(check.stdout).toMatch(/^junk: cannot be read: file is not a database/m);
    expect(check.stderr).toBe('hourbook: 1 workspace file cannot be read\n');
    const applied = await hourbook(env, 'migrate');
    expect(applied.code).toBe(1);
    expect(applied.stdout).toMatch(/^acme: up to date$/m);
    expect(applied.stderr).toBe('hourbook: 1 workspace file could not be migrated; the others were\n');
  });
});

describe('workspace list changes no file', () => {
  const dataDir = join(root, 'old');
  const env = { DATA_DIR: dataDir };

  it('shows a file that is behind as needing migration, and leaves it behind', async () => {
    mkdirSync(dataDir, { recursive: true });
    const file = oldWorkspace(dataDir, 'acme');
    const before = readFileSync(file);
    const human = await hourbook(env, 'workspace', 'list');
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^acme\tOld Agency\t0 members\tUTC\tneeds migration \(hourbook migrate\)$/m);
    const json = JSON.parse((await hourbook(env, 'workspace', 'list', '--json')).stdout);
    expect(json.workspaces).toEqual([expect.objectContaining({ subdomain: 'acme', name: 'Old Agency', schema: 'needs_migration' })]);
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(existsSync(join(dataDir, 'backups'))).toBe(false);
    const check = await hourbook(env, 'migrate', '--check');
    expect(check.code).toBe(1);
    expect(check.stdout).toContain(`acme: ${knownMigrations().length - 1} pending`);
  });
});

describe('a file without its workspace row (left by an interrupted create of an earlier version)', () => {
  const dataDir = join(root, 'rowless');
  const env = { DATA_DIR: dataDir };

  it('is named by workspace list, and create says what is in the way', async () => {
    expect((await hourbook(env, 'workspace', 'create', 'acme', '--owner-email', 'o@acme.test', '--json')).code).toBe(0);
    // What the registry made before seeding: a migrated file, no rows.
    new WorkspaceHandle('ghost', join(dataDir, 'ghost.sqlite'), { synchronous: 'FULL' }).close();
    const listed = await hourbook(env, 'workspace', 'list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^acme\t/m);
    expect(listed.stdout).toMatch(/^ghost\tPROBLEM: .*ghost\.sqlite has no workspace row \(an interrupted "workspace create"\?\)/m);
    const created = await hourbook(env, 'workspace', 'create', 'ghost', '--owner-email', 'o@ghost.test');
    expect(created.code).toBe(1);
    expect(created.stderr).toMatch(/^hourbook: The workspace ghost already exists, but its file .*ghost\.sqlite has no workspace row/);
    // check, too, finds it no workspace: sound as a file, but nothing a server can serve.
    const checked = await hourbook(env, 'check', 'ghost');
    expect(checked.code).toBe(1);
    expect(checked.stdout).toMatch(/ghost\s+DAMAGED: has no workspace row/);
  });
});

describe('serve with a HOST it cannot listen on', () => {
  it.each([
    ['nosuchhost.invalid', /^hourbook: cannot listen on HOST=nosuchhost\.invalid: no such host name/],
    // TEST-NET-1 (RFC 5737): never an address of this machine.
    ['192.0.2.1', /^hourbook: cannot listen on HOST=192\.0\.2\.1: it is not an address of this machine/],
  ])('%s: one line, exit 1', async (host, message) => {
    const res = await hourbook({ DATA_DIR: join(root, 'serve'), HOST: host, PORT: String(await freePort()) }, 'serve');
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(message);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
  });
});
