import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { simpleParser } from 'mailparser';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { invoices, outbox, projects, recipients } from '../src/db/schema/index.ts';
import { outboxJob } from '../src/jobs/outbox.ts';
import { runJobOnce } from '../src/jobs/runner.ts';
import { deliverOutbox, LEASE_MS, MAX_ATTEMPTS } from '../src/mail/worker.ts';
import { startTestEnv, testClock, type TestEnv, type TestWorkspace } from './helpers/env.ts';
import { makeProjectSetup, makeRecipient, makeTimeEntry } from './helpers/factories.ts';
import { freePort, startSmtp } from './helpers/smtp.ts';

/** An invoice with recipients, e-mailed; returns its id and the recipients. */
async function sendInvoice(ws: TestWorkspace, opts: { copy?: boolean; attach?: boolean; replyTo?: string | null; link?: boolean } = {}) {
  const db = ws.handle.db;
  const s = makeProjectSetup(db, { project: { replyTo: opts.replyTo ?? null } });
  const entry = makeTimeEntry(db, { clientId: s.client.id, projectId: s.project.id, taskId: s.task.id, userId: s.member.id });
  const recipients = [makeRecipient(db, s.client.id, { name: 'Ann Client' }), makeRecipient(db, s.client.id, { name: 'Bob Client' })];
  const res = await ws.api.post(`/api/external/v2/clients/${s.client.id}/invoices`, {
    email: ws.ownerEmail,
    number: `M-${entry.id.slice(0, 8)}`,
    total: 100,
    include_payment_link: opts.link ?? false,
    invoice_time_entries: [{ time_entry_id: entry.id, project_id: s.project.id, task_id: s.task.id, user_id: s.member.id }],
    send_email: true,
    invoice_details: {
      subject: 'Your invoice for November',
      message: 'Hello, here is our invoice.',
      attach_pdf_invoice: opts.attach === false ? 'false' : 'true',
      send_me_a_copy: opts.copy === false ? 'false' : 'true',
      recipient_ids: recipients.map((r) => r.id),
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { id: res.body.invoice.id as string, number: res.body.invoice.number as string, recipients, project: s.project };
}

const invoiceStatus = (ws: TestWorkspace, id: string) => ws.handle.db.select().from(invoices).where(eq(invoices.id, id)).get()!.status;

describe('delivery through a real SMTP server', () => {
  let env: TestEnv;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  const clock = testClock();
  beforeAll(async () => {
    smtp = await startSmtp();
    env = await startTestEnv({ clock, env: { SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, MAIL_FROM: 'Agency <billing@agency.test>' } });
  });
  afterAll(async () => {
    await env.close();
    await smtp.close();
  });
  afterEach(() => {
    smtp.received.length = 0;
  });

  it('delivers to each recipient and the copy, with subject, Reply-To, payment link and the PDF; then the invoice is sent', async () => {
    const inv = await sendInvoice(env.alpha, { replyTo: 'pm@agency.test', link: true });
    expect(invoiceStatus(env.alpha, inv.id)).toBe('sending');
    await runJobOnce(outboxJob, env.services);

    expect(smtp.received).toHaveLength(3);
    const byRcpt = new Map(smtp.received.map((r) => [r.rcptTo[0], r.mail]));
    expect([...byRcpt.keys()].sort()).toEqual([...inv.recipients.map((r) => r.email), env.alpha.ownerEmail].sort());
    const rows = env.alpha.handle.db.select().from(outbox).where(eq(outbox.invoiceId, inv.id)).all();
    for (const r of inv.recipients) {
      const mail = byRcpt.get(r.email)!;
      expect(mail.subject).toBe('Your invoice for November');
      expect(mail.from?.value[0]).toMatchObject({ name: 'Agency', address: 'billing@agency.test' });
      expect(mail.to && !Array.isArray(mail.to) ? mail.to.value[0] : null).toMatchObject({ address: r.email, name: r.name });
      expect(mail.replyTo?.text).toBe('pm@agency.test');
      expect(mail.text).toContain('Hello, here is our invoice.');
      expect(mail.text).toMatch(/http:\/\/alpha\.localhost:3000\/invoices\/[A-Za-z0-9_-]{43}/);
      expect(mail.attachments).toHaveLength(1);
      expect(mail.attachments[0]!.contentType).toBe('application/pdf');
      expect(mail.attachments[0]!.filename).toBe(`invoice-${inv.number}.pdf`);
      expect(mail.attachments[0]!.content.subarray(0, 4).toString('latin1')).toBe('%PDF');
      expect(rows.find((row) => row.toAddress === r.email)!.messageId).toBe(mail.messageId);
    }
    const copy = byRcpt.get(env.alpha.ownerEmail)!;
    expect(copy.subject).toBe('Copy: Your invoice for November');
    expect(copy.attachments[0]!.content.subarray(0, 4).toString('latin1')).toBe('%PDF');

    expect(invoiceStatus(env.alpha, inv.id)).toBe('sent');
    const deliveries = await env.alpha.caller.invoices.deliveries({ invoice_id: inv.id });
    expect(deliveries.items.map((d) => [d.status, d.attempts])).toEqual([
      ['sent', 1],
      ['sent', 1],
      ['sent', 1],
    ]);

    // Another pass sends nothing again.
    await runJobOnce(outboxJob, env.services);
    expect(smtp.received).toHaveLength(3);
  });

  it('without send_me_a_copy and attach_pdf_invoice "false": recipients only, no attachment, no Reply-To', async () => {
    const inv = await sendInvoice(env.alpha, { copy: false, attach: false });
    await runJobOnce(outboxJob, env.services);
    expect(smtp.received.map((r) => r.rcptTo[0]).sort()).toEqual(inv.recipients.map((r) => r.email).sort());
    for (const r of smtp.received) {
      expect(r.mail.attachments).toHaveLength(0);
      expect(r.mail.replyTo).toBeUndefined();
      expect(r.mail.text).not.toContain('/invoices/');
    }
  });

  it('a message claimed by a worker that died is taken over once the lease has passed', async () => {
    const inv = await sendInvoice(env.alpha, { copy: false });
    env.alpha.handle.db.update(outbox).set({ claimedAt: clock().toISOString() }).where(eq(outbox.invoiceId, inv.id)).run();
    await runJobOnce(outboxJob, env.services);
    expect(smtp.received).toHaveLength(0);
    clock.advance(LEASE_MS + 1);
    await runJobOnce(outboxJob, env.services);
    expect(smtp.received).toHaveLength(2);
    expect(invoiceStatus(env.alpha, inv.id)).toBe('sent');
  });

  it('two workers running at once deliver each message exactly once', async () => {
    const invs = [await sendInvoice(env.alpha), await sendInvoice(env.alpha), await sendInvoice(env.alpha)];
    const handle = env.alpha.handle;
    const results = await Promise.all([deliverOutbox(handle, env.services), deliverOutbox(handle, env.services), deliverOutbox(handle, env.services)]);
    expect(results.reduce((n, r) => n + r.sent, 0)).toBe(9);
    expect(smtp.received).toHaveLength(9);
    const ids = smtp.received.map((r) => r.mail.messageId);
    expect(new Set(ids).size).toBe(9);
    for (const inv of invs) expect(invoiceStatus(env.alpha, inv.id)).toBe('sent');
  });

  it('a voided invoice is not delivered', async () => {
    const inv = await sendInvoice(env.alpha);
    await env.alpha.caller.invoices.void({ email: env.alpha.ownerEmail, invoice_id: inv.id });
    await runJobOnce(outboxJob, env.services);
    expect(smtp.received).toHaveLength(0);
    const deliveries = await env.alpha.caller.invoices.deliveries({ invoice_id: inv.id });
    expect(deliveries.items.every((d) => d.status === 'failed' && /voided/.test(d.last_error ?? ''))).toBe(true);
  });
});

describe('a recipient deleted after the invoice was queued', () => {
  let env: TestEnv;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  beforeAll(async () => {
    smtp = await startSmtp();
    env = await startTestEnv({ env: { SMTP_URL: `smtp://127.0.0.1:${smtp.port}` } });
  });
  afterAll(async () => {
    await env.close();
    await smtp.close();
  });
  afterEach(() => {
    smtp.received.length = 0;
  });
  const deleteRecipient = (id: string) => env.alpha.handle.db.update(recipients).set({ deleted: true }).where(eq(recipients.id, id)).run();

  it('gets nothing; the others get theirs and the invoice still becomes sent', async () => {
    const inv = await sendInvoice(env.alpha, { attach: false });
    const [gone, kept] = inv.recipients;
    deleteRecipient(gone!.id);
    await runJobOnce(outboxJob, env.services);
    expect(smtp.received.map((r) => r.rcptTo[0]).sort()).toEqual([kept!.email, env.alpha.ownerEmail].sort());
    const rows = env.alpha.handle.db.select().from(outbox).where(eq(outbox.invoiceId, inv.id)).all();
    expect(rows.find((r) => r.toAddress === gone!.email)).toMatchObject({
      status: 'failed',
      recipientId: gone!.id,
      lastError: 'cancelled: the recipient was deleted before delivery',
    });
    expect(invoiceStatus(env.alpha, inv.id)).toBe('sent');
  });

  it('when every recipient is gone, nothing reaches the client and the invoice is a draft again', async () => {
    const inv = await sendInvoice(env.alpha, { copy: false, attach: false });
    for (const r of inv.recipients) deleteRecipient(r.id);
    await runJobOnce(outboxJob, env.services);
    expect(smtp.received).toHaveLength(0);
    expect(invoiceStatus(env.alpha, inv.id)).toBe('draft');
  });
});

describe('when the SMTP server is down', () => {
  let env: TestEnv;
  let port: number;
  const clock = testClock();
  beforeAll(async () => {
    port = await freePort();
    env = await startTestEnv({ clock, env: { SMTP_URL: `smtp://127.0.0.1:${port}` } });
  });
  afterAll(() => env.close());

  it('retries with backoff and delivers exactly once when it comes up', async () => {
    const inv = await sendInvoice(env.alpha, { copy: false });
    await runJobOnce(outboxJob, env.services);
    let deliveries = await env.alpha.caller.invoices.deliveries({ invoice_id: inv.id });
    expect(deliveries.items).toHaveLength(2);
    for (const d of deliveries.items) {
      expect(d).toMatchObject({ status: 'pending', attempts: 1 });
      expect(d.last_error).toBeTruthy();
      expect(d.next_attempt_at).toBe(new Date(clock().getTime() + 60_000).toISOString());
    }
    expect(invoiceStatus(env.alpha, inv.id)).toBe('sending');

    const smtp = await startSmtp(port);
    try {
      // Not due yet: the backoff is respected.
      await runJobOnce(outboxJob, env.services);
      expect(smtp.received).toHaveLength(0);
      clock.advance(60_000);
      await runJobOnce(outboxJob, env.services);
      await runJobOnce(outboxJob, env.services);
      clock.advance(3_600_000);
      await runJobOnce(outboxJob, env.services);
      expect(smtp.received.map((r) => r.rcptTo[0]).sort()).toEqual(inv.recipients.map((r) => r.email).sort());
      deliveries = await env.alpha.caller.invoices.deliveries({ invoice_id: inv.id });
      expect(deliveries.items.map((d) => [d.status, d.attempts, d.last_error])).toEqual([
        ['sent', 2, null],
        ['sent', 2, null],
      ]);
      expect(invoiceStatus(env.alpha, inv.id)).toBe('sent');
    } finally {
      await smtp.close();
    }
  });

  it(`gives up after ${MAX_ATTEMPTS} attempts: failed, with the last error, visible in deliveries`, async () => {
    const inv = await sendInvoice(env.alpha, { copy: false, attach: false });
    const waits: number[] = [];
    for (let i = 0; i < MAX_ATTEMPTS + 2; i++) {
      await runJobOnce(outboxJob, env.services);
      const row = env.alpha.handle.db.select().from(outbox).where(eq(outbox.invoiceId, inv.id)).get()!;
      if (row.status === 'pending') waits.push(new Date(row.nextAttemptAt).getTime() - clock().getTime());
      clock.set(row.nextAttemptAt);
      clock.advance(1);
    }
    // 1, 2, 4, ... minutes, capped at two hours.
    expect(waits.slice(0, 4)).toEqual([60_000, 120_000, 240_000, 480_000]);
    expect(Math.max(...waits)).toBeLessThanOrEqual(2 * 3_600_000);
    const deliveries = await env.alpha.caller.invoices.deliveries({ invoice_id: inv.id });
    for (const d of deliveries.items) {
      expect(d.status).toBe('failed');
      expect(d.attempts).toBe(MAX_ATTEMPTS);
      expect(d.last_error).toMatch(/ECONNREFUSED|connect/i);
    }
    expect(invoiceStatus(env.alpha, inv.id)).toBe('sending');
  });
});

describe('without SMTP_URL', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await startTestEnv();
  });
  afterAll(() => env.close());

  it('writes each message as an .eml file under DATA_DIR/mail/<subdomain>/', async () => {
    const inv = await sendInvoice(env.alpha, { copy: false, replyTo: 'pm@agency.test' });
    env.alpha.handle.db.update(projects).set({ replyTo: null }).where(eq(projects.id, inv.project.id)).run();
    await runJobOnce(outboxJob, env.services);
    const dir = join(env.dataDir, 'mail', 'alpha');
    expect(existsSync(dir)).toBe(true);
    const rows = env.alpha.handle.db.select().from(outbox).where(eq(outbox.invoiceId, inv.id)).all();
    const files = readdirSync(dir);
    for (const row of rows) {
      expect(files).toContain(`${row.id}.eml`);
      const parsed = await simpleParser(readFileSync(join(dir, `${row.id}.eml`)));
      expect(parsed.messageId).toBe(row.messageId);
      expect(parsed.replyTo?.text).toBe('pm@agency.test');
      expect(parsed.attachments[0]!.content.subarray(0, 4).toString('latin1')).toBe('%PDF');
    }
    expect(invoiceStatus(env.alpha, inv.id)).toBe('sent');
  });
});

describe('with the background jobs running', () => {
  let env: TestEnv;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  beforeAll(async () => {
    smtp = await startSmtp();
    env = await startTestEnv({ jobs: true, env: { SMTP_URL: `smtp://127.0.0.1:${smtp.port}` } });
  });
  afterAll(async () => {
    await env.close();
    await smtp.close();
  });

  it('the commit wakes the outbox job, which delivers without being called', async () => {
    const inv = await sendInvoice(env.alpha, { copy: false });
    await vi.waitFor(() => expect(smtp.received).toHaveLength(2), { timeout: 10_000, interval: 20 });
    await vi.waitFor(() => expect(invoiceStatus(env.alpha, inv.id)).toBe('sent'), { timeout: 10_000, interval: 20 });
    expect(smtp.received.map((r) => r.rcptTo[0]).sort()).toEqual(inv.recipients.map((r) => r.email).sort());
  });
});
