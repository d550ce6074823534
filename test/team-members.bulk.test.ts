import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { count } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { teamMembers } from '../src/db/schema/index.ts';
import { callerFor, startTestEnv, type TestEnv } from './helpers/env.ts';
import { makeMember } from './helpers/factories.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv();
});
afterAll(() => env.close());

const memberCount = (w = env.alpha) => w.handle.db.select({ n: count() }).from(teamMembers).get()!.n;
const person = (i: number, over: Record<string, unknown> = {}) => ({ email: `bulk${i}@alpha.test`, first_name: `Bulk${i}`, last_name: 'Member', ...over });

describe('teamMembers.create (bulk)', () => {
  it('adds every member of the call in one transaction and returns their records', async () => {
    const before = memberCount();
    const res = await env.alpha.caller.teamMembers.create({ members: Array.from({ length: 250 }, (_, i) => person(i)) });
    expect(res.team_members).toHaveLength(250);
    expect(res.team_members[3]).toMatchObject({ email: 'bulk3@alpha.test', first_name: 'Bulk3', organization_role: 'Member', time_zone: 'UTC', active: true });
    expect(memberCount()).toBe(before + 250);
  });

  it('one refused member refuses the call: nothing is added, and the error names its place', async () => {
    const taken = makeMember(env.alpha.handle.db).email;
    const before = memberCount();
    const members = [person(1000), person(1001), person(1002, { email: taken.toUpperCase() })];
    await expect(env.alpha.caller.teamMembers.create({ members })).rejects.toMatchObject({ cause: { code: 'team_member_email_taken', details: [{ path: 'members.2.email' }] } });
    await expect(env.alpha.caller.teamMembers.create({ members: [person(1003, { organization_role: 'owner' })] })).rejects.toMatchObject({
      cause: { code: 'validation_failed', details: [{ path: 'members.0.organization_role' }] },
    });
    await expect(env.alpha.caller.teamMembers.create({ members: [person(1004, { time_zone: 'Mars/Base' })] })).rejects.toMatchObject({ cause: { code: 'validation_failed' } });
    await expect(env.alpha.caller.teamMembers.create({ members: [] })).rejects.toMatchObject({ cause: { code: 'validation_failed' } });
    expect(memberCount()).toBe(before);
  });

  it('over 1,000 in one call is refused; another workspace key opens nothing', async () => {
    await expect(env.alpha.caller.teamMembers.create({ members: Array.from({ length: 1001 }, (_, i) => person(5000 + i)) })).rejects.toMatchObject({
      cause: { code: 'validation_failed' },
    });
    // Another workspace's key opens nothing here.
    await expect(callerFor(env.services, 'alpha', env.beta.key).teamMembers.create({ members: [person(6000)] })).rejects.toMatchObject({ cause: { code: 'unauthorized' } });
  });
});

describe('hourbook member import', () => {
  const BIN = fileURLToPath(new URL('../bin/hourbook.js', import.meta.url));
  const run = async (...args: string[]) => {
    try {
      const { stdout } = await promisify(execFile)(process.execPath, [BIN, ...args], { env: { ...process.env, DATA_DIR: env.dataDir, LOG_LEVEL: 'silent' } });
      return { code: 0, stdout, stderr: '' };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return e;
    }
  };

  it('reads a CSV file (with a BOM, accents, optional columns) into members, all or none', async () => {
    const good = join(env.dataDir, 'members.csv');
    writeFileSync(good, '\uFEFFemail,first_name,last_name,role,time_zone\nzoe@beta.test,Zoë,Ångström,Admin,Europe/Stockholm\n"quoted@beta.test","Jean, Jr.",Doe,,\n');
    const before = memberCount(env.beta);
    const res = await run('member', 'import', 'beta', good, '--json');
    expect(res.code).toBe(0);
    const out = JSON.parse(res.stdout);
    expect(out.team_members.map((m: { email: string }) => m.email)).toEqual(['zoe@beta.test', 'quoted@beta.test']);
    expect(out.team_members[0]).toMatchObject({ first_name: 'Zoë', last_name: 'Ångström', organization_role: 'Admin', time_zone: 'Europe/Stockholm' });
    expect(out.team_members[1]).toMatchObject({ first_name: 'Jean, Jr.', organization_role: 'Member', time_zone: 'UTC' });

    const bad = join(env.dataDir, 'bad.csv');
    writeFileSync(bad, 'email,first_name,last_name\nnew1@beta.test,A,B\nzoe@beta.test,Z,Z\n');
    const refused = await run('member', 'import', 'beta', bad);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/line 3/);
    writeFileSync(bad, 'email,first_name,surname\nnew2@beta.test,A,B\n');
    expect((await run('member', 'import', 'beta', bad)).stderr).toMatch(/unknown column surname/);
    writeFileSync(bad, 'email,first_name,last_name\nnot-an-email,A,B\n');
    expect((await run('member', 'import', 'beta', bad)).stderr).toMatch(/line 2 \(email\)/);
    // blank lines are skipped, and a refused row is still named by its own line
    writeFileSync(bad, 'email,first_name,last_name\nx1@beta.test,X,One\n\n\nx1@beta.test,X,Dup\n');
    expect((await run('member', 'import', 'beta', bad)).stderr).toMatch(/line 5: .*x1@beta.test/);
    writeFileSync(bad, 'email,first_name,last_name\n\nnot-an-email,A,B\n');
    expect((await run('member', 'import', 'beta', bad)).stderr).toMatch(/line 3 \(email\)/);
    expect(memberCount(env.beta)).toBe(before + 2);
  });
});
