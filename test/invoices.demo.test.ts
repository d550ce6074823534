import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoiceLines, invoices } from '../src/db/schema/index.ts';
import { seedDemo } from '../src/demo/seed.ts';
import { provisionWorkspace } from '../src/domain/workspace/provision.ts';
import { scopeOf, startTestEnv, type TestEnv } from './helpers/env.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv();
});
afterAll(() => env.close());

describe('demo invoices', () => {
  it('seeds a time-entry invoice and a service invoice, once', () => {
    provisionWorkspace(env.services.registry, { subdomain: 'demo', timeZone: 'UTC', owner: { email: 'owner@demo.localhost', firstName: 'D', lastName: 'O' } }, new Date());
    const handle = env.services.registry.get('demo')!;
    const now = new Date('2026-11-18T10:00:00.000Z');
    seedDemo(scopeOf(env.services, handle, now));
    seedDemo(scopeOf(env.services, handle, now));
    const rows = handle.db.select().from(invoices).all();
    expect(rows.map((r) => r.number).sort()).toEqual(rows.length === 2 ? ['INV-0001', 'INV-0002'] : ['INV-0001']);
    const service = rows.find((r) => r.totalMinor > 0 && handle.db.select().from(invoiceLines).where(eq(invoiceLines.invoiceId, r.id)).all().every((l) => l.kind === 'service'));
    expect(service).toBeDefined();
    // 1,500.00 + 3 × 49.90 = 1,649.70; VAT 19 % = 313.44
    expect(service!.totalMinor).toBe(164970 + 31344);
  });
});
