import { eq } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJobs, type Job } from '../src/jobs/runner.ts';
import { enqueueMail } from '../src/mail/outbox.ts';
import { LEASE_MS, nextDueAt } from '../src/mail/worker.ts';
import { outbox } from '../src/db/schema/index.ts';
import { scopeOf, startTestEnv, type TestEnv } from './helpers/env.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv();
  env.workspace('gamma');
});
afterAll(() => env.close());

const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(check()).toBe(true);
};

describe('startJobs', () => {
  it('passes over every workspace first, then a kick visits only the kicked workspace, never overlapping', async () => {
    const visits: string[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    let release: (() => void) | null = null;
    let hold = false;
    const job: Job = {
      name: 'probe',
      async run(handle) {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        visits.push(handle.subdomain);
        if (hold) await new Promise<void>((r) => (release = r));
        inFlight--;
        return Number.POSITIVE_INFINITY;
      },
    };
    const running = startJobs([job], env.services, pino({ level: 'silent' }));
    try {
      await until(() => visits.length === 3);
      expect([...visits].sort()).toEqual(['alpha', 'beta', 'gamma']);

      visits.length = 0;
      running.kick('probe', 'beta');
      await until(() => visits.length === 1);
      expect(visits).toEqual(['beta']);

      // kicks that arrive during a pass are run after it, together, not beside it
      visits.length = 0;
      hold = true;
      running.kick('probe', 'alpha');
      await until(() => release !== null);
      hold = false;
      running.kick('probe', 'gamma');
      running.kick('probe', 'gamma');
      running.kick('probe', 'beta');
      expect(visits).toEqual(['alpha']);
      release!();
      await until(() => visits.length === 3);
      expect(visits[0]).toBe('alpha');
      expect(visits.slice(1).sort()).toEqual(['beta', 'gamma']);
      expect(maxInFlight).toBe(1);
      running.kick('probe', 'unknown-workspace'); // nothing on disk: skipped without error
    } finally {
      await running.stop();
    }
  });
});

describe('a pass over many workspaces', () => {
  it('gives the event loop back between workspaces, so requests are answered during it', async () => {
    const order: string[] = [];
    const job: Job = {
      name: 'busy-probe',
      run(handle) {
        // 12 ms of synchronous work per workspace, as a first visit of big files may take
        const until = performance.now() + 12;
        while (performance.now() < until);
        order.push(handle.subdomain);
        return Number.POSITIVE_INFINITY;
      },
    };
    let timerFiredAfter = -1;
    const running = startJobs([job], env.services, pino({ level: 'silent' }));
    setTimeout(() => (timerFiredAfter = order.length), 0);
    try {
      const workspaces = env.services.registry.list().length;
      expect(workspaces).toBeGreaterThanOrEqual(3);
      await until(() => order.length === workspaces);
      // The timer ran while the pass was still going, not only once it was done.
      expect(timerFiredAfter).toBeGreaterThanOrEqual(0);
      expect(timerFiredAfter).toBeLessThan(workspaces);
    } finally {
      await running.stop();
    }
  });
});

describe('many jobs over many workspaces', () => {
  it('work in turns: never two workspace visits in one turn of the event loop', async () => {
    // A ticker counts the turns of the event loop (one check phase each).
    let turn = 0;
    let ticking = true;
    const tick = () => {
      turn++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const visits: { job: string; turn: number }[] = [];
    const busy = (name: string): Job => ({
      name,
      run() {
        // 12 ms of synchronous work, more than a slice: the job must give the loop back after it.
        const until = performance.now() + 12;
        while (performance.now() < until);
        visits.push({ job: name, turn });
        return Number.POSITIVE_INFINITY;
      },
    });
    const jobs = ['one', 'two', 'three'].map(busy);
    const running = startJobs(jobs, env.services, pino({ level: 'silent' }));
    try {
      const expected = jobs.length * env.services.registry.list().length;
      await until(() => visits.length === expected);
      const turnsUsed = new Set(visits.map((v) => v.turn));
      // Five jobs with a slice each held one turn for 50 ms at start-up; now a turn is one slice.
      expect(turnsUsed.size).toBe(visits.length);
      // And they take turns: every job had a visit before any job had its third.
      const third = visits.findIndex((v, i) => visits.slice(0, i + 1).filter((w) => w.job === v.job).length === 3);
      expect(new Set(visits.slice(0, third === -1 ? visits.length : third).map((v) => v.job))).toEqual(new Set(['one', 'two', 'three']));
    } finally {
      ticking = false;
      await running.stop();
    }
  });
});

describe('one schedule per job', () => {
  it('after the first visit a workspace runs again only when it said it would be due, or when a write moved it', async () => {
    const visits: string[] = [];
    const start = env.services.clock().getTime();
    const dueAt: Record<string, number> = { alpha: Number.POSITIVE_INFINITY, beta: start + 150, gamma: start + 3_600_000 };
    const job: Job = {
      name: 'schedule-probe',
      followsWrites: true,
      run(handle) {
        visits.push(handle.subdomain);
        const due = dueAt[handle.subdomain] ?? Number.POSITIVE_INFINITY;
        dueAt[handle.subdomain] = Number.POSITIVE_INFINITY; // each is due once
        return due;
      },
    };
    const running = startJobs([job], env.services, pino({ level: 'silent' }));
    try {
      await until(() => visits.length >= 3);
      expect(visits.slice(0, 3).sort()).toEqual(['alpha', 'beta', 'gamma']);
      visits.length = 0;
      // beta asked to be visited 150 ms later; alpha never, gamma in an hour
      await until(() => visits.length === 1);
      expect(visits).toEqual(['beta']);
      await new Promise((r) => setTimeout(r, 300));
      expect(visits).toEqual(['beta']);
      // a committed write in alpha: the job looks again shortly after, and only there
      visits.length = 0;
      running.changed('alpha');
      running.changed('alpha');
      await new Promise((r) => setTimeout(r, 1_500));
      expect(visits).toEqual(['alpha']);
    } finally {
      await running.stop();
    }
  });

  it('nextDueAt: nothing pending is never; else the earliest retry, or the end of a claim', () => {
    const { db } = env.workspace('idle').handle;
    expect(nextDueAt(db)).toBe(Number.POSITIVE_INFINITY);
    const t = env.services.clock();
    const scope = scopeOf(env.services, env.workspace('idle2').handle, t);
    const id = db.transaction((tx) => enqueueMail(scope, tx, { kind: 'approval_request', to: { address: 'pm@idle.test' }, subject: 'S', text: 'T' }));
    expect(nextDueAt(db)).toBe(t.getTime());
    db.update(outbox).set({ nextAttemptAt: new Date(t.getTime() + 120_000).toISOString() }).where(eq(outbox.id, id)).run();
    expect(nextDueAt(db)).toBe(t.getTime() + 120_000);
    db.update(outbox).set({ claimedAt: t.toISOString() }).where(eq(outbox.id, id)).run();
    expect(nextDueAt(db)).toBe(t.getTime() + LEASE_MS);
    db.update(outbox).set({ status: 'sent' }).where(eq(outbox.id, id)).run();
    expect(nextDueAt(db)).toBe(Number.POSITIVE_INFINITY);
  });
});
