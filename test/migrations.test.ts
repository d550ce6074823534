import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { afterAll, describe, expect, it } from 'vitest';
import { WorkspaceHandle } from '../src/workspaces/handle.ts';
import { knownMigrations, MIGRATIONS_FOLDER, schemaState } from '../src/workspaces/migrate.ts';
import { hourbook, spawnHourbook, type Spawned } from './helpers/processes.ts';
import { freePort } from './helpers/ports.ts';

const root = mkdtempSync(join(tmpdir(), 'hourbook-migrate-'));
const spawned: Spawned[] = [];
afterAll(async () => {
  await Promise.all(spawned.map((s) => s.kill9()));
  rmSync(root, { recursive: true, force: true });
});

const FIRST = knownMigrations()[0]!;
const LATER = knownMigrations().slice(1).map((m) => m.tag);

/** A migrations folder holding the first `count` migrations: what an older hourbook shipped. */
function firstMigrations(count: number): string {
  const dir = join(root, `migrations-${count}`);
  mkdirSync(join(dir, 'meta'), { recursive: true });
  for (const m of knownMigrations().slice(0, count)) copyFileSync(join(MIGRATIONS_FOLDER, `${m.tag}.sql`), join(dir, `${m.tag}.sql`));
  const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8'));
  writeFileSync(join(dir, 'meta', '_journal.json'), JSON.stringify({ ...journal, entries: journal.entries.slice(0, count) }));
  return dir;
}

/** A workspace file as the first version left it: schema 0000 with its workspace row. */
function oldWorkspace(dataDir: string, subdomain: string): string {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, `${subdomain}.sqlite`);
  const db = new BetterSqlite3(file);
  db.pragma('journal_mode = WAL');
  migrate(drizzle(db), { migrationsFolder: firstMigrations(1) });
  db.prepare('INSERT INTO workspace (id, subdomain, name, time_zone, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)').run(
    `id-${subdomain}`,
    subdomain,
    `${subdomain} agency`,
    'UTC',
    '2026-01-01T00:00:00.000Z',
    '2026-01-01T00:00:00.000Z',
  );
  db.close();
  return file;
}

const stateOf = (file: string) => {
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    return { ...schemaState(db), rows: (db.prepare('SELECT count(*) AS n FROM __drizzle_migrations').get() as { n: number }).n };
  } finally {
    db.close();
  }
};

/** Index names of a table, sorted. */
const indexesOf = (db: BetterSqlite3.Database, table: string) =>
  (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? ORDER BY name`).all(table) as { name: string }[]).map((r) => r.name);

/** A workspace file at the schema just before migration `tag`, open on a connection in WAL mode. */
function fileBefore(tag: string, dir: string): { file: string; old: BetterSqlite3.Database } {
  const before = knownMigrations().findIndex((m) => m.tag === tag);
  expect(before).toBeGreaterThan(0);
  mkdirSync(join(root, dir), { recursive: true });
  const file = join(root, dir, 'acme.sqlite');
  const old = new BetterSqlite3(file);
  old.pragma('journal_mode = WAL');
  migrate(drizzle(old), { migrationsFolder: firstMigrations(before) });
  return { file, old };
}

describe('upgrading workspace files', () => {
  it('0008 rebuilds invoice_lines without its id and entry indexes, keeping every line in order', () => {
    const { file, old } = fileBefore('0008_invoice_lines_unindexed', 'lines');
    const at = '2026-01-01T00:00:00.000Z';
    old.prepare('INSERT INTO workspace (id, subdomain, name, time_zone, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)').run('w', 'acme', 'Acme', 'UTC', at, at);
    old.prepare('INSERT INTO roles (name, created_at) VALUES (?, ?)').run('Owner', at);
    old.prepare('INSERT INTO team_members (id, email, first_name, last_name, time_zone, organization_role, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run('u', 'o@acme.test', 'O', 'A', 'UTC', 'Owner', at, at);
    old.prepare('INSERT INTO clients (id, name, identifier, currency, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)').run('c', 'Client', 'C', 'EUR', at, at);
    const invoice = old.prepare(
      `INSERT INTO invoices (id, client_id, creator_id, number, currency, issue_date, due_date, subtotal_minor, tax_minor, total_minor, public_token, created_at, updated_at)
       VALUES (?, 'c', 'u', ?, 'EUR', '2026-01-01', '2026-01-31', 0, 0, 0, ?, ?, ?)`,
    );
    const line = old.prepare('INSERT INTO invoice_lines (id, invoice_id, kind, position, time_entry_id, notes, amount_minor) VALUES (?, ?, ?, ?, ?, ?, ?)');
    const lines: unknown[][] = [];
    for (const inv of ['i1', 'i2']) {
      invoice.run(inv, `N-${inv}`, `token-${inv}`, at, at);
      for (let position = 0; position < 3; position++) lines.push([`${inv}-line-${position}`, inv, 'time_entry', position, `entry-${inv}-${position}`, `notes ${position}`, 100 * position + 1]);
    }
    // inserted out of order: the rebuild keeps each row as it was
    for (const l of [...lines].reverse()) line.run(...l);
    expect(indexesOf(old, 'invoice_lines')).toContain('invoice_lines_entry_idx');
    old.close();

    const handle = new WorkspaceHandle('acme', file, { synchronous: 'FULL' });
    try {
      const db = handle.sqlite;
      expect(schemaState(db).pending).toEqual([]);
      expect(indexesOf(db, 'invoice_lines')).toEqual(['invoice_lines_invoice_idx']);
      // 0011: entries awaiting approval have their own index; status and invoice_id none that billing moves through
      const entryIndexes = indexesOf(db, 'time_entries');
      expect(entryIndexes).toContain('time_entries_pending_idx');
      expect(entryIndexes.filter((name) => name === 'time_entries_status_idx' || name === 'time_entries_invoice_idx')).toEqual([]);
      const read = db.prepare('SELECT invoice_id, kind, position, time_entry_id, notes, amount_minor FROM invoice_lines ORDER BY invoice_id, position').raw().all();
      expect(read).toEqual(lines.map(([, ...rest]) => rest)); // 0012 numbers the lines instead of their UUIDs
      expect(db.pragma('foreign_key_check')).toEqual([]);
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      handle.close();
    }
  });

  it('0010 numbers every combination and puts each entry on its own, keying the reports\' indexes by that number', () => {
    const { file, old } = fileBefore('0010_entry_combination_ids', 'combos');
    // Only the entries and their combinations matter here; their clients, projects and people do not.
    old.pragma('foreign_keys = OFF');
    const at = '2026-01-01T00:00:00.000Z';
    const entry = old.prepare(
      `INSERT INTO time_entries (id, client_id, project_id, task_id, user_id, recorded_on, entered_seconds, seconds, status, created_at, updated_at)
       VALUES (?, 'c', ?, ?, ?, ?, 60, 60, ?, ?, ?)`,
    );
    const keys = [['p2', 't1', 'u1'], ['p1', 't2', 'u1'], ['p1', 't1', 'u2'], ['p1', 't1', 'u1']] as const;
    keys.forEach(([p, t, u], n) => {
      entry.run(`e${n}a`, p, t, u, `2026-0${n + 1}-10`, 'billed', at, at);
      entry.run(`e${n}b`, p, t, u, `2026-0${n + 2}-20`, 'unbilled', at, at);
    });
    const combosBefore = old.prepare('SELECT project_id, task_id, user_id, first_on, last_on FROM time_entry_combos ORDER BY 1, 2, 3').raw().all();
    expect(combosBefore).toHaveLength(4);
    old.close();

    const handle = new WorkspaceHandle('acme', file, { synchronous: 'FULL' });
    try {
      const db = handle.sqlite;
      expect(schemaState(db).pending).toEqual([]);
      // Same combinations and days, numbered in key order.
      expect(db.prepare('SELECT project_id, task_id, user_id, first_on, last_on FROM time_entry_combos ORDER BY id').raw().all()).toEqual(combosBefore);
      const mismatched = db
        .prepare('SELECT e.id FROM time_entries e JOIN time_entry_combos c ON c.id = e.combo_id WHERE c.project_id <> e.project_id OR c.task_id <> e.task_id OR c.user_id <> e.user_id')
        .all();
      expect(mismatched).toEqual([]);
      expect(db.prepare('SELECT count(*) FROM time_entries WHERE combo_id IS NULL').pluck().get()).toBe(0);
      expect(db.prepare("SELECT count(DISTINCT combo_id) FROM time_entries INDEXED BY time_entries_report_idx WHERE combo_id > 0").pluck().get()).toBe(4);
      expect(db.prepare("SELECT count(*) FROM time_entries INDEXED BY time_entries_unbilled_idx WHERE combo_id > 0 AND status = 'unbilled'").pluck().get()).toBe(4);
      // The new triggers number a new combination, and an entry moved to another one follows it.
      db.pragma('foreign_keys = OFF');
      db.prepare(`INSERT INTO time_entries (id, client_id, project_id, task_id, user_id, recorded_on, entered_seconds, seconds, status, created_at, updated_at)
        VALUES ('new', 'c', 'p3', 't1', 'u1', '2026-07-01', 60, 60, 'unbilled', ?, ?)`).run(at, at);
      expect(db.prepare("SELECT combo_id FROM time_entries WHERE id = 'new'").pluck().get()).toBe(5);
      db.prepare("UPDATE time_entries SET task_id = 't2' WHERE id = 'e0a'").run();
      expect(db.prepare("SELECT c.task_id FROM time_entries e JOIN time_entry_combos c ON c.id = e.combo_id WHERE e.id = 'e0a'").pluck().get()).toBe('t2');
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      handle.close();
    }
  });

  it('0012 stores a time line\'s project, task and person as its combination and numbers every line, each line reading as before', () => {
    const { file, old } = fileBefore('0012_invoice_lines_compact', 'compact');
    // The lines, their entries and combinations matter here; the rows they name otherwise do not.
    old.pragma('foreign_keys = OFF');
    const at = '2026-01-01T00:00:00.000Z';
    const entry = old.prepare(
      `INSERT INTO time_entries (id, client_id, project_id, task_id, user_id, recorded_on, entered_seconds, seconds, status, created_at, updated_at)
       VALUES (?, 'c', ?, ?, ?, '2026-01-10', 60, 60, 'billed', ?, ?)`,
    );
    entry.run('e1', 'p1', 't1', 'u1', at, at);
    entry.run('e2', 'p1', 't2', 'u1', at, at);
    const invoice = old.prepare(
      `INSERT INTO invoices (id, client_id, creator_id, number, currency, issue_date, due_date, subtotal_minor, tax_minor, total_minor, public_token, created_at, updated_at)
       VALUES (?, 'c', 'u', ?, 'EUR', ?, '2026-03-31', 0, 0, 0, ?, ?, ?)`,
    );
    invoice.run('i1', 'N-1', '2026-02-01', 'token-1', at, at);
    invoice.run('i2', 'N-2', '2026-02-15', 'token-2', at, at);
    const line = old.prepare(
      `INSERT INTO invoice_lines (id, invoice_id, kind, position, time_entry_id, project_id, task_id, user_id, notes, seconds, hours, hourly_rate_minor, quantity_milli, unit_amount_minor, file, amount_minor)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    // i1: two time lines of entries that exist, and one of an entry deleted since (its combination was never kept);
    // i2: two service lines, one for a project. Inserted out of position order.
    const made = [
      ['l-a', 'i1', 'time_entry', 1, 'e2', 'p1', 't2', 'u1', '', 60, '0.0100', 9000, null, null, null, 150],
      ['l-b', 'i1', 'time_entry', 0, 'e1', 'p1', 't1', 'u1', 'first', 60, null, 9000, null, null, null, 150],
      ['l-c', 'i1', 'time_entry', 2, 'gone', 'p9', 't9', 'u9', '', 120, null, 9000, null, null, null, 300],
      ['l-d', 'i2', 'service', 0, null, 'p1', null, null, 'Design', null, null, null, 1500, 2000, null, 3000],
      ['l-e', 'i2', 'service', 1, null, null, null, null, 'Hosting', null, null, null, 1000, 500, 'x.pdf', 500],
    ] as const;
    for (const l of made) line.run(...l);
    const combosBefore = old.prepare('SELECT id, project_id, task_id, user_id, first_on, last_on FROM time_entry_combos ORDER BY id').raw().all();
    expect(combosBefore).toHaveLength(2);
    old.close();

    const handle = new WorkspaceHandle('acme', file, { synchronous: 'FULL' });
    try {
      const db = handle.sqlite;
      expect(schemaState(db).pending).toEqual([]);
      // Existing combinations keep their numbers; the one only a line knew is added, dated by its invoice.
      expect(db.prepare('SELECT id, project_id, task_id, user_id, first_on, last_on FROM time_entry_combos ORDER BY id').raw().all()).toEqual([
        ...combosBefore,
        [3, 'p9', 't9', 'u9', '2026-02-01', '2026-02-01'],
      ]);
      // Numbered in the order the lines were made; a time line keeps no project of its own.
      expect(db.prepare('SELECT id, invoice_id, position, combo_id, project_id FROM invoice_lines ORDER BY id').raw().all()).toEqual([
        [1, 'i1', 1, 2, null],
        [2, 'i1', 0, 1, null],
        [3, 'i1', 2, 3, null],
        [4, 'i2', 0, null, 'p1'],
        [5, 'i2', 1, null, null],
      ]);
      // Each line reads as it did: its ids through its combination, everything else as stored.
      const read = db
        .prepare(
          `SELECT l.invoice_id, l.kind, l.position, l.time_entry_id, coalesce(l.project_id, c.project_id), c.task_id, c.user_id, l.notes, l.seconds, l.hours,
             l.hourly_rate_minor, l.quantity_milli, l.unit_amount_minor, l.file, l.amount_minor
           FROM invoice_lines l LEFT JOIN time_entry_combos c ON c.id = l.combo_id ORDER BY l.invoice_id, l.position`,
        )
        .raw()
        .all();
      const sorted = [...made].sort((a, b) => a[1].localeCompare(b[1]) || a[3] - b[3]);
      expect(read).toEqual(sorted.map(([, ...rest]) => rest));
      expect(indexesOf(db, 'invoice_lines')).toEqual(['invoice_lines_invoice_idx']);
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      handle.close();
    }
  });

  it('migrate --check lists what is pending per workspace; migrate applies it after a backup; opening a current file changes nothing', async () => {
    const dataDir = join(root, 'cli');
    const file = oldWorkspace(dataDir, 'acme');
    const env = { DATA_DIR: dataDir };

    const check = await hourbook(env, 'migrate', '--check');
    expect(check.code).toBe(1);
    expect(check.stdout).toContain(`acme: ${LATER.length} pending: ${LATER.join(', ')}`);
    expect(check.stderr).toMatch(/pending migrations; run hourbook migrate/);
    const json = JSON.parse((await hourbook(env, 'migrate', '--check', '--json')).stdout);
    expect(json.workspaces).toEqual([{ subdomain: 'acme', schema_version: FIRST.tag, pending: LATER, newer: false }]);

    const applied = await hourbook(env, 'migrate');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain(`acme: applied ${LATER.join(', ')}`);
    const backups = readdirSync(join(dataDir, 'backups', 'pre-migrate'));
    expect(backups).toEqual([expect.stringMatching(new RegExp(`^acme-${FIRST.tag}-\\d{8}T\\d{6}Z\\.sqlite$`))]);
    // the backup is the file as it was before
    expect(stateOf(join(dataDir, 'backups', 'pre-migrate', backups[0]!)).version).toBe(FIRST.tag);
    expect(stateOf(file)).toMatchObject({ version: knownMigrations().at(-1)!.tag, pending: [], rows: knownMigrations().length });

    expect(await hourbook(env, 'migrate', '--check')).toMatchObject({ code: 0, stdout: expect.stringContaining('acme: up to date') });
    // Opening the file (any command that uses it) neither migrates again nor backs up again.
    expect((await hourbook(env, 'workspace', 'list')).stdout).toContain('acme agency');
    expect(stateOf(file).rows).toBe(knownMigrations().length);
    expect(readdirSync(join(dataDir, 'backups', 'pre-migrate'))).toHaveLength(1);
  });

  it('serve migrates every workspace at start and says not ready (503) until it has', async () => {
    const dataDir = join(root, 'serve');
    oldWorkspace(dataDir, 'alpha');
    const locked = oldWorkspace(dataDir, 'beta');
    // Another process holds beta's write lock: the start-up pass must wait for it, without blocking requests.
    const holder = new BetterSqlite3(locked);
    holder.exec('BEGIN IMMEDIATE');
    const port = await freePort();
    const server = await spawnHourbook({ DATA_DIR: dataDir, PORT: String(port) }, ['serve']);
    spawned.push(server);
    const readyz = async () => {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`);
      return { status: res.status, body: (await res.json()) as { status: string; workspaces_left?: number } };
    };
    try {
      let seen = await readyz();
      for (let i = 0; i < 200 && seen.body.status !== 'migrating'; i++) seen = await readyz();
      expect(seen).toEqual({ status: 503, body: { status: 'migrating', workspaces_left: 1 } });
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      expect(stateOf(join(dataDir, 'alpha.sqlite')).pending).toEqual([]);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    let now = await readyz();
    for (let i = 0; i < 200 && now.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 25));
      now = await readyz();
    }
    expect(now).toEqual({ status: 200, body: { status: 'ready' } });
    expect(stateOf(locked).pending).toEqual([]);
    expect(readdirSync(join(dataDir, 'backups', 'pre-migrate')).sort()).toEqual([
      expect.stringMatching(/^alpha-0000_init-/),
      expect.stringMatching(/^beta-0000_init-/),
    ]);
    expect(await server.stop()).toBe(0);
  });
});
