import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { send } from './helpers/http.ts';

const BIN = fileURLToPath(new URL('../bin/hourbook.js', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'hourbook-demo-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Runs `hourbook demo` until it listens; returns what it printed and a way to stop it. */
async function startDemo(port: number) {
  const child = spawn(process.execPath, [BIN, 'demo'], { env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn' } });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const started = Date.now();
  while (!output.includes('listening')) {
    if (Date.now() - started > 60_000) throw new Error(`demo did not start: ${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    output,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

describe('hourbook demo', () => {
  it('creates the demo workspace, prints a key and curl lines that work, and reuses the workspace next time', async () => {
    const port = 20000 + Math.floor(Math.random() * 20000);
    const first = await startDemo(port);
    try {
      const key = /api key: (hb_\S+)/.exec(first.output)?.[1];
      expect(key).toBeDefined();
      const base = `http://127.0.0.1:${port}`;
      const members = await send(base, 'GET', '/api/external/v2/team-members', { host: 'demo.localhost', key, headers: { accept: 'application/json' } });
      expect(members.status).toBe(200);
      expect(members.body.pagination.total_records).toBeGreaterThanOrEqual(5);
      // the printed time-entry line carries real ids of the demo data
      const body = /-d '(\{.*?\})'/.exec(first.output)?.[1];
      expect(body).toBeDefined();
      const entry = await send(base, 'POST', '/api/external/v2/time-entries', { host: 'demo.localhost', key, body: JSON.parse(body!) });
      expect(entry.status).toBe(201);
      expect(entry.body.notice_code).toBe('time_entry_created');
    } finally {
      expect(await first.stop()).toBe(0);
    }

    const second = await startDemo(port);
    try {
      expect(second.output).toContain('demo workspace ready');
      const key = /api key: (hb_\S+)/.exec(second.output)?.[1];
      const members = await send(`http://127.0.0.1:${port}`, 'GET', '/api/external/v2/team-members', { host: 'demo.localhost', key, headers: { accept: 'application/json' } });
      // reused, not seeded twice
      expect(members.body.pagination.total_records).toBe(5);
    } finally {
      await second.stop();
    }
  }, 180_000);
});
