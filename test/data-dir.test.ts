import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WorkspaceRegistry } from '../src/workspaces/registry.ts';

const root = mkdtempSync(join(tmpdir(), 'hourbook-data-dir-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const modeOf = (path: string) => statSync(path).mode & 0o777;

describe('the data directory', () => {
  it('is made readable by its owner only (the files hold an agency\'s records, mail files hold password links)', () => {
    const dataDir = join(root, 'made', 'data');
    new WorkspaceRegistry({ dataDir, synchronous: 'FULL' }).closeAll();
    expect(modeOf(dataDir)).toBe(0o700);
  });

  it('one the operator made keeps its mode', () => {
    const dataDir = join(root, 'given');
    mkdirSync(dataDir, { mode: 0o750 });
    new WorkspaceRegistry({ dataDir, synchronous: 'FULL' }).closeAll();
    expect(modeOf(dataDir)).toBe(0o750 & ~process.umask());
  });
});
