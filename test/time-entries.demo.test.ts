import { count } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timeEntries } from '../src/db/schema/index.ts';
import { seedTimeEntries } from '../src/demo/time-entries.ts';
import { makeMember, makeProjectSetup, makeProjectUser } from './helpers/factories.ts';
import { scopeOf, startTestEnv, testClock, type TestEnv } from './helpers/env.ts';

let env: TestEnv;
const NOW = new Date('2026-11-18T10:00:00.000Z');

beforeAll(async () => {
  env = await startTestEnv({ clock: testClock(NOW.toISOString()) });
});
afterAll(() => env.close());

describe('seedTimeEntries', () => {
  it('does nothing without projects and users', () => {
    seedTimeEntries(scopeOf(env.services, env.beta.handle, NOW));
    expect(env.beta.handle.db.select({ n: count() }).from(timeEntries).get()?.n).toBe(0);
  });

  it('adds about twenty entries over the last two weeks through the domain rules, once', () => {
    const db = env.alpha.handle.db;
    const s = makeProjectSetup(db, { project: { timeRoundUpto: 15 }, member: { timeZone: 'Asia/Tokyo' } });
    const second = makeMember(db, { timeZone: 'America/New_York' });
    makeProjectUser(db, s.project.id, second.id);
    seedTimeEntries(scopeOf(env.services, env.alpha.handle, NOW));
    const rows = db.select().from(timeEntries).all();
    expect(rows.length).toBe(20);
    expect(new Set(rows.map((r) => r.userId))).toEqual(new Set([s.member.id, second.id]));
    for (const r of rows) {
      expect(r.recordedOn >= '2026-11-05' && r.recordedOn <= '2026-11-18').toBe(true);
      expect(r.seconds % 900).toBe(0);
      expect(r.createdAt).toBe(NOW.toISOString());
    }
    seedTimeEntries(scopeOf(env.services, env.alpha.handle, NOW));
    expect(db.select().from(timeEntries).all()).toHaveLength(20);
  });
});
