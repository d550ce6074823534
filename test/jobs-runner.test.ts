import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJobs, type Job } from '../src/jobs/runner.ts';
import { startTestEnv, type TestEnv } from './helpers/env.ts';

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
      everyMs: 3_600_000,
      async run(handle) {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        visits.push(handle.subdomain);
        if (hold) await new Promise<void>((r) => (release = r));
        inFlight--;
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
      expect(visits).toEqual(['alpha', 'gamma', 'beta']);
      expect(maxInFlight).toBe(1);
      running.kick('probe', 'unknown-workspace'); // nothing on disk: skipped without error
    } finally {
      await running.stop();
    }
  });
});
