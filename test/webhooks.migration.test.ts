import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { afterAll, expect, it } from 'vitest';
import { WorkspaceHandle } from '../src/workspaces/handle.ts';
import { knownMigrations, MIGRATIONS_FOLDER, schemaState } from '../src/workspaces/migrate.ts';

const root = mkdtempSync(join(tmpdir(), 'hourbook-webhooks-migrate-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A workspace file at the schema just before migration `tag` (what the hourbook before it left). */
function fileBefore(tag: string): BetterSqlite3.Database & { file: string } {
  const count = knownMigrations().findIndex((m) => m.tag === tag);
  expect(count).toBeGreaterThan(0);
  const dir = join(root, 'migrations');
  mkdirSync(join(dir, 'meta'), { recursive: true });
  for (const m of knownMigrations().slice(0, count)) copyFileSync(join(MIGRATIONS_FOLDER, `${m.tag}.sql`), join(dir, `${m.tag}.sql`));
  const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8'));
  writeFileSync(join(dir, 'meta', '_journal.json'), JSON.stringify({ ...journal, entries: journal.entries.slice(0, count) }));
  const file = join(root, 'acme.sqlite');
  const db = new BetterSqlite3(file);
  db.pragma('journal_mode = WAL');
  migrate(drizzle(db), { migrationsFolder: dir });
  return Object.assign(db, { file });
}

it('0013 starts each endpoint after the events the old rule (created before the endpoint) kept from it', () => {
  const old = fileBefore('0013_endpoint_enabled_after_event');
  const event = old.prepare("INSERT INTO events (id, type, data, created_at) VALUES (?, 'client.created', '{}', ?)");
  for (const [n, at] of [[1, '01'], [2, '02'], [3, '03'], [4, '04'], [5, '05']] as const) event.run(`evt_${n}`, `2026-01-${at}T00:00:00.000Z`);
  old.prepare('INSERT INTO webhook_fanout (id, last_event_rowid) VALUES (1, 2)').run();
  const endpoint = old.prepare("INSERT INTO webhook_endpoints (id, url, event_types, secret, enabled, created_at, updated_at) VALUES (?, 'http://x.test/', '[\"*\"]', 'plain:x', ?, ?, ?)");
  endpoint.run('long-ago', 1, '2025-06-01T00:00:00.000Z', '2025-06-01T00:00:00.000Z'); // every event not read yet is its
  endpoint.run('after-3', 1, '2026-01-03T12:00:00.000Z', '2026-01-03T12:00:00.000Z'); // events 4 and 5 are its
  endpoint.run('after-5', 0, '2026-02-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z');
  old.close();

  const handle = new WorkspaceHandle('acme', old.file, { synchronous: 'FULL' });
  try {
    expect(schemaState(handle.sqlite).pending).toEqual([]);
    expect(handle.sqlite.prepare('SELECT id, enabled_after_event FROM webhook_endpoints ORDER BY created_at').raw().all()).toEqual([
      ['long-ago', 2],
      ['after-3', 3],
      ['after-5', 5],
    ]);
  } finally {
    handle.close();
  }
});
