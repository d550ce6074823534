import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { provisionWorkspace } from '../src/domain/workspace/provision.ts';
import { WorkspaceRegistry } from '../src/workspaces/registry.ts';
import { cliOver } from './helpers/cli.ts';

/**
 * `workspace create` builds the new file out of sight and puts it in place only once its rows are
 * committed; `WorkspaceRegistry.retire` never overwrites a retired copy.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'hourbook-wscreate-'));
const umaskBefore = process.umask(0o022);
afterAll(() => {
  process.umask(umaskBefore);
  rmSync(root, { recursive: true, force: true });
});

const owner = { email: 'o@acme.test', firstName: 'O', lastName: 'A' };
let dirs = 0;
const registryIn = () => new WorkspaceRegistry({ dataDir: join(root, `reg-${++dirs}`), synchronous: 'NORMAL' });

/**
 * Runs `workspace create`'s provisioning in a child process that kills itself with SIGKILL the
 * moment the seeding transaction begins: after the file was made and migrated, before its rows.
 */
function createKilledWhileSeeding(dataDir: string): Promise<NodeJS.Signals | null> {
  const src = (path: string) => JSON.stringify(pathToFileURL(join(ROOT, 'src', path)).href);
  const script = `
    import { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core';
    const { WorkspaceRegistry } = await import(${src('workspaces/registry.ts')});
    const { provisionWorkspace } = await import(${src('domain/workspace/provision.ts')});
    BaseSQLiteDatabase.prototype.transaction = () => process.kill(process.pid, 'SIGKILL');
    const registry = new WorkspaceRegistry({ dataDir: ${JSON.stringify(dataDir)}, synchronous: 'FULL' });
    provisionWorkspace(registry, { subdomain: 'acme', timeZone: 'UTC', owner: ${JSON.stringify(owner)} }, new Date());
    console.log('not killed');`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve) => child.once('exit', (_code, signal) => resolve(out.includes('not killed') ? null : signal)));
}

describe('workspace create', () => {
  it('killed (-9) while seeding leaves no workspace: list shows none, create then succeeds and cleans up', async () => {
    const dataDir = join(root, 'killed');
    expect(await createKilledWhileSeeding(dataDir)).toBe('SIGKILL');
    expect(existsSync(join(dataDir, 'acme.sqlite'))).toBe(false);
    const hourbook = cliOver(dataDir);
    expect((await hourbook('workspace', 'list')).stdout).toBe('no workspaces\n');
    const created = await hourbook('workspace', 'create', 'acme', '--owner-email', 'o@acme.test');
    expect(created).toMatchObject({ code: 0, stderr: '' });
    expect((await hourbook('password-link', 'acme')).code).toBe(0);
    // The half-built file of the killed process is gone; only the workspace's own files remain.
    expect(readdirSync(dataDir).filter((name) => name.startsWith('.'))).toEqual([]);
    expect(statSync(join(dataDir, 'acme.sqlite')).mode & 0o777).toBe(0o600);
  });

  it('no file carries the workspace name until its rows are committed; a failed seed leaves nothing', () => {
    const registry = registryIn();
    const seen = registry.create('acme', (handle) => {
      handle.sqlite.exec('CREATE TABLE probe (x)');
      return { named: existsSync(registry.fileFor('acme')), exists: registry.exists('acme'), listed: registry.list() };
    });
    expect(seen).toEqual({ named: false, exists: false, listed: [] });
    expect(registry.list()).toEqual(['acme']);
    expect(registry.get('acme')!.sqlite.prepare('SELECT count(*) FROM probe').pluck().get()).toBe(0);
    registry.closeAll();

    expect(() =>
      registry.create('beta', () => {
        throw new Error('seeding failed');
      }),
    ).toThrow('seeding failed');
    expect(() => provisionWorkspace(registry, { subdomain: 'gamma', timeZone: 'UTC', owner: { ...owner, email: 'o@gamma.test' } }, new Date('invalid'))).toThrow();
    expect(readdirSync(registry.dataDir).filter((name) => !name.startsWith('acme.sqlite'))).toEqual([]);
  });
});

describe('WorkspaceRegistry.retire', () => {
  it('retires twice in the same second without overwriting the first copy; retired/ 0700, copies 0600', async () => {
    const registry = registryIn();
    provisionWorkspace(registry, { subdomain: 'acme', timeZone: 'UTC', owner }, new Date());
    const file = registry.fileFor('acme');
    const spare = join(root, 'spare.sqlite');
    copyFileSync(file, spare);
    const now = new Date('2026-11-18T10:00:00.250Z');
    await registry.handOver('acme', 'move');
    const first = registry.retire('acme', undefined, now);
    const firstBytes = readFileSync(first);
    copyFileSync(spare, file);
    const second = registry.retire('acme', undefined, new Date('2026-11-18T10:00:00.750Z'));
    expect(first).toMatch(/retired\/acme-20261118T100000Z\.sqlite$/);
    expect(second).toMatch(/retired\/acme-20261118T100000Z-2\.sqlite$/);
    expect(readFileSync(first).equals(firstBytes)).toBe(true);
    expect(statSync(join(registry.dataDir, 'retired')).mode & 0o777).toBe(0o700);
    for (const copy of [first, second]) expect(statSync(copy).mode & 0o777).toBe(0o600);
  });
});
