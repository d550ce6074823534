import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueMail } from '../src/mail/outbox.ts';
import { deliverOutbox } from '../src/mail/worker.ts';
import { scopeOf, startTestEnv, type TestEnv } from './helpers/env.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv();
});
afterAll(() => env.close());

describe('outbox passes', () => {
  it('deliver a large batch in bounded passes and say when another is due at once', async () => {
    const { handle } = env.alpha;
    const scope = scopeOf(env.services, handle);
    scope.write((tx) => {
      for (let i = 0; i < 205; i++) {
        enqueueMail(scope, tx, { kind: 'approval_request', to: { address: `pm${i}@alpha.test` }, subject: `S${i}`, text: 'T' });
      }
    });
    const first = await deliverOutbox(handle, env.services);
    expect(first).toMatchObject({ sent: 200, more: true });
    const second = await deliverOutbox(handle, env.services);
    expect(second).toMatchObject({ sent: 5, more: false });
    // without SMTP_URL every message is an .eml file of this workspace
    expect(readdirSync(join(env.dataDir, 'mail', 'alpha')).filter((f) => f.endsWith('.eml'))).toHaveLength(205);
  });
});
