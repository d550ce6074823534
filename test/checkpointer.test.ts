import BetterSqlite3 from 'better-sqlite3';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { provisionWorkspace } from '../src/domain/workspace/provision.ts';
import { WorkspaceRegistry } from '../src/workspaces/registry.ts';

/**
 * WAL checkpoints on the worker thread (src/workspaces/checkpointer.ts): the commit that grows
 * the WAL no longer copies it back itself, the worker does soon after, and a workspace closed
 * (handed over for a move, evicted, shut down) never leaves the worker holding its file.
 */

const dirs: string[] = [];
const registries: WorkspaceRegistry[] = [];
afterEach(async () => {
  for (const r of registries.splice(0)) await r.closeAllAndStop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function workspace(checkpoints: boolean) {
  const dataDir = mkdtempSync(join(tmpdir(), 'hourbook-ckpt-'));
  dirs.push(dataDir);
  const registry = new WorkspaceRegistry({ dataDir, synchronous: 'FULL' });
  registries.push(registry);
  const errors: string[] = [];
  if (checkpoints) registry.startCheckpoints((file, error) => errors.push(`${file}: ${error}`));
  provisionWorkspace(registry, { subdomain: 'acme', timeZone: 'UTC', owner: { email: 'o@acme.test', firstName: 'O', lastName: 'A' } }, new Date());
  const handle = registry.get('acme')!;
  handle.sqlite.exec('CREATE TABLE IF NOT EXISTS filler (id INTEGER PRIMARY KEY, payload BLOB NOT NULL)');
  return { registry, handle, errors, file: handle.file };
}

/** About `pages` 4 KB pages of new rows, committed at once. */
const fill = (sqlite: BetterSqlite3.Database, pages: number) =>
  sqlite.transaction(() => {
    const insert = sqlite.prepare('INSERT INTO filler (payload) VALUES (randomblob(3500))');
    for (let i = 0; i < pages; i++) insert.run();
  })();

async function until(condition: () => boolean, ms = 5000, every = 20): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, every));
  }
}

const MB = 1024 * 1024;

describe('background checkpoints', () => {
  it('without them, the commit that takes the WAL over 1,000 pages copies it into the file itself', () => {
    const { handle, file } = workspace(false);
    fill(handle.sqlite, 2000);
    expect(statSync(file).size).toBeGreaterThan(7 * MB);
  });

  it('with them, the commit leaves the pages in the WAL and the worker copies them soon after', async () => {
    const { handle, file, errors } = workspace(true);
    const before = statSync(file).size;
    fill(handle.sqlite, 2000);
    expect(statSync(file).size).toBeLessThan(before + MB);
    await until(() => statSync(file).size > 7 * MB);
    // Every row is there, read through the workspace's own connection and through a new one.
    expect(handle.sqlite.prepare('SELECT count(*) FROM filler').pluck().get()).toBe(2000);
    const reader = new BetterSqlite3(file, { readonly: true });
    try {
      expect(reader.prepare('SELECT count(*) FROM filler').pluck().get()).toBe(2000);
      expect(reader.pragma('quick_check', { simple: true })).toBe('ok');
    } finally {
      reader.close();
    }
    expect(errors).toEqual([]);
  });

  it('a workspace closed while the worker checkpoints it waits for the worker, and ends as one self-contained file', async () => {
    const { registry, file, errors } = workspace(true);
    for (let round = 0; round < 3; round++) {
      const before = statSync(file).size;
      fill(registry.get('acme')!.sqlite, 3500);
      // The worker has begun copying pages into the file: close now, in the middle of it.
      await until(() => statSync(file).size > before, 5000, 1);
      await registry.handOver('acme', 'test');
      // The closing connection was the last one, so it folded the WAL in and removed it; had the
      // worker still held the file, the WAL would have stayed.
      expect(existsSync(`${file}-wal`)).toBe(false);
      registry.resume('acme');
    }
    const check = new BetterSqlite3(file, { readonly: true });
    try {
      expect(check.prepare('SELECT count(*) FROM filler').pluck().get()).toBe(3 * 3500);
      expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      check.close();
    }
    expect(errors).toEqual([]);
  });
});
