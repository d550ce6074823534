import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliOver } from './helpers/cli.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'hourbook-cli-'));
const hourbook = cliOver(dataDir);

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('hourbook command line', () => {
  let ownerId = '';

  it('workspace create --json prints exactly subdomain, api_key, api_key_id and owner', async () => {
    const res = await hourbook('workspace', 'create', 'acme', '--owner-email', 'Boss@ACME.test', '--owner-first-name', 'Bo', '--time-zone', 'Europe/Berlin', '--json');
    expect(res.code).toBe(0);
    expect(res.stderr).toBe('');
    const out = JSON.parse(res.stdout);
    expect(Object.keys(out).sort()).toEqual(['api_key', 'api_key_id', 'owner', 'subdomain']);
    expect(out.api_key_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(out.subdomain).toBe('acme');
    expect(out.api_key).toMatch(/^hb_[A-Za-z0-9_-]{43}$/);
    expect(out.owner).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), email: 'Boss@acme.test' });
    ownerId = out.owner.id;
  });

  it.each([
    [['workspace', 'create', 'acme', '--owner-email', 'a@b.test'], /already exists/],
    [['workspace', 'create', 'Not_Valid', '--owner-email', 'a@b.test'], /not a valid subdomain/],
    [['workspace', 'create', 'other', '--owner-email', 'nope'], /--owner-email/],
    [['workspace', 'create', 'other', '--owner-email', 'a@b.test', '--time-zone', 'Mars/Base'], /--time-zone/],
    [['workspace', 'create', 'other'], /--owner-email is required/],
    [['member', 'add', 'acme', '--email', 'bad', '--first-name', 'A', '--last-name', 'B'], /--email/],
    [['member', 'add', 'acme', '--email', 'x@y.test', '--first-name', 'A', '--last-name', 'B', '--time-zone', 'Nowhere/City'], /--time-zone/],
    [['member', 'add', 'acme', '--email', 'x@y.test', '--first-name', 'A', '--last-name', 'B', '--role', 'owner'], /--role/],
    [['member', 'add', 'ghost', '--email', 'x@y.test', '--first-name', 'A', '--last-name', 'B'], /no workspace named "ghost"/],
    [['client', 'create', 'acme', '--name', 'X', '--currency', 'XYZ'], /--currency/],
    [['client', 'create', 'acme', '--name', 'X', '--due-in-days', 'soon'], /--due-in-days/],
    [['key', 'create', 'acme', '--expires', '2026-02-30'], /--expires/],
    [['key', 'revoke', 'acme', 'no-such-key'], /no live key/],
    [['frobnicate'], /unknown command/],
    [['workspace', 'create', 'x', '--owner-email', 'a@b.test', '--bogus'], /bogus/],
  ])('exits 1 with a message on stderr: %j', async (args, message) => {
    const res = await hourbook(...args);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(message);
  });

  it('member add --json prints the team member; role defaults to Member, time zone to the workspace', async () => {
    const res = await hourbook('member', 'add', 'acme', '--email', 'dev@acme.test', '--first-name', 'Dee', '--last-name', 'Vee', '--json');
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ email: 'dev@acme.test', first_name: 'Dee', organization_role: 'Member', time_zone: 'Europe/Berlin', active: true });
    const dup = await hourbook('member', 'add', 'acme', '--email', 'DEV@acme.test', '--first-name', 'D', '--last-name', 'V');
    expect(dup.code).toBe(1);
    expect(dup.stderr).toMatch(/already has the e-mail/);
  });

  it('role add makes a role that member add then accepts (case-sensitive)', async () => {
    expect((await hourbook('role', 'add', 'acme', 'Contractor')).code).toBe(0);
    expect((await hourbook('role', 'add', 'acme', 'Contractor')).code).toBe(1);
    const res = await hourbook('member', 'add', 'acme', '--email', 'c@acme.test', '--first-name', 'C', '--last-name', 'T', '--role', 'Contractor', '--json');
    expect(JSON.parse(res.stdout).organization_role).toBe('Contractor');
  });

  it('client create --json prints the client record', async () => {
    const res = await hourbook('client', 'create', 'acme', '--name', 'Globex Corp', '--currency', 'eur', '--due-in-days', '14', '--json');
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ name: 'Globex Corp', currency: 'EUR', default_invoice_due_in_days: 14, status: 'active', identifier: 'GLOBEX' });
  });

  it('key create and revoke', async () => {
    const created = await hourbook('key', 'create', 'acme', '--label', 'ci', '--expires', '2099-01-01', '--json');
    const key = JSON.parse(created.stdout);
    expect(Object.keys(key).sort()).toEqual(['api_key', 'id']);
    // an id in upper case is the same id, as the API reads it
    const revoked = await hourbook('key', 'revoke', 'acme', key.id.toUpperCase());
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toMatch(/revoked/);
  });

  it('workspace list --json', async () => {
    const res = await hourbook('workspace', 'list', '--json');
    const out = JSON.parse(res.stdout);
    expect(out.workspaces).toEqual([expect.objectContaining({ subdomain: 'acme', name: 'acme', time_zone: 'Europe/Berlin', team_members: 3 })]);
    expect(ownerId).not.toBe('');
  });

  it('workspace create --name sets the name invoices show, and prints the key id beside the key', async () => {
    const res = await hourbook('workspace', 'create', 'named', '--owner-email', 'o@named.test', '--name', 'Named & Sons GmbH');
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^created workspace named \(Named & Sons GmbH\)$/m);
    expect(res.stdout).toMatch(/^api key [0-9a-f-]{36} \(shown once\): hb_[A-Za-z0-9_-]{43}$/m);
    const listed = JSON.parse((await hourbook('workspace', 'list', '--json')).stdout);
    expect(listed.workspaces.find((w: { subdomain: string }) => w.subdomain === 'named').name).toBe('Named & Sons GmbH');
    expect((await hourbook('workspace', 'create', 'other', '--owner-email', 'o@x.test', '--name', '  ')).stderr).toMatch(/--name/);
  });

  it('key list shows label, prefix, dates and status of every key, never the key', async () => {
    const created = JSON.parse((await hourbook('key', 'create', 'acme', '--label', 'zapier', '--expires', '2099-01-01', '--json')).stdout);
    const res = await hourbook('key', 'list', 'acme', '--json');
    expect(res.code).toBe(0);
    const { keys } = JSON.parse(res.stdout);
    expect(keys.map((k: { label: string; status: string }) => [k.label, k.status])).toEqual([
      ['owner', 'active'],
      ['ci', 'revoked'],
      ['zapier', 'active'],
    ]);
    const zapier = keys.find((k: { id: string }) => k.id === created.id);
    expect(zapier).toEqual({
      id: created.id,
      label: 'zapier',
      prefix: created.api_key.slice(0, 10),
      status: 'active',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      last_used_at: null,
      expires_at: '2099-01-01T00:00:00.000Z',
      revoked_at: null,
    });
    expect(res.stdout).not.toContain(created.api_key);
    const human = await hourbook('key', 'list', 'acme');
    expect(human.stdout.split('\n')[0]).toMatch(/^id\s+prefix\s+label\s+status\s+created\s+last used\s+expires$/);
    expect(human.stdout).toMatch(new RegExp(`${created.id}\\s+${created.api_key.slice(0, 10)}…\\s+zapier\\s+active\\s+.*2099-01-01`));
    expect(human.stdout).not.toContain(created.api_key);
  });

  it('--version prints the package version; a group alone prints its commands (exit 1), with --help (exit 0)', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(await hourbook('--version')).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    const group = await hourbook('key');
    expect(group.code).toBe(1);
    expect(group.stdout).toBe(
      'hourbook key — commands:\n\n  hourbook key create <subdomain> [--label L] [--expires YYYY-MM-DD] [--json]\n' +
        '  hourbook key list <subdomain> [--json]\n  hourbook key revoke <subdomain> <key-id>\n',
    );
    expect((await hourbook('workspace', '--help')).stdout).toMatch(/hourbook workspace move <subdomain> --to NODE/);
    expect((await hourbook('workspace', '--help')).code).toBe(0);
    const unknown = await hourbook('key', 'rotate');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/unknown command "key rotate"[\s\S]*hourbook key list/);
    const usage = await hourbook('--help');
    expect(usage.stdout).toMatch(/hourbook backup \[<subdomain>...\] --to DIR/);
  });
});
