import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyConsistent, copyWithWal, whileFrozen } from '../src/workspaces/backup.ts';

/**
 * Copies taken byte for byte from a file that another process writes and checkpoints all the
 * time. Every transaction of the writer adds a row to `ledger` and the same amount to `total`,
 * and rewrites rows all over `filler`, so a copy that mixes two moments of the file shows it: a
 * sum that differs from the total, or a failed integrity check.
 */
const WRITER = `
const Database = require('better-sqlite3');
const db = new Database(process.argv[1]);
db.pragma('busy_timeout = 5000');
db.pragma('wal_autocheckpoint = 1');
const add = db.prepare('INSERT INTO ledger (amount) VALUES (?)');
const total = db.prepare('UPDATE total SET sum = sum + ?');
const touch = db.prepare('UPDATE filler SET pad = randomblob(2000) WHERE id = ?');
const rows = db.prepare('SELECT count(*) AS n FROM filler').get().n;
const tx = db.transaction((amount) => { add.run(amount); total.run(amount); for (let i = 0; i < 8; i++) touch.run(1 + Math.floor(Math.random() * rows)); });
process.send('ready');
// As a busy server does, with a moment between commits (its group commits sync the WAL meanwhile).
const pause = new Int32Array(new SharedArrayBuffer(4));
for (;;) { tx(1 + Math.floor(Math.random() * 100)); Atomics.wait(pause, 0, 0, 0.2); }
`;

function consistency(file: string) {
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    return {
      integrity: db.pragma('integrity_check', { simple: true }),
      ledger: (db.prepare('SELECT coalesce(sum(amount), 0) AS s, count(*) AS n FROM ledger').get() as { s: number; n: number }),
      total: (db.prepare('SELECT sum FROM total').get() as { sum: number }).sum,
    };
  } finally {
    db.close();
  }
}

/**
 * A copy in 64 KiB pieces with a pause between them, so the writer commits and checkpoints many
 * times during it; of the bytes the file had when it began (a WAL that grows faster than this
 * copies would never end).
 */
async function slowCopy(from: string, to: string): Promise<void> {
  const source = openSync(from, 'r');
  const target = openSync(to, 'w');
  const buffer = Buffer.alloc(64 * 1024);
  const size = statSync(from).size;
  try {
    for (let at = 0, n; at < size && (n = readSync(source, buffer, 0, Math.min(buffer.length, size - at), at)) > 0; at += n) {
      writeSync(target, buffer, 0, n);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  } finally {
    closeSync(source);
    closeSync(target);
  }
}

describe('consistent byte-for-byte copies of a file another process writes and checkpoints', () => {
  let dir: string;
  let file: string;
  let writer: ChildProcess;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hourbook-frozen-'));
    file = join(dir, 'live.sqlite');
    const db = new BetterSqlite3(file);
    db.pragma('page_size = 8192');
    db.pragma('journal_mode = WAL');
    db.exec(`CREATE TABLE ledger (id INTEGER PRIMARY KEY, amount INTEGER NOT NULL);
      CREATE TABLE total (sum INTEGER NOT NULL); INSERT INTO total VALUES (0);
      CREATE TABLE filler (id INTEGER PRIMARY KEY, pad BLOB NOT NULL);
      WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000) INSERT INTO filler (pad) SELECT randomblob(2000) FROM c;`);
    db.close();
    writer = spawn(process.execPath, ['-e', WRITER, file], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    await new Promise((resolve) => writer.once('message', resolve));
  });

  afterAll(() => {
    writer?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('while frozen, a slow copy of the file is one moment of it, and the writer keeps committing', async () => {
    const seen: number[] = [];
    for (let round = 0; round < 3; round++) {
      const copy = join(dir, `slow-${round}.sqlite`);
      expect(await whileFrozen(file, () => slowCopy(file, copy))).toBe(true);
      const got = consistency(copy);
      expect(got.integrity).toBe('ok');
      expect(got.ledger.s).toBe(got.total);
      seen.push(got.ledger.n);
    }
    // The writer went on during the copies: each later copy holds more of its transactions.
    expect(seen[1]!).toBeGreaterThan(seen[0]!);
    expect(seen[2]!).toBeGreaterThan(seen[1]!);
  });

  it('copyConsistent leaves a self-contained, consistent copy (rollback journal, no -wal)', async () => {
    for (let round = 0; round < 5; round++) {
      const copy = join(dir, `copy-${round}.sqlite`);
      expect(await copyConsistent(file, copy)).toBe('frozen');
      const got = consistency(copy);
      expect(got.integrity).toBe('ok');
      expect(got.ledger.s).toBe(got.total);
      const header = Buffer.alloc(2);
      const fd = openSync(copy, 'r');
      readSync(fd, header, 0, 2, 18);
      closeSync(fd);
      // Bytes 18-19 of the header are 1 for a rollback journal, 2 for WAL; read, it made no -wal.
      expect([...header]).toEqual([1, 1]);
      expect(existsSync(copy + '-wal')).toBe(false);
    }
  });

  it('a reader that keeps part of the WAL out of the file (as Litestream does) makes it give up within a second; the copy is then made with its WAL', async () => {
    const pinned = join(dir, 'pinned.sqlite');
    const db = new BetterSqlite3(pinned);
    db.pragma('journal_mode = WAL');
    db.pragma('wal_autocheckpoint = 0');
    db.exec('CREATE TABLE t (n INTEGER); INSERT INTO t VALUES (1)');
    const reader = new BetterSqlite3(pinned, { readonly: true });
    reader.exec('BEGIN');
    reader.prepare('SELECT count(*) FROM t').get();
    db.exec('INSERT INTO t VALUES (2)');
    try {
      const started = performance.now();
      expect(await whileFrozen(pinned, async () => undefined)).toBe(false);
      expect(performance.now() - started).toBeLessThan(1500);
      const copy = join(dir, 'pinned-copy.sqlite');
      expect(await copyConsistent(pinned, copy)).toBe('with its WAL');
      const check = new BetterSqlite3(copy, { readonly: true });
      expect(check.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 2 });
      check.close();
    } finally {
      reader.exec('COMMIT');
      reader.close();
      db.close();
    }
  });

  it('a copy with its WAL is one moment of the file, with or without a long reader keeping part of the WAL out of it, while the writer commits and checkpoints', async () => {
    const seen: number[] = [];
    // The file copied slowly (the writer's checkpoints write into it meanwhile), its WAL after it as `cp` would.
    const copyBytes = (from: string, to: string) => (from.endsWith('-wal') ? copyFile(from, to) : slowCopy(from, to));
    for (const pinnedBy of [null, 'litestream', null, 'litestream'] as const) {
      // As Litestream does: a read transaction held throughout, so checkpoints stop at its snapshot.
      const pin = pinnedBy ? new BetterSqlite3(file, { readonly: true }) : null;
      pin?.exec('BEGIN');
      pin?.prepare('SELECT count(*) FROM ledger').get();
      try {
        const copy = join(dir, `wal-${seen.length}.sqlite`);
        const image = await copyWithWal(file, copy, copyBytes);
        expect(existsSync(`${copy}-wal`)).toBe(false);
        const got = consistency(copy);
        expect(got.integrity, pinnedBy ?? 'no long reader').toBe('ok');
        expect(got.ledger.s).toBe(got.total);
        expect(image.pageCount * image.pageSize).toBe(statSync(copy).size);
        seen.push(got.ledger.n);
      } finally {
        pin?.exec('COMMIT');
        pin?.close();
      }
    }
    // Each copy is of a later moment than the one before: the writer went on throughout.
    for (let i = 1; i < seen.length; i++) expect(seen[i]!).toBeGreaterThan(seen[i - 1]!);
  });
});

describe('a copy with its WAL, when the WAL starts over while it is copied', () => {
  it('is the snapshot it began on: the file alone, since the WAL was wholly in it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hourbook-wal-restart-'));
    const file = join(dir, 'live.sqlite');
    const db = new BetterSqlite3(file);
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('wal_autocheckpoint = 0');
      db.exec('CREATE TABLE acct (id INTEGER PRIMARY KEY, bal INTEGER NOT NULL, pad BLOB); CREATE TABLE filler (x BLOB)');
      for (let id = 1; id <= 3; id++) db.prepare('INSERT INTO acct VALUES (?, 100, zeroblob(3000))').run(id);
      db.pragma('wal_checkpoint(TRUNCATE)');
      const transfer = db.transaction((from: number, to: number) => {
        db.prepare('UPDATE acct SET bal = bal - 1 WHERE id = ?').run(from);
        db.prepare('UPDATE acct SET bal = bal + 1 WHERE id = ?').run(to);
      });
      transfer(1, 2);
      transfer(2, 3);
      // The WAL is wholly in the file (and kept): a reader begun now reads the file alone.
      db.pragma('wal_checkpoint(PASSIVE)');
      const pageSize = db.pragma('page_size', { simple: true }) as number;
      const copyBytes = async (from: string, to: string) => {
        if (!from.endsWith('-wal')) return copyFile(from, to);
        // Half the WAL is copied, then a commit starts it over, then the rest is copied.
        const source = openSync(from, 'r');
        const target = openSync(to, 'w');
        const buffer = Buffer.alloc(1 << 20);
        try {
          let at = readSync(source, buffer, 0, 32 + 2 * (24 + pageSize), 0);
          writeSync(target, buffer, 0, at);
          db.transaction(() => {
            for (let i = 0; i < 20; i++) db.prepare('INSERT INTO filler VALUES (zeroblob(3000))').run();
          })();
          for (let n; (n = readSync(source, buffer, 0, buffer.length, at)) > 0; at += n) writeSync(target, buffer, 0, n);
        } finally {
          closeSync(source);
          closeSync(target);
        }
      };
      const copy = join(dir, 'copy.sqlite');
      await copyWithWal(file, copy, copyBytes);
      const got = new BetterSqlite3(copy, { readonly: true });
      try {
        expect(got.pragma('integrity_check', { simple: true })).toBe('ok');
        expect(got.prepare('SELECT id, bal FROM acct ORDER BY id').all()).toEqual([
          { id: 1, bal: 99 },
          { id: 2, bal: 100 },
          { id: 3, bal: 101 },
        ]);
        expect(got.prepare('SELECT count(*) AS n FROM filler').get()).toEqual({ n: 0 });
      } finally {
        got.close();
      }
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
