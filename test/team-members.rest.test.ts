import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeMember } from './helpers/factories.ts';
import { startTestEnv, type TestEnv } from './helpers/env.ts';

let env: TestEnv;
const JSON_ACCEPT = { headers: { accept: 'application/json' } };

beforeAll(async () => {
  env = await startTestEnv();
  // 44 more members in alpha (45 with the owner), created one millisecond apart so order is defined.
  for (let i = 0; i < 44; i++) {
    makeMember(env.alpha.handle.db, { email: `m${i}@alpha.test`, createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, i)).toISOString() });
  }
});
afterAll(() => env.close());

describe.each(['/api/external/v2/team-members', '/api/external/v1/team_members'])('GET %s', (path) => {

  it('without page_number returns every member as one page', async () => {
    const res = await env.alpha.api.get(path, JSON_ACCEPT);
    expect(res.status).toBe(200);
    expect(res.body.team_members).toHaveLength(45);
    expect(res.body.pagination).toEqual({ total_records: 45, total_pages: 1, current_page: 1, page_size: 45 });
    expect(Object.keys(res.body.team_members[0]).sort()).toEqual(
      ['active', 'email', 'first_name', 'id', 'last_name', 'organization_role', 'profile_image_url', 'time_zone'].sort(),
    );
  });

  it('pages with the default size of 30', async () => {
    const first = await env.alpha.api.get(`${path}?page_number=1`, JSON_ACCEPT);
    expect(first.body.team_members).toHaveLength(30);
    expect(first.body.pagination).toEqual({ total_records: 45, total_pages: 2, current_page: 1, page_size: 30 });
    const second = await env.alpha.api.get(`${path}?page_number=2`, JSON_ACCEPT);
    expect(second.body.team_members).toHaveLength(15);
    const ids = new Set([...first.body.team_members, ...second.body.team_members].map((m: { id: string }) => m.id));
    expect(ids.size).toBe(45);
  });

  it('honours page_size and answers an empty page beyond the end', async () => {
    const res = await env.alpha.api.get(`${path}?page_number=5&page_size=10`, JSON_ACCEPT);
    expect(res.body.team_members).toHaveLength(5);
    expect(res.body.pagination).toEqual({ total_records: 45, total_pages: 5, current_page: 5, page_size: 10 });
    const beyond = await env.alpha.api.get(`${path}?page_number=9&page_size=10`, JSON_ACCEPT);
    expect(beyond.status).toBe(200);
    expect(beyond.body.team_members).toEqual([]);
    expect(beyond.body.pagination.total_records).toBe(45);
  });

  it.each(['page_size=0', 'page_size=101', 'page_size=abc', 'page_number=0', 'page_number=-1', 'page_number=1.5', 'page_number=x&page_size=10'])(
    '422 for %s',
    async (query) => {
      const res = await env.alpha.api.get(`${path}?page_number=1&${query}`, JSON_ACCEPT);
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.details[0].path).toMatch(/^page_(size|number)$/);
    },
  );

  it('accepts page_size 1 and 100', async () => {
    for (const size of [1, 100]) {
      const res = await env.alpha.api.get(`${path}?page_number=1&page_size=${size}`, JSON_ACCEPT);
      expect(res.status).toBe(200);
      expect(res.body.team_members).toHaveLength(Math.min(size, 45));
    }
  });

  it.each([undefined, '*/*', 'text/html', 'application/xml', 'application/json;q=0', 'application/*'])('406 when Accept is %s', async (accept) => {
    const res = await env.alpha.api.get(path, { headers: accept ? { accept } : {} });
    expect(res.status).toBe(406);
    expect(res.body.code).toBe('not_acceptable');
  });

  it('accepts application/json among other types and with parameters', async () => {
    const res = await env.alpha.api.get(path, { headers: { accept: 'text/html, application/json;q=0.9' } });
    expect(res.status).toBe(200);
  });

  it('filters by email (the vendor documents the parameter), ignoring case, paged like the whole list', async () => {
    const res = await env.alpha.api.get(`${path}?email=${encodeURIComponent(' M7@ALPHA.test ')}`, JSON_ACCEPT);
    expect(res.status).toBe(200);
    expect(res.body.team_members.map((m: { email: string }) => m.email)).toEqual(['m7@alpha.test']);
    expect(res.body.pagination).toEqual({ total_records: 1, total_pages: 1, current_page: 1, page_size: 1 });
    const paged = await env.alpha.api.get(`${path}?email=m7@alpha.test&page_number=1&page_size=10`, JSON_ACCEPT);
    expect(paged.body.pagination).toEqual({ total_records: 1, total_pages: 1, current_page: 1, page_size: 10 });
    const none = await env.alpha.api.get(`${path}?email=nobody@alpha.test`, JSON_ACCEPT);
    expect(none.body).toEqual({ team_members: [], pagination: { total_records: 0, total_pages: 1, current_page: 1, page_size: 0 } });
    // Another workspace's address finds nothing here.
    expect((await env.alpha.api.get(`${path}?email=owner@beta.test`, JSON_ACCEPT)).body.team_members).toEqual([]);
    const bad = await env.alpha.api.get(`${path}?email=not-an-address`, JSON_ACCEPT);
    expect(bad.status).toBe(422);
    expect(bad.body.details[0].path).toBe('email');
  });

  it("never lists another workspace's members", async () => {
    const res = await env.beta.api.get(path, JSON_ACCEPT);
    expect(res.body.team_members.map((m: { email: string }) => m.email)).toEqual(['owner@beta.test']);
  });
});

describe('PATCH /api/external/v1/team_members/{id}', () => {
  let memberId: string;
  const path = () => `/api/external/v1/team_members/${memberId}`;
  beforeAll(() => {
    memberId = makeMember(env.alpha.handle.db, { email: 'patch.me@alpha.test' }).id;
  });

  it('updates only the given fields and returns the record', async () => {
    const res = await env.alpha.api.patch(path(), { first_name: 'Pat', time_zone: 'Asia/Kolkata' }, JSON_ACCEPT);
    expect(res.status).toBe(200);
    expect(res.body.team_member).toMatchObject({ id: memberId, first_name: 'Pat', time_zone: 'Asia/Kolkata', email: 'patch.me@alpha.test', active: true });
    const list = await env.alpha.api.get('/api/external/v2/team-members', JSON_ACCEPT);
    expect(list.body.team_members.find((m: { id: string }) => m.id === memberId).first_name).toBe('Pat');
  });

  it('validates the time zone against IANA names and stores the canonical name', async () => {
    const bad = await env.alpha.api.patch(path(), { time_zone: 'Mars/Olympus' }, JSON_ACCEPT);
    expect(bad.status).toBe(422);
    expect(bad.body.details).toEqual([{ path: 'time_zone', message: expect.stringContaining('IANA') }]);
    const offset = await env.alpha.api.patch(path(), { time_zone: '+02:00' }, JSON_ACCEPT);
    expect(offset.status).toBe(422);
    const good = await env.alpha.api.patch(path(), { time_zone: 'america/new_york' }, JSON_ACCEPT);
    expect(good.body.team_member.time_zone).toBe('America/New_York');
    // current names ICU lists under older ones (or not at all) have their case fixed too
    for (const [sent, stored] of [['asia/kolkata', 'Asia/Kolkata'], ['utc', 'UTC'], ['etc/utc', 'Etc/UTC'], ['asia/ho_chi_minh', 'Asia/Ho_Chi_Minh']]) {
      expect((await env.alpha.api.patch(path(), { time_zone: sent }, JSON_ACCEPT)).body.team_member.time_zone).toBe(stored);
    }
  });

  it('matches organization roles case-sensitively', async () => {
    const wrongCase = await env.alpha.api.patch(path(), { organization_role: 'admin' }, JSON_ACCEPT);
    expect(wrongCase.status).toBe(422);
    expect(wrongCase.body.details[0].path).toBe('organization_role');
    const right = await env.alpha.api.patch(path(), { organization_role: 'Admin' }, JSON_ACCEPT);
    expect(right.status).toBe(200);
    expect(right.body.team_member.organization_role).toBe('Admin');
  });

  it('toggles active', async () => {
    const off = await env.alpha.api.patch(path(), { active: false }, JSON_ACCEPT);
    expect(off.body.team_member.active).toBe(false);
    const on = await env.alpha.api.patch(path(), { active: true }, JSON_ACCEPT);
    expect(on.body.team_member.active).toBe(true);
    const notBool = await env.alpha.api.patch(path(), { active: 'false' }, JSON_ACCEPT);
    expect(notBool.status).toBe(422);
  });

  it('rejects a bad or taken e-mail and empty names', async () => {
    expect((await env.alpha.api.patch(path(), { email: 'not-an-email' }, JSON_ACCEPT)).status).toBe(422);
    expect((await env.alpha.api.patch(path(), { first_name: '  ' }, JSON_ACCEPT)).status).toBe(422);
    const taken = await env.alpha.api.patch(path(), { email: 'OWNER@alpha.test' }, JSON_ACCEPT);
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('team_member_email_taken');
  });

  it('404 for unknown and malformed ids', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const res = await env.alpha.api.patch(`/api/external/v1/team_members/${id}`, { first_name: 'X' }, JSON_ACCEPT);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('team_member_not_found');
    }
  });

  it('keeps the last active Owner', async () => {
    const res = await env.alpha.api.patch(`/api/external/v1/team_members/${env.alpha.ownerId}`, { active: false }, JSON_ACCEPT);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('last_owner');
  });

  it('requires Accept: application/json', async () => {
    const res = await env.alpha.api.patch(path(), { first_name: 'X' });
    expect(res.status).toBe(406);
  });
});
