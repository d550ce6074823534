import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { provisionWorkspace } from '../src/domain/workspace/provision.ts';
import { adminCall, requestChangedPages, type NodeAddress } from '../src/ops/node-client.ts';
import { applyChangedPages, PAGE_COUNT, PAGES_SHA256 } from '../src/ops/page-diff.ts';
import { PreparedCopies } from '../src/ops/prepared-copies.ts';
import { whileFrozen } from '../src/workspaces/backup.ts';
import { startServer } from '../src/server.ts';
import { createServices, type AppServices } from '../src/services.ts';
import { createCaller } from '../src/trpc/router.ts';
import { freePort } from './helpers/ports.ts';

/**
 * A move's copy in two halves, between two nodes in this process: the target receives a snapshot
 * while the source takes writes (`prepare`), then, with the source's writes paused, only the
 * pages written since (`pull`). The installed copy must be the source's file byte for byte.
 */
const SECRET = 'p'.repeat(40);
const root = mkdtempSync(join(tmpdir(), 'hourbook-page-diff-'));
type Node = { services: AppServices; address: NodeAddress; close: () => Promise<void> };
let source: Node;
let target: Node;
let apiKey = '';

async function startNode(name: string, ports: Record<string, number>): Promise<Node> {
  const env = {
    DATA_DIR: join(root, name),
    LOG_LEVEL: 'silent',
    CLUSTER_SECRET: SECRET,
    CLUSTER_NODES: Object.entries(ports)
      .map(([n, port]) => `${n}=http://127.0.0.1:${port}`)
      .join(','),
  };
  const services = createServices(loadConfig(env), { logger: pino({ level: 'silent' }) });
  const server = await startServer(services, { port: ports[name]!, host: '127.0.0.1', jobs: false });
  return {
    services,
    address: { url: `http://127.0.0.1:${ports[name]}`, secret: SECRET },
    close: async () => {
      await server.close();
      services.registry.closeAll();
    },
  };
}

/** Writes on the source through the procedures: clients with long notes, so that many pages change. */
async function writeClients(count: number, tag: string): Promise<void> {
  const caller = createCaller({ services: source.services, requestId: 'test', subdomain: 'acme', apiKey });
  for (let i = 0; i < count; i++) {
    await caller.clients.create({ email: 'owner@acme.test', name: `${tag} ${i}`, currency: 'EUR', internal_notes: `${tag} `.repeat(200) } as never);
  }
}

/** The source's file as SQLite would read it now: its WAL moved in first. */
function sourceBytes(): Buffer {
  const handle = source.services.registry.get('acme')!;
  handle.sqlite.pragma('wal_checkpoint(TRUNCATE)');
  return readFileSync(handle.file);
}

beforeAll(async () => {
  // node3 is named in CLUSTER_NODES but never started.
  const ports = { node1: await freePort(), node2: await freePort(), node3: await freePort() };
  source = await startNode('node1', ports);
  target = await startNode('node2', ports);
  apiKey = provisionWorkspace(source.services.registry, { subdomain: 'acme', timeZone: 'UTC', owner: { email: 'owner@acme.test', firstName: 'O', lastName: 'A' } }, new Date()).apiKey;
  await writeClients(50, 'before');
});

afterAll(async () => {
  await source?.close();
  await target?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('a move copies a snapshot while writes go on, then only the pages written since', () => {
  it('the target catches up on the pages written after its snapshot and holds the source file byte for byte', async () => {
    const prepared = await adminCall<{ transfer: string; bytes: number; schema_version: string }>(target.address, 'POST', '/workspaces/acme/prepare', { from: 'node1' });
    expect(prepared.bytes).toBeGreaterThan(0);
    expect(prepared.schema_version).toMatch(/^\d{4}_/);
    // The changed pages are asked for only while writes are paused.
    await expect(adminCall(target.address, 'POST', '/workspaces/acme/pull', { from: 'node1', transfer: prepared.transfer })).rejects.toMatchObject({ status: 409, code: 'workspace_not_paused' });
    // That refusal cost the copy; prepare a new one, then write more before pausing.
    const again = await adminCall<{ transfer: string; bytes: number }>(target.address, 'POST', '/workspaces/acme/prepare', { from: 'node1' });
    await writeClients(40, 'after');

    await adminCall(source.address, 'POST', '/workspaces/acme/pause', { reason: 'test' });
    const pulled = await adminCall<{ bytes: number; pages_changed: number; pages_sha256: string }>(target.address, 'POST', '/workspaces/acme/pull', { from: 'node1', transfer: again.transfer });
    const expected = sourceBytes();
    const installed = readFileSync(join(root, 'node2', 'acme.sqlite'));
    expect(installed.equals(expected)).toBe(true);
    expect(pulled.bytes).toBe(expected.length);
    // Some pages changed, not all: the rest came with the snapshot.
    const pages = expected.length / 8192;
    expect(pulled.pages_changed).toBeGreaterThan(0);
    expect(pulled.pages_changed).toBeLessThan(pages);
    // The target serves it, with the clients written after its snapshot.
    const names = target.services.registry.get('acme')!.sqlite.prepare("SELECT count(*) AS n FROM clients WHERE name LIKE 'after %'").get() as { n: number };
    expect(names.n).toBe(40);
    // Nothing of either copy is left behind in the transfer directory.
    expect(readdirSync(join(root, 'node2', '.transfer'))).toEqual([]);
  });

  it('a move whose pause was lifted meanwhile (an operator resumed it) gets no pages and cannot hand over: 409 hold_lost, nothing installed', async () => {
    provisionWorkspace(source.services.registry, { subdomain: 'globex', timeZone: 'UTC', owner: { email: 'owner@globex.test', firstName: 'O', lastName: 'G' } }, new Date());
    const prepared = await adminCall<{ transfer: string }>(target.address, 'POST', '/workspaces/globex/prepare', { from: 'node1' });
    await adminCall(source.address, 'POST', '/workspaces/globex/pause', { reason: 'moving to node2', operation: 'move-t' });
    expect((await adminCall<{ released: boolean }>(source.address, 'POST', '/workspaces/globex/resume', {})).released).toBe(true);
    await expect(adminCall(target.address, 'POST', '/workspaces/globex/pull', { from: 'node1', transfer: prepared.transfer, operation: 'move-t' })).rejects.toMatchObject({
      status: 409,
      code: 'hold_lost',
      message: expect.stringMatching(/globex is no longer held by move-t \(it was resumed meanwhile\)/),
    });
    await expect(adminCall(source.address, 'POST', '/workspaces/globex/hand-over', { reason: 'moved to node2', operation: 'move-t', paused: true })).rejects.toMatchObject({ status: 409, code: 'hold_lost' });
    expect(source.services.registry.gate.isHeld('globex')).toBe(false);
    expect(existsSync(join(root, 'node2', 'globex.sqlite'))).toBe(false);
    expect(readdirSync(join(root, 'node2', '.transfer'))).toEqual([]);
    // Retiring what was not handed over is a refusal, not an internal error.
    await adminCall(source.address, 'POST', '/workspaces/globex/pause', { reason: 'test', operation: 'move-u' });
    await expect(adminCall(source.address, 'POST', '/workspaces/globex/retire', { operation: 'move-u' })).rejects.toMatchObject({ status: 409, code: 'workspace_not_handed_over' });
    await expect(adminCall(source.address, 'POST', '/workspaces/globex/retire', { operation: 'move-v' })).rejects.toMatchObject({ status: 409, code: 'workspace_busy' });
    await adminCall(source.address, 'POST', '/workspaces/globex/resume', { operation: 'move-u' });
  });

  it('refuses an unknown copy, a copy prepared from another node, and page hashes that are not', async () => {
    await expect(adminCall(target.address, 'POST', '/workspaces/acme/pull', { from: 'node1', transfer: 'nope' })).rejects.toMatchObject({ status: 422, code: 'unknown_transfer' });
    await expect(adminCall(target.address, 'POST', '/workspaces/acme/prepare', { from: 'elsewhere' })).rejects.toMatchObject({ status: 422, code: 'unknown_node' });
    await expect(adminCall(target.address, 'POST', '/workspaces/globex/prepare', { from: 'node3' })).rejects.toMatchObject({ status: 503, code: 'source_unreachable' });
    await expect(requestChangedPages(source.address, 'acme', Buffer.alloc(33), 8192)).rejects.toMatchObject({ status: 422, code: 'invalid_page_hashes' });
  });
});

describe('a source whose file a long reader keeps from being checkpointed (as Litestream does)', () => {
  it('moves it all the same, from copies of its file and WAL, and leaves no copy behind', async () => {
    provisionWorkspace(source.services.registry, { subdomain: 'pinned', timeZone: 'UTC', owner: { email: 'owner@pinned.test', firstName: 'O', lastName: 'P' } }, new Date());
    const handle = source.services.registry.get('pinned')!;
    handle.sqlite.exec('CREATE TABLE test_rows (n INTEGER); INSERT INTO test_rows VALUES (1)');
    const reader = new BetterSqlite3(handle.file, { readonly: true });
    reader.exec('BEGIN');
    reader.prepare('SELECT count(*) FROM test_rows').get();
    try {
      handle.sqlite.exec('INSERT INTO test_rows VALUES (2)');
      // The file cannot be frozen while that reader lasts: what follows takes the page-by-page way.
      expect(await whileFrozen(handle.file, async () => undefined)).toBe(false);
      const prepared = await adminCall<{ transfer: string }>(target.address, 'POST', '/workspaces/pinned/prepare', { from: 'node1' });
      handle.sqlite.exec('INSERT INTO test_rows VALUES (3)');
      await adminCall(source.address, 'POST', '/workspaces/pinned/pause', { reason: 'test' });
      await adminCall(target.address, 'POST', '/workspaces/pinned/pull', { from: 'node1', transfer: prepared.transfer });
    } finally {
      reader.exec('COMMIT');
      reader.close();
    }
    const rows = target.services.registry.get('pinned')!.sqlite.prepare('SELECT n FROM test_rows ORDER BY n').pluck().all();
    expect(rows).toEqual([1, 2, 3]);
    expect(readdirSync(join(root, 'node1', '.transfer'))).toEqual([]);
  });

  it('a restarted node deletes the copies an unfinished move left, and nothing else', async () => {
    const dir = join(root, 'sweep');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(dir, { recursive: true });
    const left = ['acme-base-0b6c3f4e-5f5e-4b43-9d8c-1a2b3c4d5e6f.sqlite', 'acme-base-0b6c3f4e-5f5e-4b43-9d8c-1a2b3c4d5e6f.sqlite-wal', 'acme-restore.sqlite'];
    for (const name of left) writeFileSync(join(dir, name), 'x');
    new PreparedCopies(dir);
    expect(readdirSync(dir)).toEqual(['acme-restore.sqlite']);
  });
});

describe('a source whose target stops reading', () => {
  it('lets go of its frozen file when the target goes away mid-answer, so checkpoints resume', async () => {
    provisionWorkspace(source.services.registry, { subdomain: 'big', timeZone: 'UTC', owner: { email: 'owner@big.test', firstName: 'O', lastName: 'B' } }, new Date());
    const handle = source.services.registry.get('big')!;
    // 24 MB, more than the sockets between the two ends hold, so the answer must wait for its reader.
    handle.sqlite.exec('CREATE TABLE test_filler (payload BLOB); WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000) INSERT INTO test_filler SELECT randomblob(8000) FROM c');
    const pages = handle.sqlite.pragma('page_count', { simple: true }) as number;
    await adminCall(source.address, 'POST', '/workspaces/big/pause', { reason: 'test' });
    const res = await requestChangedPages(source.address, 'big', Buffer.alloc(pages * 32), 8192);
    await new Promise((resolve) => res.once('data', resolve));
    res.destroy();
    await new Promise((resolve) => setTimeout(resolve, 300));
    // A commit by another connection, then a checkpoint: all of it reaches the file unless a reader still holds it.
    const other = new BetterSqlite3(handle.file);
    try {
      other.exec('INSERT INTO test_filler VALUES (x\'00\')');
      const [checkpoint] = other.pragma('wal_checkpoint(PASSIVE)') as { log: number; checkpointed: number }[];
      expect(checkpoint!.log).toBeGreaterThan(0);
      expect(checkpoint!.checkpointed).toBe(checkpoint!.log);
    } finally {
      other.close();
    }
  });
});

describe('applyChangedPages, against sources that misbehave', () => {
  const pageSize = 1024;
  const page = (fill: number) => Buffer.alloc(pageSize, fill);
  const hash = (b: Buffer) => createHash('sha256').update(b).digest();
  const record = (n: number, bytes: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, n]), bytes]);
  // The copy has pages 1, 2, 3; the source now has 1, 9, 3, 4.
  const source = [page(1), page(9), page(3), page(4)];
  const digest = createHash('sha256').update(Buffer.concat(source.map(hash))).digest('hex');
  const answers: Record<string, { records: Buffer[]; digest?: string }> = {
    good: { records: [record(1, page(9)), record(3, page(4))], digest },
    altered: { records: [record(1, page(8)), record(3, page(4))], digest },
    missingNewPage: { records: [record(1, page(9))], digest },
    cut: { records: [record(1, page(9)), record(3, page(4)).subarray(0, 500)] },
    noTrailer: { records: [record(1, page(9)), record(3, page(4))] },
  };
  let server: Server;
  let url = '';
  const dir = join(root, 'apply');

  beforeAll(async () => {
    server = createServer((req, res) => {
      const answer = answers[/workspaces\/(\w+)\/changes/.exec(req.url ?? '')?.[1] ?? ''];
      req.resume();
      if (!answer) return void res.writeHead(404).end();
      res.writeHead(200, { [PAGE_COUNT]: '4', 'X-Hourbook-Page-Size': String(pageSize), Trailer: PAGES_SHA256 });
      for (const r of answer.records) res.write(r);
      if (answer.digest) res.addTrailers({ [PAGES_SHA256]: answer.digest });
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => server.close());

  const copyOf = (name: string) => {
    const file = join(dir, `${name}.sqlite`);
    const pages = [page(1), page(2), page(3)];
    writeFileSync(file, Buffer.concat(pages), { flag: 'w' });
    return { file, hashes: Buffer.concat(pages.map(hash)) };
  };

  it('writes the changed and new pages and proves the result', async () => {
    const { mkdirSync } = await import('node:fs');
    mkdirSync(dir, { recursive: true });
    const { file, hashes } = copyOf('good');
    const applied = await applyChangedPages(await requestChangedPages({ url, secret: 's' }, 'good', hashes, pageSize), file, pageSize, hashes);
    expect(applied).toEqual({ pageCount: 4, pagesChanged: 2, bytes: 4 * pageSize, digest });
    expect(readFileSync(file).equals(Buffer.concat(source))).toBe(true);
  });

  it.each([
    ['altered', /does not match the source/],
    ['missingNewPage', /did not send new page 4/],
    ['cut', /stopped inside a page/],
    ['noTrailer', /does not match the source/],
  ])('refuses an answer that is %s', async (how, message) => {
    const { file, hashes } = copyOf(how);
    await expect(applyChangedPages(await requestChangedPages({ url, secret: 's' }, how, hashes, pageSize), file, pageSize, hashes)).rejects.toThrow(message);
    expect(existsSync(file)).toBe(true);
  });
});
