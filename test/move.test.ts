import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { adminCall } from '../src/ops/node-client.ts';
import { HAPROXY, startHaproxy, type Proxy } from './helpers/haproxy.ts';
import { send } from './helpers/http.ts';
import { prepareTarget, startWriter, storedNames, type Target } from './helpers/load.ts';
import { hourbook, spawnHourbook, type Spawned } from './helpers/processes.ts';
import { freePort } from './helpers/ports.ts';

if (!HAPROXY) console.log('move.test.ts skipped: HAProxy is not installed (Debian package haproxy; .ci/run installs it)');

const root = mkdtempSync(join(tmpdir(), 'hourbook-move-'));
const started: Spawned[] = [];
let haproxy: Proxy | null = null;
afterAll(async () => {
  await Promise.all(started.map((s) => s.kill9()));
  haproxy?.stop();
  rmSync(root, { recursive: true, force: true });
});

describe.skipIf(!HAPROXY)('hourbook workspace move, two nodes behind HAProxy', () => {
  it('moves a workspace under steady write load: no failed or lost acknowledged write, every workspace answers through the proxy', async () => {
    const [p1, p2, proxyPort] = [await freePort(), await freePort(), await freePort()];
    const secret = 'c'.repeat(48);
    const cluster = {
      CLUSTER_SECRET: secret,
      CLUSTER_NODES: `node1=http://127.0.0.1:${p1},node2=http://127.0.0.1:${p2}`,
      HAPROXY_SOCKET: join(root, 'haproxy.sock'),
      HAPROXY_MAP: join(root, 'hourbook.map'),
    };
    const dirs = { node1: join(root, 'node1'), node2: join(root, 'node2') };
    const keys: Record<string, string> = {};
    for (const [subdomain, node] of [['acme', 'node1'], ['globex', 'node1'], ['initech', 'node2']] as const) {
      const res = await hourbook({ DATA_DIR: dirs[node] }, 'workspace', 'create', subdomain, '--owner-email', `owner@${subdomain}.test`, '--json');
      expect(res.code).toBe(0);
      keys[subdomain] = JSON.parse(res.stdout).api_key;
    }
    started.push(await spawnHourbook({ ...cluster, DATA_DIR: dirs.node1, PORT: String(p1) }, ['serve']));
    started.push(await spawnHourbook({ ...cluster, DATA_DIR: dirs.node2, PORT: String(p2) }, ['serve']));
    haproxy = await startHaproxy(root, proxyPort, { node1: p1, node2: p2 }, 'initech node2\n');
    const proxy = `http://127.0.0.1:${proxyPort}`;
    const targets = Object.fromEntries(
      Object.entries(keys).map(([subdomain, key]) => [subdomain, { url: proxy, host: `${subdomain}.localhost`, key, ownerEmail: `owner@${subdomain}.test` } satisfies Target]),
    );
    const writers = await Promise.all(
      Object.entries(targets).map(async ([subdomain, target]) => ({ subdomain, writer: startWriter(target, await prepareTarget(target), { prefix: subdomain }) })),
    );
    await new Promise((r) => setTimeout(r, 700));
    const moved = await hourbook(cluster, 'workspace', 'move', 'acme', '--to', 'node2');
    await new Promise((r) => setTimeout(r, 700));
    for (const { writer } of writers) await writer.stop();

    expect(moved.stderr).toBe('');
    expect(moved.code).toBe(0);
    expect(moved.stdout).toMatch(/writes to acme paused on node1/);
    expect(moved.stdout).toMatch(/copied acme to node2 while it took writes: \d+ bytes, sha256 [0-9a-f]{16}…, integrity ok/);
    expect(moved.stdout).toMatch(/node2 fetched the \d+ pages written since; its copy is identical/);
    expect(moved.stdout).toMatch(/HAProxy routes acme to node2/);
    expect(readFileSync(cluster.HAPROXY_MAP, 'utf8')).toBe('# subdomain node\ninitech node2\nacme node2\n');

    // Zero failed writes, and every acknowledged one is in the file of the node that now holds it.
    const home = { acme: dirs.node2, globex: dirs.node1, initech: dirs.node2 } as Record<string, string>;
    for (const { subdomain, writer } of writers) {
      expect(writer.failures, subdomain).toEqual([]);
      expect(writer.acked.length, subdomain).toBeGreaterThan(10);
      const stored = storedNames(join(home[subdomain] as string, `${subdomain}.sqlite`));
      expect(writer.acked.filter((a) => !stored.has(a.name)), subdomain).toEqual([]);
    }
    // The old copy is retired on node1, out of its data directory.
    expect(existsSync(join(dirs.node1, 'acme.sqlite'))).toBe(false);
    expect(readdirSync(join(dirs.node1, 'retired'))).toEqual([expect.stringMatching(/^acme-\d{8}T\d{6}Z\.sqlite$/)]);

    // Both nodes' workspaces answer through the proxy; node1 sends a stray request for acme away with 503.
    for (const [subdomain, target] of Object.entries(targets)) {
      const res = await send(proxy, 'GET', '/api/external/v2/team-members', { host: target.host, key: target.key, headers: { accept: 'application/json' } });
      expect(res.status, subdomain).toBe(200);
    }
    const stray = await send(`http://127.0.0.1:${p1}`, 'GET', '/api/external/v2/team-members', { host: 'acme.localhost', key: keys.acme, headers: { accept: 'application/json' } });
    expect(stray.status).toBe(503);
    expect(stray.body.code).toBe('workspace_moved');

    // Moving it again to where it is, or to a node that does not exist, is refused with a message.
    expect(await hourbook(cluster, 'workspace', 'move', 'acme', '--to', 'node2')).toMatchObject({ code: 1, stderr: expect.stringMatching(/already on node2/) });
    expect(await hourbook(cluster, 'workspace', 'move', 'globex', '--to', 'node9')).toMatchObject({ code: 1, stderr: expect.stringMatching(/"node9" is not in CLUSTER_NODES/) });
    expect(await hourbook({}, 'workspace', 'move', 'globex', '--to', 'node2')).toMatchObject({ code: 1, stderr: expect.stringMatching(/CLUSTER_SECRET/) });

    // A second move of a workspace another move holds is refused, and leaves no copy on its target.
    const node1 = { url: `http://127.0.0.1:${p1}`, secret };
    await adminCall(node1, 'POST', '/workspaces/globex/pause', { reason: 'moving to node3', operation: 'move-elsewhere' });
    const second = await hourbook(cluster, 'workspace', 'move', 'globex', '--to', 'node2');
    expect(second).toMatchObject({ code: 1, stderr: expect.stringMatching(/^hourbook: move of globex failed: globex is held by another operation \(moving to node3, since /) });
    expect(existsSync(join(dirs.node2, 'globex.sqlite'))).toBe(false);
    expect(readdirSync(join(dirs.node2, '.transfer'))).toEqual([]);
    expect((await adminCall<{ holds: Record<string, unknown> }>(node1, 'GET', '/status')).holds.globex).toMatchObject({ hold: 'writes', operation: 'move-elsewhere' });
    await adminCall(node1, 'POST', '/workspaces/globex/resume', { operation: 'move-elsewhere' });
  }, 120_000);
});
