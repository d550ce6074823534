import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, publicUrlFor } from '../src/config.ts';
import { hourbook, spawnHourbook, type Spawned } from './helpers/processes.ts';
import { freePort } from './helpers/ports.ts';

const root = mkdtempSync(join(tmpdir(), 'hourbook-operator-'));
const running: Spawned[] = [];
afterAll(async () => {
  await Promise.all(running.map((s) => s.kill9()));
  rmSync(root, { recursive: true, force: true });
});

describe('configuration', () => {
  it('derives PUBLIC_URL from BASE_DOMAIN and PORT unless it is set', () => {
    expect(loadConfig({}).publicUrl).toBe('http://{subdomain}.localhost:3000');
    expect(publicUrlFor(loadConfig({ BASE_DOMAIN: 'hb.example.com', PORT: '8080' }), 'acme')).toBe('http://acme.hb.example.com:8080');
    expect(loadConfig({ BASE_DOMAIN: 'hb.example.com', PORT: '80' }).publicUrl).toBe('http://{subdomain}.hb.example.com');
    expect(loadConfig({ PUBLIC_URL: 'https://{subdomain}.hb.example.com/', PORT: '8080' }).publicUrl).toBe('https://{subdomain}.hb.example.com');
    // One host, for a server of one workspace.
    expect(loadConfig({ PUBLIC_URL: 'https://billing.acme.example' }).publicUrl).toBe('https://billing.acme.example');
  });

  it('refuses a PUBLIC_URL that mail programs could not open', () => {
    for (const value of ['hourbook.example.com', '{subdomain}.hourbook.example.com', 'ftp://{subdomain}.example.com', 'https://{subdomain}.example.com/?a=1', 'https://{subdomain}.example.com/#x', 'https://']) {
      expect(() => loadConfig({ PUBLIC_URL: value }), value).toThrow('PUBLIC_URL: must be an http:// or https:// URL without query, such as https://{subdomain}.hourbook.example.com');
    }
  });

  it('names every bad variable in one message', () => {
    const bad = () => loadConfig({ PORT: 'http', SQLITE_SYNCHRONOUS: 'OFF', CLUSTER_SECRET: 'short', CLUSTER_NODES: 'node1=nowhere', SMTP_URL: 'http://x' });
    expect(bad).toThrow(ConfigError);
    expect(bad).toThrow(
      [
        'invalid configuration:',
        '  PORT: must be a whole number from 0 to 65535',
        '  CLUSTER_SECRET: must be at least 32 characters (e.g. openssl rand -hex 32)',
        '  SMTP_URL: must be an smtp:// or smtps:// URL',
        '  SQLITE_SYNCHRONOUS: must be one of FULL, NORMAL',
        '  CLUSTER_NODES: "node1=nowhere" is not name=http://host:port',
      ].join('\n'),
    );
    expect(loadConfig({ CLUSTER_NODES: 'node1=http://10.0.0.1:3000/, node2=http://10.0.0.2:3000' }).clusterNodes).toEqual(
      new Map([
        ['node1', 'http://10.0.0.1:3000'],
        ['node2', 'http://10.0.0.2:3000'],
      ]),
    );
  });

  it('a bad variable stops a command with the message and exit status 1', async () => {
    const res = await hourbook({ DATA_DIR: join(root, 'cfg'), PORT: 'nope' }, 'workspace', 'list');
    expect(res).toEqual({ code: 1, stdout: '', stderr: 'hourbook: invalid configuration:\n  PORT: must be a whole number from 0 to 65535\n' });
  });
});

describe('one server per data directory and port', () => {
  it('a second demo while one runs says so, exits 1 and adds no key; so does one on another data directory but the same port', async () => {
    const dataDir = join(root, 'demo');
    const port = await freePort();
    const env = { DATA_DIR: dataDir, PORT: String(port) };
    const first = await spawnHourbook(env, ['demo']);
    running.push(first);
    const keysBefore = JSON.parse((await hourbook(env, 'key', 'list', 'demo', '--json')).stdout).keys.length;

    const second = await hourbook(env, 'demo');
    expect(second.code).toBe(1);
    expect(second.stdout).toBe('');
    expect(second.stderr).toBe(`hourbook: hourbook is already running on ${dataDir} (pid ${first.child.pid}, http://127.0.0.1:${port}); stop it first or use another DATA_DIR\n`);
    expect(JSON.parse((await hourbook(env, 'key', 'list', 'demo', '--json')).stdout).keys).toHaveLength(keysBefore);

    const elsewhere = join(root, 'demo-2');
    const samePort = await hourbook({ DATA_DIR: elsewhere, PORT: String(port) }, 'demo');
    expect(samePort.code).toBe(1);
    expect(samePort.stderr).toMatch(new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use`));
    expect(existsSync(join(elsewhere, 'demo.sqlite'))).toBe(false);

    const serve = await hourbook({ DATA_DIR: dataDir, PORT: String(await freePort()) }, 'serve');
    expect(serve.code).toBe(1);
    expect(serve.stderr).toMatch(/already serves|already running/);
    expect(await first.stop()).toBe(0);
  });

  it('a server killed with -9 leaves no lock behind: the next one starts', async () => {
    const dataDir = join(root, 'crash');
    const env = { DATA_DIR: dataDir, PORT: String(await freePort()) };
    const crashed = await spawnHourbook(env, ['serve']);
    await crashed.kill9();
    expect(existsSync(join(dataDir, '.hourbook.sock'))).toBe(true);
    const next = await spawnHourbook(env, ['serve']);
    running.push(next);
    expect((await fetch(`http://127.0.0.1:${env.PORT}/readyz`)).status).toBeLessThan(600);
    expect(await next.stop()).toBe(0);
    expect(existsSync(join(dataDir, '.hourbook.sock'))).toBe(false);
  });

  it('links point at BASE_DOMAIN and PORT when PUBLIC_URL is unset (the OpenAPI server URL shows it)', async () => {
    const port = await freePort();
    const server = await spawnHourbook({ DATA_DIR: join(root, 'links'), PORT: String(port), BASE_DOMAIN: 'hb.test' }, ['serve']);
    running.push(server);
    const doc = (await (await fetch(`http://127.0.0.1:${port}/api/external/openapi.json`)).json()) as { servers: { url: string }[] };
    expect(doc.servers[0]?.url).toBe(`http://{subdomain}.hb.test:${port}/api/external`);
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(await health.json()).toEqual({ status: 'ok' });
    expect(await server.stop()).toBe(0);
  });
});
