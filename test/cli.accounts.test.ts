import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), 'hourbook-cli-accounts-'));
const BIN = fileURLToPath(new URL('../bin/hourbook.js', import.meta.url));
const run = (...args: string[]) => exec(process.execPath, [BIN, ...args], { env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent', PUBLIC_URL: 'https://{subdomain}.hours.example' } });

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('links to set a password from the command line', () => {
  it('workspace create prints the Owner a one-time link to the app', async () => {
    const { stdout } = await run('workspace', 'create', 'links', '--owner-email', 'boss@links.test');
    expect(stdout).toMatch(/owner's link to set a password and sign in \(works once, until \d{4}-\d{2}-\d{2}T/);
    expect(stdout).toMatch(/https:\/\/links\.hours\.example\/set-password#token=[A-Za-z0-9_-]{43}\n/);
  });

  it('password-link gives a fresh link (the Owner by default, or --email), as JSON too', async () => {
    const { stdout } = await run('password-link', 'links', '--json');
    const out = JSON.parse(stdout);
    expect(Object.keys(out).sort()).toEqual(['email', 'expires_at', 'link']);
    expect(out.email).toBe('boss@links.test');
    await run('member', 'add', 'links', '--email', 'ann@links.test', '--first-name', 'Ann', '--last-name', 'A');
    const forAnn = await run('password-link', 'links', '--email', 'ANN@links.test');
    expect(forAnn.stdout).toMatch(/^link for ann@links\.test to set a password/);
    await expect(run('password-link', 'links', '--email', 'nobody@links.test')).rejects.toMatchObject({ stderr: expect.stringMatching(/No team member has the e-mail/) });
  });
});
