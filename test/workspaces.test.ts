import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { subdomainFromHost } from '../src/workspaces/host.ts';
import BetterSqlite3 from 'better-sqlite3';
import { backstopPages } from '../src/workspaces/checkpointer.ts';
import { PAGE_SIZE } from '../src/workspaces/handle.ts';
import { WorkspaceRegistry } from '../src/workspaces/registry.ts';
import { provisionWorkspace } from '../src/domain/workspace/provision.ts';
import { createApiKey, revokeApiKey, verifyApiKey } from '../src/workspaces/keys.ts';
import { apiKeys } from '../src/db/schema/index.ts';

describe('subdomainFromHost', () => {
  it.each([
    ['acme.localhost', 'acme'],
    ['acme.localhost:3000', 'acme'],
    ['ACME.LocalHost', 'acme'],
    ['a-b-1.localhost', 'a-b-1'],
    ['acme.localhost.', 'acme'],
  ])('%s → %s', (host, expected) => {
    expect(subdomainFromHost(host, 'localhost')).toBe(expected);
  });

  it.each(['localhost', '..', '...localhost', '..localhost', 'a_b.localhost', 'x.evil.com', 'a.b.localhost', '-a.localhost', 'a-.localhost', '', 'acme.localhost.evil.com', '../etc.localhost', `${'a'.repeat(64)}.localhost`])(
    'rejects %j',
    (host) => {
      expect(subdomainFromHost(host, 'localhost')).toBeNull();
    },
  );

  it('uses the configured base domain', () => {
    expect(subdomainFromHost('acme.hourbook.example.com', 'hourbook.example.com')).toBe('acme');
    expect(subdomainFromHost('acme.localhost', 'hourbook.example.com')).toBeNull();
  });
});

describe('WorkspaceRegistry', () => {
  const dirs: string[] = [];
  const registry = (maxOpen = 2) => {
    const dir = mkdtempSync(join(tmpdir(), 'hourbook-reg-'));
    dirs.push(dir);
    return new WorkspaceRegistry({ dataDir: dir, synchronous: 'NORMAL', maxOpen });
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const owner = { email: 'o@x.test', firstName: 'O', lastName: 'X' };

  it('creates migrated files with WAL and foreign keys on, and lists them', () => {
    const reg = registry();
    provisionWorkspace(reg, { subdomain: 'one', timeZone: 'UTC', owner }, new Date());
    const handle = reg.get('one')!;
    expect(handle.sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(handle.sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(handle.sqlite.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(handle.sqlite.pragma('synchronous', { simple: true })).toBe(1); // NORMAL
    expect(handle.sqlite.pragma('page_size', { simple: true })).toBe(PAGE_SIZE);
    expect(PAGE_SIZE).toBe(8192);
    const tables = handle.sqlite.prepare("select name from sqlite_master where type='table'").all() as { name: string }[];
    expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(['workspace', 'team_members', 'time_entries', 'invoices', 'outbox']));
    expect(reg.list()).toEqual(['one']);
    reg.closeAll();
  });

  it('opens a file made with another page size as it is: its page size and its backstop in pages are its own', () => {
    const reg = registry();
    const file = reg.fileFor('old');
    const made = new BetterSqlite3(file);
    made.pragma('page_size = 4096');
    made.exec('CREATE TABLE t (x)');
    made.close();
    const handle = reg.get('old')!;
    expect(handle.sqlite.pragma('page_size', { simple: true })).toBe(4096);
    expect(handle.sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
    handle.useCheckpointer({ waitFor: () => {} });
    expect(handle.sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(backstopPages(4096));
    expect(backstopPages(4096)).toBe(2 * backstopPages(8192));
    reg.closeAll();
  });

  it('never touches the disk for an invalid label and answers null for a missing workspace', () => {
    const reg = registry();
    expect(reg.get('../evil')).toBeNull();
    expect(reg.get('a_b')).toBeNull();
    expect(reg.get('missing')).toBeNull();
    expect(readdirSync(reg.dataDir)).toEqual([]);
  });

  it('keeps at most maxOpen idle handles open, least recently used closed first, busy ones never', async () => {
    const reg = registry(2);
    for (const s of ['a', 'b', 'c']) provisionWorkspace(reg, { subdomain: s, timeZone: 'UTC', owner }, new Date());
    const a = reg.get('a')!;
    // a is in use across an await while b and c are opened
    await reg.using(a, async () => {
      const b = reg.get('b')!;
      const c = reg.get('c')!;
      await new Promise((r) => setTimeout(r, 5));
      expect(a.sqlite.open).toBe(true);
      expect(b.sqlite.open || c.sqlite.open).toBe(true);
    });
    const open = ['a', 'b', 'c'].map((s) => reg.get(s)!).filter((h) => h.sqlite.open);
    expect(open.length).toBeGreaterThan(0);
    reg.closeAll();
  });

  it('creates nothing for a bad owner e-mail or time zone', () => {
    const reg = registry();
    expect(() => provisionWorkspace(reg, { subdomain: 'bad', timeZone: 'UTC', owner: { ...owner, email: '' } }, new Date())).toThrow();
    expect(existsSync(join(reg.dataDir, 'bad.sqlite'))).toBe(false);
    expect(() => provisionWorkspace(reg, { subdomain: 'bad', timeZone: 'Mars/Base', owner }, new Date())).toThrow();
    expect(reg.exists('bad')).toBe(false);
  });

  it('refuses an existing or invalid subdomain', () => {
    const reg = registry();
    provisionWorkspace(reg, { subdomain: 'dup', timeZone: 'UTC', owner }, new Date());
    expect(() => provisionWorkspace(reg, { subdomain: 'dup', timeZone: 'UTC', owner }, new Date())).toThrow(/already exists/);
    expect(() => provisionWorkspace(reg, { subdomain: 'Bad_Name', timeZone: 'UTC', owner }, new Date())).toThrow(/not a valid subdomain/);
    reg.closeAll();
  });
});

describe('API keys', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hourbook-keys-'));
  const reg = new WorkspaceRegistry({ dataDir: dir, synchronous: 'NORMAL' });
  const now = new Date('2026-11-21T12:00:00Z');
  const { apiKey } = provisionWorkspace(reg, { subdomain: 'k', timeZone: 'UTC', owner: { email: 'o@k.test', firstName: 'O', lastName: 'K' } }, now);
  const handle = reg.get('k')!;
  const verify = (key: string | undefined, at = now) => verifyApiKey(handle.db, (b) => handle.memo(b), key, at);

  it('stores only a SHA-256 hash', () => {
    const rows = handle.db.select().from(apiKeys).all();
    expect(rows.some((r) => r.keyHash.includes(apiKey) || apiKey.includes(r.keyHash))).toBe(false);
    expect(rows[0]!.keyHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('accepts the key, refuses others, and records last use at most once a minute', () => {
    expect(verify(apiKey)).not.toBeNull();
    expect(verify(apiKey.slice(0, -1) + (apiKey.endsWith('A') ? 'B' : 'A'))).toBeNull();
    expect(verify(undefined)).toBeNull();
    expect(verify('')).toBeNull();
    const used = handle.db.select().from(apiKeys).all()[0]!.lastUsedAt;
    expect(used).toBe(now.toISOString());
    verify(apiKey, new Date(now.getTime() + 30_000));
    expect(handle.db.select().from(apiKeys).all()[0]!.lastUsedAt).toBe(used);
    verify(apiKey, new Date(now.getTime() + 61_000));
    expect(handle.db.select().from(apiKeys).all()[0]!.lastUsedAt).not.toBe(used);
  });

  it('refuses a revoked key', () => {
    const k = createApiKey(handle.db, { label: 'tmp', now });
    expect(verify(k.apiKey)).not.toBeNull();
    expect(revokeApiKey(handle.db, k.id, now)).toBe(true);
    expect(verify(k.apiKey)).toBeNull();
    expect(revokeApiKey(handle.db, k.id, now)).toBe(false);
  });

  it('refuses an expired key from its expiry on', () => {
    const k = createApiKey(handle.db, { label: 'exp', expiresAt: '2026-11-22T00:00:00.000Z', now });
    expect(verify(k.apiKey, new Date('2026-11-21T23:59:59Z'))).not.toBeNull();
    expect(verify(k.apiKey, new Date('2026-11-22T00:00:00Z'))).toBeNull();
  });
});
