import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clients } from '../src/db/schema/index.ts';
import { provisionWorkspace } from '../src/domain/workspace/provision.ts';
import { openWorkspaceScope } from '../src/services.ts';
import { CommitGroup } from '../src/workspaces/commit-group.ts';
import { WorkspaceRegistry } from '../src/workspaces/registry.ts';
import type { WalSync } from '../src/workspaces/wal-sync.ts';
import { startTestEnv, type TestEnv } from './helpers/env.ts';
import { makeClient, makeProjectSetup } from './helpers/factories.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv();
});
afterAll(() => env.close());

const clientRow = (id: string, name: string) => ({ id, name, identifier: name.toUpperCase(), currency: 'USD', defaultInvoiceDueInDays: 30, createdAt: '2026-11-18T10:00:00.000Z', updatedAt: '2026-11-18T10:00:00.000Z' });

describe('group commit (one workspace connection)', () => {
  it('writes of one moment share a commit: a failing one rolls back alone, nothing is visible to another connection before the commit', async () => {
    const { handle } = env.workspace('grouped');
    const shared = () => openWorkspaceScope(env.services, handle, { shareCommit: true });
    const [a, b, c] = [shared(), shared(), shared()];
    a.scope.write((tx) => tx.insert(clients).values(clientRow('a0000000-0000-4000-8000-000000000001', 'Alpha')).run());
    expect(() =>
      b.scope.write((tx) => {
        tx.insert(clients).values(clientRow('b0000000-0000-4000-8000-000000000002', 'Bravo')).run();
        throw new Error('refused after writing');
      }),
    ).toThrow('refused after writing');
    c.scope.write((tx) => tx.insert(clients).values(clientRow('c0000000-0000-4000-8000-000000000003', 'Charlie')).run());

    // Another connection to the same file sees nothing yet: the shared transaction is still open.
    const other = new BetterSqlite3(handle.file, { readonly: true });
    try {
      const names = () => other.prepare('select name from clients order by name').pluck().all();
      expect(names()).toEqual([]);
      await Promise.all([a.durable(), c.durable()]);
      expect(names()).toEqual(['Alpha', 'Charlie']);
    } finally {
      other.close();
    }
  });

  it('a commit that fails fails every write of its group, and none of them stays', async () => {
    const { handle } = env.workspace('failing');
    const shared = () => openWorkspaceScope(env.services, handle, { shareCommit: true });
    const [good, bad] = [shared(), shared()];
    good.scope.write((tx) => tx.insert(clients).values(clientRow('d0000000-0000-4000-8000-000000000004', 'Good')).run());
    // A foreign key checked only at COMMIT (deferred) makes the shared COMMIT itself fail.
    bad.scope.write((tx) => {
      tx.run(sql`PRAGMA defer_foreign_keys = ON`);
      tx.run(sql`INSERT INTO projects (id, client_id, name, identifier, billing_method, currency, created_at, updated_at)
                 VALUES ('e0000000-0000-4000-8000-000000000005', 'no-such-client', 'Dangling', 'DANGLING', 'hourly_project_rate', 'USD', 'x', 'x')`);
    });
    await expect(good.durable()).rejects.toThrow(/FOREIGN KEY/);
    await expect(bad.durable()).rejects.toThrow(/FOREIGN KEY/);
    expect(handle.db.select().from(clients).all()).toEqual([]);
    // The connection is usable again: the next write commits.
    const next = shared();
    next.scope.write((tx) => tx.insert(clients).values(clientRow('f0000000-0000-4000-8000-000000000006', 'After')).run());
    await next.durable();
    expect(handle.db.select({ name: clients.name }).from(clients).all()).toEqual([{ name: 'After' }]);
  });

  it('a job or the command line writing meanwhile commits the open group first and then its own write at once', async () => {
    const { handle } = env.workspace('solo');
    const request = openWorkspaceScope(env.services, handle, { shareCommit: true });
    request.scope.write((tx) => tx.insert(clients).values(clientRow('a1000000-0000-4000-8000-000000000001', 'Request')).run());
    const job = openWorkspaceScope(env.services, handle);
    job.scope.write((tx) => tx.insert(clients).values(clientRow('a2000000-0000-4000-8000-000000000002', 'Job')).run());
    const other = new BetterSqlite3(handle.file, { readonly: true });
    try {
      expect(other.prepare('select count(*) from clients').pluck().get()).toBe(2);
    } finally {
      other.close();
    }
    await request.durable();
  });

  // SQLite unlinks a temporary file as soon as it opens it; the open descriptor is what shows it.
  it.skipIf(process.platform !== 'linux')('a write of a shared commit keeps its savepoint journal in memory: no temporary file is opened', async () => {
    const { handle } = env.workspace('journal');
    const rows = Array.from({ length: 3000 }, (_, n) => clientRow(`00000000-0000-4000-8000-${String(n).padStart(12, '0')}`, `Client ${n}`));
    for (let n = 0; n < rows.length; n += 200) handle.db.insert(clients).values(rows.slice(n, n + 200)).run(); // about 60 pages, committed before the group
    const temporaryFiles = () =>
      readdirSync('/proc/self/fd').flatMap((fd) => {
        try {
          return [readlinkSync(`/proc/self/fd/${fd}`)];
        } catch {
          return []; // closed since it was listed
        }
      }).filter((target) => /etilqs_/.test(target));
    const before = temporaryFiles();
    const request = openWorkspaceScope(env.services, handle, { shareCommit: true });
    // Every page of the table changes inside the write's savepoint: each one's old copy is journaled.
    request.scope.write((tx) => tx.run(sql`UPDATE clients SET internal_notes = 'seen in the savepoint'`));
    expect(handle.sqlite.inTransaction).toBe(true);
    expect(temporaryFiles()).toEqual(before);
    await request.durable();
    expect(handle.db.select({ notes: clients.internalNotes }).from(clients).all().every((c) => c.notes === 'seen in the savepoint')).toBe(true);
  });
});

describe('the shared commit under synchronous = FULL', () => {
  /** A WAL sync the test settles by hand, so it can look at the group while the sync runs. */
  function heldSync() {
    const calls: { resolve: () => void; reject: (err: unknown) => void }[] = [];
    const wal = {
      sync: () => new Promise<void>((resolve, reject) => calls.push({ resolve, reject })),
      syncNow: () => {},
      close: () => {},
    };
    return { wal: wal as unknown as WalSync, calls };
  }

  function fileWithTable() {
    const dir = mkdtempSync(join(tmpdir(), 'hourbook-walsync-'));
    const sqlite = new BetterSqlite3(join(dir, 'w.sqlite'));
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = FULL');
    sqlite.exec('CREATE TABLE t (v INTEGER)');
    return { sqlite, close: () => (sqlite.close(), rmSync(dir, { recursive: true, force: true })) };
  }

  const settled = async (p: Promise<void>) => {
    let state = 'pending';
    p.then(
      () => (state = 'resolved'),
      () => (state = 'rejected'),
    );
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    return state;
  };

  it('commits without syncing inside COMMIT, answers its writers only once the WAL sync returned, and syncs as configured again', async () => {
    const { sqlite, close } = fileWithTable();
    const { wal, calls } = heldSync();
    const group = new CommitGroup(sqlite, 0, wal);
    try {
      const committed = group.join();
      expect(sqlite.pragma('synchronous', { simple: true })).toBe(1); // NORMAL while the group is open
      sqlite.prepare('INSERT INTO t VALUES (1)').run();
      expect(await settled(committed)).toBe('pending');
      expect(calls).toHaveLength(1); // committed (setImmediate) and syncing
      expect(sqlite.inTransaction).toBe(false);
      expect(sqlite.pragma('synchronous', { simple: true })).toBe(2); // FULL for every other commit
      // a reader of the committed row waits for the same sync, and so does a job about to send mail
      const reader = group.pending();
      expect(await settled(reader)).toBe('pending');
      const sender = group.synced();
      expect(await settled(sender)).toBe('pending');
      // the next group commits while the first one's sync still runs
      const next = group.join();
      sqlite.prepare('INSERT INTO t VALUES (2)').run();
      expect(await settled(next)).toBe('pending');
      expect(calls).toHaveLength(2);
      calls[0]!.resolve();
      expect(await settled(committed)).toBe('resolved');
      expect(await settled(reader)).toBe('resolved');
      expect(await settled(next)).toBe('pending');
      expect(await settled(sender)).toBe('resolved');
      expect(await settled(group.synced())).toBe('pending'); // the second group's sync runs
      calls[1]!.resolve();
      expect(await settled(next)).toBe('resolved');
      expect(await settled(group.pending())).toBe('resolved');
      expect(await settled(group.synced())).toBe('resolved');
    } finally {
      close();
    }
  });

  it('a failed sync fails every writer of its group', async () => {
    const { sqlite, close } = fileWithTable();
    const { wal, calls } = heldSync();
    const group = new CommitGroup(sqlite, 0, wal);
    try {
      const [a, b] = [group.join(), group.join()];
      sqlite.prepare('INSERT INTO t VALUES (1)').run();
      await settled(a);
      calls[0]!.reject(new Error('EIO: i/o error, fsync'));
      await expect(a).rejects.toThrow('EIO');
      await expect(b).rejects.toThrow('EIO');
      // Nothing is sent out for those writes until a later commit syncs.
      await expect(group.synced()).rejects.toThrow('EIO');
      const c = group.join();
      sqlite.prepare('INSERT INTO t VALUES (2)').run();
      await settled(c);
      calls[1]!.resolve();
      await c;
      await expect(group.synced()).resolves.toBeUndefined();
    } finally {
      close();
    }
  });

  it('a workspace opened with FULL answers a shared commit once fsync of its WAL returned', async () => {
    const { handle } = env.workspace('synced');
    expect(handle.sqlite.pragma('synchronous', { simple: true })).toBe(2);
    const before = handle.walSyncs;
    const writes = Array.from({ length: 3 }, (_, i) => {
      const open = openWorkspaceScope(env.services, handle, { shareCommit: true });
      open.scope.write((tx) => tx.insert(clients).values(clientRow(`a900000${i}-0000-4000-8000-000000000001`, `Synced ${i}`)).run());
      return open.durable();
    });
    expect(handle.walSyncs).toBe(before); // nothing synced before the group commits
    await Promise.all(writes);
    expect(handle.walSyncs).toBe(before + 1); // one sync for the three writes, returned before they were answered
    const other = new BetterSqlite3(handle.file, { readonly: true });
    try {
      expect(other.prepare("select count(*) from clients where name like 'Synced %'").pluck().get()).toBe(3);
    } finally {
      other.close();
    }
    expect(handle.sqlite.pragma('synchronous', { simple: true })).toBe(2);
  });
});

describe('group commit through the API', () => {
  it('200 parallel creates for one user-day: the 24-hour rule holds exactly and the stored order follows the answers', async () => {
    const s = makeProjectSetup(env.alpha.handle.db);
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        env.alpha.api.post('/api/external/v2/time-entries', {
          client_id: s.client.id,
          project_id: s.project.id,
          task_id: s.task.id,
          email: s.member.email,
          recorded_on: '2026-11-16',
          hours: '0.25',
          notes: `n${i}`,
        }),
      ),
    );
    const created = results.filter((r) => r.status === 201);
    expect(created).toHaveLength(96);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(104);
    expect(new Set(refused.map((r) => `${r.status} ${r.body.code}`))).toEqual(new Set(['422 daily_limit_exceeded']));
    const rows = env.alpha.handle.sqlite.prepare('select id, seconds, created_at from time_entries where user_id = ? order by rowid').all(s.member.id) as { id: string; seconds: number; created_at: string }[];
    expect(rows.reduce((sum, r) => sum + r.seconds, 0)).toBe(24 * 3600);
    expect(new Set(rows.map((r) => r.id))).toEqual(new Set(created.map((r) => r.body.id)));
    const times = rows.map((r) => r.created_at);
    expect(times).toEqual([...times].sort());
  });
});

describe('group commit and a crash', () => {
  const BIN = fileURLToPath(new URL('../bin/hourbook.js', import.meta.url));
  const dataDir = mkdtempSync(join(tmpdir(), 'hourbook-crash-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  // Commits are held open 40 ms, so a server that answered before its commit would lose acknowledged
  // entries to almost any kill.
  it('kill -9 under steady concurrent writes loses no acknowledged entry', async () => {
    const registry = new WorkspaceRegistry({ dataDir, synchronous: 'FULL' });
    const { apiKey } = provisionWorkspace(registry, { subdomain: 'crash', timeZone: 'UTC', owner: { email: 'o@crash.test', firstName: 'O', lastName: 'C' } }, new Date());
    const handle = registry.get('crash')!;
    const s = makeProjectSetup(handle.db);
    makeClient(handle.db);
    registry.closeAll();

    const port = 20000 + Math.floor(Math.random() * 20000);
    const child = spawn(process.execPath, [BIN, 'serve'], { env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'silent', SQLITE_SYNCHRONOUS: 'FULL', COMMIT_DELAY_MS: '40' } });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    for (let i = 0; i < 400 && !output.includes('listening'); i++) await new Promise((r) => setTimeout(r, 50));
    expect(output).toContain('listening');

    const acknowledged: string[] = [];
    let sent = 0;
    const post = (i: number) =>
      new Promise<void>((resolve) => {
        const body = JSON.stringify({ client_id: s.client.id, project_id: s.project.id, task_id: s.task.id, email: s.member.email, recorded_on: `2026-0${1 + (i % 9)}-${String(1 + (Math.floor(i / 9) % 28)).padStart(2, '0')}`, hours: '0.25' });
        const req = request(
          { host: '127.0.0.1', port, method: 'POST', path: '/api/external/v2/time-entries', headers: { host: 'crash.localhost', 'x-api-key': apiKey, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
          (res) => {
            let text = '';
            res.on('data', (d: Buffer) => (text += d.toString()));
            res.on('end', () => {
              if (res.statusCode === 201) acknowledged.push((JSON.parse(text) as { id: string }).id);
              resolve();
            });
            res.on('error', () => resolve());
          },
        );
        req.on('error', () => resolve());
        req.end(body);
      });
    let crashed = false;
    const writer = async () => {
      while (!crashed) await post(sent++);
    };
    const writers = Array.from({ length: 20 }, writer);
    while (acknowledged.length < 300) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGKILL');
    crashed = true;
    await exited;
    await Promise.all(writers);

    const db = new BetterSqlite3(join(dataDir, 'crash.sqlite'));
    try {
      const stored = new Set(db.prepare('select id from time_entries').pluck().all() as string[]);
      const lost = acknowledged.filter((id) => !stored.has(id));
      expect(lost).toEqual([]);
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
  }, 60_000);
});
