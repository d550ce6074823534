import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { createServices } from '../src/services.ts';
import { startServer } from '../src/server.ts';
import { WorkspaceRegistry } from '../src/workspaces/registry.ts';
import { provisionWorkspace } from '../src/domain/workspace/provision.ts';

const BIN = fileURLToPath(new URL('../bin/hourbook.js', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'hourbook-life-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('hourbook serve', () => {
  it('on SIGTERM stops accepting, finishes the request in flight, closes workspace files and exits 0', async () => {
    const registry = new WorkspaceRegistry({ dataDir, synchronous: 'FULL' });
    const { apiKey } = provisionWorkspace(registry, { subdomain: 'life', timeZone: 'UTC', owner: { email: 'o@life.test', firstName: 'O', lastName: 'L' } }, new Date());
    registry.closeAll();

    const port = 20000 + Math.floor(Math.random() * 20000);
    const child = spawn(process.execPath, [BIN, 'serve'], { env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info' } });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      const started = Date.now();
      const poll = setInterval(() => {
        if (output.includes('listening')) {
          clearInterval(poll);
          resolve();
        } else if (Date.now() - started > 20_000) {
          clearInterval(poll);
          reject(new Error(`server did not start: ${output}`));
        }
      }, 50);
    });

    // A request whose body is still on its way when the signal arrives.
    const body = JSON.stringify({ first_name: 'Late' });
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.on('connect', () => resolve()));
    let response = '';
    socket.on('data', (d: Buffer) => (response += d.toString()));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write(
      `PATCH /api/external/v1/team_members/unknown HTTP/1.1\r\nHost: life.localhost\r\nX-Api-Key: ${apiKey}\r\n` +
        `Accept: application/json\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n` +
        body.slice(0, 5),
    );
    await new Promise((r) => setTimeout(r, 200));
    child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    socket.write(body.slice(5));
    await closed;

    expect(response).toMatch(/^HTTP\/1\.1 404/);
    expect(response).toContain('team_member_not_found');
    expect(await exited).toBe(0);
    expect(output).toContain('shutting down');
    // Closed cleanly: the WAL was checkpointed into the main file.
    const wal = join(dataDir, 'life.sqlite-wal');
    expect(!existsSync(wal) || statSync(wal).size === 0).toBe(true);
  });
});

describe('closing the server', () => {
  it('cuts off a connection that stays open past the grace period, so shutdown always ends', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hourbook-grace-'));
    const services = createServices(loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' }));
    const running = await startServer(services, { port: 0, host: '127.0.0.1', jobs: false, shutdownGraceMs: 200 });
    const port = Number(new URL(running.url).port);
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.on('connect', () => resolve()));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    // a request whose body never completes
    socket.write('POST /api/external/v1/projects HTTP/1.1\r\nHost: x.localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{');
    await new Promise((r) => setTimeout(r, 50));
    await running.close();
    await closed;
    rmSync(dir, { recursive: true, force: true });
  });
});
