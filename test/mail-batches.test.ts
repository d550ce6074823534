import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueMail } from '../src/mail/outbox.ts';
import { deliverOutbox } from '../src/mail/worker.ts';
import { startTestEnv, type TestEnv } from './helpers/env.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv();
});
afterAll(() => env.close());

describe('outbox passes', () => {
  it('deliver a large batch in bounded passes and say when another is due at once', async () => {
    const { handle } = env.alpha;
    handle.db.transaction((tx) => {
      for (let i = 0; i < 205; i++) {
        enqueueMail(tx, { kind: 'approval_request', to: { address: `pm${i}@alpha.test` }, subject: `S${i}`, text: 'T' }, env.services.clock());
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
