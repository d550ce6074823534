import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { simpleParser } from 'mailparser';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { invoices, outbox, projects, recipients } from '../src/db/schema/index.ts';
import { outboxJob } from '../src/jobs/outbox.ts';
import { remindersJob } from '../src/jobs/reminders.ts';
import { runJobOnce } from '../src/jobs/runner.ts';
import { deliverOutbox, LEASE_MS, MAX_ATTEMPTS } from '../src/mail/worker.ts';
import { startTestEnv, testClock, type TestEnv, type TestWorkspace } from './helpers/env.ts';
import { makeClient, makeProjectSetup, makeRecipient, makeTimeEntry } from './helpers/factories.ts';
import { startSmtp, useSmtpEnv, type Smtp } from './helpers/smtp.ts';
import { freePort } from './helpers/ports.ts';

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
  const clock = testClock();
  const ctx = useSmtpEnv({ clock, mailFrom: 'Agency <billing@agency.test>' });

  it('delivers to each recipient and the copy, with subject, Reply-To, payment link and the PDF; then the invoice is sent', async () => {
    const inv = await sendInvoice(ctx.env.alpha, { replyTo: 'pm@agency.test', link: true });
    expect(invoiceStatus(ctx.env.alpha, inv.id)).toBe('sending');
    await runJobOnce(outboxJob, ctx.env.services);

    expect(ctx.smtp.received).toHaveLength(3);
    const byRcpt = new Map(ctx.smtp.received.map((r) => [r.rcptTo[0], r.mail]));
    expect([...byRcpt.keys()].sort()).toEqual([...inv.recipients.map((r) => r.email), ctx.env.alpha.ownerEmail].sort());
    const rows = ctx.env.alpha.handle.db.select().from(outbox).where(eq(outbox.invoiceId, inv.id)).all();
    for (const r of inv.recipients) {
      const mail = byRcpt.get(r.email)!;
      expect(mail.subject).toBe('Your invoice for November');
      // From: the workspace's name (no identity set yet) at the address of MAIL_FROM.
      expect(mail.from?.value[0]).toMatchObject({ name: 'alpha', address: 'billing@agency.test' });
      expect(mail.to && !Array.isArray(mail.to) ? mail.to.value[0] : null).toMatchObject({ address: r.email, name: r.name });
      expect(mail.replyTo?.text).toBe('pm@agency.test');
      // The message's bare "Hello," greets the recipient by name.
      expect(mail.text).toContain(`Hello ${r.name}, here is our invoice.`);
      expect(mail.text).toMatch(/http:\/\/alpha\.localhost:3000\/invoices\/[A-Za-z0-9_-]{43}/);
      expect(mail.attachments).toHaveLength(1);
      expect(mail.attachments[0]!.contentType).toBe('application/pdf');
      expect(mail.attachments[0]!.filename).toBe(`invoice-${inv.number}.pdf`);
      expect(mail.attachments[0]!.content.subarray(0, 4).toString('latin1')).toBe('%PDF');
      expect(rows.find((row) => row.toAddress === r.email)!.messageId).toBe(mail.messageId);
    }
    const copy = byRcpt.get(ctx.env.alpha.ownerEmail)!;
    expect(copy.subject).toBe('Copy: Your invoice for November');
    expect(copy.attachments[0]!.content.subarray(0, 4).toString('latin1')).toBe('%PDF');

    expect(invoiceStatus(ctx.env.alpha, inv.id)).toBe('sent');
    const deliveries = await ctx.env.alpha.caller.invoices.deliveries({ invoice_id: inv.id });
    expect(deliveries.items.map((d) => [d.status, d.attempts])).toEqual([
      ['sent', 1],
      ['sent', 1],
      ['sent', 1],
    ]);

    // Another pass sends nothing again.
    await runJobOnce(outboxJob, ctx.env.services);
    expect(ctx.smtp.received).toHaveLength(3);
  });

  it('without send_me_a_copy and attach_pdf_invoice "false": recipients only, no attachment, no Reply-To', async () => {
    const inv = await sendInvoice(ctx.env.alpha, { copy: false, attach: false });
    await runJobOnce(outboxJob, ctx.env.services);
    expect(ctx.smtp.received.map((r) => r.rcptTo[0]).sort()).toEqual(inv.recipients.map((r) => r.email).sort());
    for (const r of ctx.smtp.received) {
      expect(r.mail.attachments).toHaveLength(0);
      expect(r.mail.replyTo).toBeUndefined();
      expect(r.mail.text).not.toContain('/invoices/');
    }
  });

  it('a message claimed by a worker that died is taken over once the lease has passed', async () => {
    const inv = await sendInvoice(ctx.env.alpha, { copy: false });
    ctx.env.alpha.handle.db.update(outbox).set({ claimedAt: clock().toISOString() }).where(eq(outbox.invoiceId, inv.id)).run();
    await runJobOnce(outboxJob, ctx.env.services);
    expect(ctx.smtp.received).toHaveLength(0);
    clock.advance(LEASE_MS + 1);
    await runJobOnce(outboxJob, ctx.env.services);
    expect(ctx.smtp.received).toHaveLength(2);
    expect(invoiceStatus(ctx.env.alpha, inv.id)).toBe('sent');
  });

  it('two workers running at once deliver each message exactly once', async () => {
    const invs = [await sendInvoice(ctx.env.alpha), await sendInvoice(ctx.env.alpha), await sendInvoice(ctx.env.alpha)];
    const handle = ctx.env.alpha.handle;
    const results = await Promise.all([deliverOutbox(handle, ctx.env.services), deliverOutbox(handle, ctx.env.services), deliverOutbox(handle, ctx.env.services)]);
    expect(results.reduce((n, r) => n + r.sent, 0)).toBe(9);
    expect(ctx.smtp.received).toHaveLength(9);
    const ids = ctx.smtp.received.map((r) => r.mail.messageId);
    expect(new Set(ids).size).toBe(9);
    for (const inv of invs) expect(invoiceStatus(ctx.env.alpha, inv.id)).toBe('sent');
  });

  it('a voided invoice is not delivered', async () => {
    const inv = await sendInvoice(ctx.env.alpha);
    await ctx.env.alpha.caller.invoices.void({ email: ctx.env.alpha.ownerEmail, invoice_id: inv.id });
    await runJobOnce(outboxJob, ctx.env.services);
    expect(ctx.smtp.received).toHaveLength(0);
    const deliveries = await ctx.env.alpha.caller.invoices.deliveries({ invoice_id: inv.id });
    expect(deliveries.items.every((d) => d.status === 'failed' && /voided/.test(d.last_error ?? ''))).toBe(true);
  });

  it('an invoice voided while its e-mail is being delivered, the attempt then failing, is not retried later', async () => {
    const inv = await sendInvoice(ctx.env.alpha, { copy: false, attach: false });
    let arrived!: () => void;
    const dataArrived = new Promise<void>((resolve) => (arrived = resolve));
    let answer!: (err: Error) => void;
    ctx.smtp.answer = () => {
      arrived();
      return new Promise((resolve) => (answer = resolve));
    };
    try {
      const pass = runJobOnce(outboxJob, ctx.env.services);
      await dataArrived;
      await ctx.env.alpha.caller.invoices.void({ email: ctx.env.alpha.ownerEmail, invoice_id: inv.id });
      answer(Object.assign(new Error('Try again later'), { responseCode: 421 }));
      await pass;
    } finally {
      ctx.smtp.answer = null;
    }
    // The server is well again and the retry would be due: nothing goes to the client.
    clock.advance(3_600_000);
    await runJobOnce(outboxJob, ctx.env.services);
    expect(ctx.smtp.received).toEqual([]);
    const deliveries = await ctx.env.alpha.caller.invoices.deliveries({ invoice_id: inv.id });
    expect(deliveries.items).toHaveLength(2);
    for (const d of deliveries.items) expect(d).toMatchObject({ status: 'failed', last_error: expect.stringMatching(/^cancelled: .*voided/) });
  });
});

describe('mail that looks sent by the agency', () => {
  let env: TestEnv;
  let smtp: Smtp;
  const clock = testClock('2026-11-18T10:00:00.000Z');
  /** The reminders job, then the outbox, a month on (18 December), and the clock back to the tests' day. */
  async function remindAndDeliverOn18December(): Promise<void> {
    // What is queued now is delivered now, as the outbox worker would long before the reminder
    // (none goes out while the invoice's own mail is still on its way).
    await runJobOnce(outboxJob, env.services);
    clock.set('2026-12-18T09:00:00.000Z');
    try {
      await runJobOnce(remindersJob, env.services);
      await runJobOnce(outboxJob, env.services);
    } finally {
      clock.set('2026-11-18T10:00:00.000Z');
    }
  }
  beforeAll(async () => {
    smtp = await startSmtp();
    env = await startTestEnv({ clock, env: { SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, MAIL_FROM: 'hourbook <no-reply@mail.agency.test>' } });
    await env.alpha.caller.workspace.updateIdentity({
      email: env.alpha.ownerEmail,
      legal_name: 'Nordlicht Digital GmbH',
      address: 'Große Bleichen 12\n20354 Hamburg',
      sender_name: 'Nordlicht Buchhaltung',
      reply_to: 'accounts@nordlicht.test',
      locale: 'de-DE',
    });
  });
  afterAll(async () => {
    await env.close();
    await smtp.close();
  });
  afterEach(() => {
    smtp.received.length = 0;
  });

  /** A sent invoice of 100 € due 18.12.2026 to Ann, with the default message. */
  async function sendDefault(ws: TestWorkspace, opts: { message?: string; paymentProvider?: string } = {}) {
    const db = ws.handle.db;
    const s = makeProjectSetup(db);
    const ann = makeRecipient(db, s.client.id, { name: 'Ann <Client> & Co', email: 'ann@client.test' });
    const res = await ws.api.post(`/api/external/v2/clients/${s.client.id}/invoices`, {
      email: ws.ownerEmail,
      number: `AG-${ann.id.slice(0, 6)}`,
      total: 100,
      due_date: '12/18/2026',
      include_payment_link: true,
      send_automated_reminder_email: true,
      ...(opts.paymentProvider && { payment_provider: opts.paymentProvider }),
      invoice_services: [{ notes: 'Workshop', unit_amount: 100 }],
      project_id: [s.project.id],
      send_email: true,
      invoice_details: { recipient_ids: [ann.id], send_me_a_copy: 'true', ...(opts.message && { message: opts.message }) },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return { id: res.body.invoice.id as string, number: res.body.invoice.number as string, ann };
  }

  it('From the sender name at MAIL_FROM, Reply-To the workspace, greeting by name, text and HTML parts, locale amounts', async () => {
    const inv = await sendDefault(env.alpha);
    await runJobOnce(outboxJob, env.services);
    const mail = smtp.received.find((r) => r.rcptTo[0] === 'ann@client.test')!.mail;
    expect(mail.from?.value[0]).toEqual({ name: 'Nordlicht Buchhaltung', address: 'no-reply@mail.agency.test' });
    expect(mail.replyTo?.text).toBe('accounts@nordlicht.test');
    expect(mail.subject).toBe(`Invoice ${inv.number} from Nordlicht Digital GmbH`);
    expect(mail.text).toContain(`Hello Ann <Client> & Co,\n\nPlease find invoice ${inv.number} for 100,00\u00a0$, due 18.12.2026.`);
    expect(mail.text).toContain('Nordlicht Digital GmbH\nGroße Bleichen 12\n20354 Hamburg');
    // No card payment set up: the page offers no way to pay online, and the link does not say so.
    expect(mail.text).toMatch(/View the invoice online: http:\/\/alpha\.localhost:3000\/invoices\/[\w-]{43}/);
    expect(mail.text).not.toMatch(/pay the invoice online/i);
    const html = String(mail.html);
    expect(html).toContain('Hello Ann &lt;Client&gt; &amp; Co,');
    expect(html).not.toContain('<Client>');
    expect(html).toMatch(/<a href="http:\/\/alpha\.localhost:3000\/invoices\/[\w-]{43}"[^>]*>View the invoice online<\/a>/);
    expect(html).toContain('Große Bleichen 12<br>20354 Hamburg');
    const copy = smtp.received.find((r) => r.rcptTo[0] === env.alpha.ownerEmail)!.mail;
    expect(copy.text).toMatch(/^This is your copy of the e-mail sent to the client Client \d+\.\n\nHello Owner alpha,/);
  });

  it('a message that greets someone itself is kept as written; one without a greeting gets one', async () => {
    await sendDefault(env.alpha, { message: 'Dear Ann,\n\nhere is the November invoice.' });
    await sendDefault(env.alpha, { message: 'Here is the November invoice.' });
    await sendDefault(env.alpha, { message: 'please find the December invoice.' });
    await sendDefault(env.alpha, { message: 'eBay shop work, as agreed.' });
    await sendDefault(env.alpha, { message: 'מצורפת החשבונית לחודש נובמבר.' });
    await runJobOnce(outboxJob, env.services);
    const texts = smtp.received.filter((r) => r.rcptTo[0] === 'ann@client.test').map((r) => r.mail.text ?? '');
    // In HTML each paragraph takes its own direction: the Hebrew message right to left below the English greeting.
    const hebrew = smtp.received.find((r) => r.rcptTo[0] === 'ann@client.test' && r.mail.text?.includes('מצורפת'))!.mail;
    expect(String(hebrew.html)).toContain('<p dir="auto" style="margin:0 0 16px">Hello Ann &lt;Client&gt; &amp; Co,</p><p dir="auto" style="margin:0 0 16px">מצורפת החשבונית לחודש נובמבר.</p>');
    expect(texts.some((t) => t.startsWith('Dear Ann,\n\nhere is the November invoice.'))).toBe(true);
    expect(texts.some((t) => t.startsWith('Hello Ann <Client> & Co,\n\nHere is the November invoice.'))).toBe(true);
    // Below the greeting the message starts a sentence: a lower-case first word gets its capital; "eBay" stays as written.
    expect(texts.some((t) => t.startsWith('Hello Ann <Client> & Co,\n\nPlease find the December invoice.'))).toBe(true);
    expect(texts.some((t) => t.startsWith('Hello Ann <Client> & Co,\n\neBay shop work, as agreed.'))).toBe(true);
  });

  it('every kind of mail (invoice, copy, resend, reminder of the balance) carries one Message-ID domain', async () => {
    const inv = await sendDefault(env.alpha);
    await runJobOnce(outboxJob, env.services);
    await env.alpha.caller.invoices.resend({ email: env.alpha.ownerEmail, invoice_id: inv.id, invoice_details: { recipient_ids: [inv.ann.id], subject: 'Once more' } });
    await env.alpha.caller.invoices.recordPayment({ email: env.alpha.ownerEmail, invoice_id: inv.id, amount: 40, method: 'bank_transfer' });
    await remindAndDeliverOn18December();
    // Earlier tests' invoices are reminded too: look at this invoice's messages.
    const mine = smtp.received.filter((r) => r.mail.subject?.includes(inv.number) || r.mail.subject === 'Once more');
    const kinds = mine.map((r) => r.mail.headers.get('x-hourbook-message-kind'));
    expect(kinds.sort()).toEqual(['invoice', 'invoice_copy', 'invoice_reminder', 'invoice_resend']);
    for (const r of smtp.received) expect(r.mail.messageId).toMatch(/^<[0-9a-f-]{36}@mail\.agency\.test>$/);
    const reminder = mine.find((r) => r.mail.headers.get('x-hourbook-message-kind') === 'invoice_reminder')!.mail;
    expect(reminder.subject).toBe(`Reminder: invoice ${inv.number} from Nordlicht Digital GmbH is due today`);
    expect(reminder.text).toMatch(/the remaining balance of 60,00\s\$ \(of 100,00\s\$\) is still open/);
    expect(reminder.text).toContain('Hello Ann <Client> & Co,\n\nThis is a friendly reminder that invoice');
    expect(reminder.text).toMatch(/View the invoice online: http:\/\/alpha\.localhost:3000\/invoices\/[\w-]{43}/);
    expect(reminder.text).not.toMatch(/pay the invoice online/i);
    expect(smtp.received.find((r) => r.mail.subject === 'Once more')?.rcptTo).toEqual(['ann@client.test']);
  });
  it('an invoice sent again after payments states what is still due, and asks for nothing once it is paid', async () => {
    const inv = await sendDefault(env.alpha);
    await runJobOnce(outboxJob, env.services);
    const resend = async (subject: string) => {
      await env.alpha.caller.invoices.resend({ email: env.alpha.ownerEmail, invoice_id: inv.id, invoice_details: { recipient_ids: [inv.ann.id], subject } });
      await runJobOnce(outboxJob, env.services);
      return smtp.received.find((r) => r.mail.subject === subject)!.mail;
    };
    await env.alpha.caller.invoices.recordPayment({ email: env.alpha.ownerEmail, invoice_id: inv.id, amount: 40, method: 'bank_transfer' });
    const partly = await resend('Again, partly paid');
    expect(partly.text).toContain(`Please find invoice ${inv.number} for 100,00\u00a0$; 40,00\u00a0$ has been paid, and 60,00\u00a0$ is still due by 18.12.2026.`);
    expect(partly.text).toMatch(/Amount due:?\s+60,00\u00a0\$/);
    expect(partly.text).not.toMatch(/Amount due:?\s+100,00/);
    await env.alpha.caller.invoices.markPaid({ email: env.alpha.ownerEmail, invoice_id: inv.id });
    const paid = await resend('Again, paid');
    expect(paid.text).toContain(`Please find invoice ${inv.number} for 100,00\u00a0$, which has been paid in full.`);
    expect(paid.text).toMatch(/Amount due:?\s+0,00\u00a0\$/);
    expect(paid.text).not.toContain('Due date');
    expect(String(paid.html)).not.toContain('Due date');
  });

  it('says "View and pay" only when the invoice\'s page offers card payment (the rule of its "Pay now")', async () => {
    const ws = env.workspace('cardpay');
    await ws.caller.workspace.updatePaymentProcessor({ email: ws.ownerEmail, secret_key: 'sk_test_abcdefgh12345678', webhook_secret: 'whsec_abcdefgh9876' });
    const payable = await sendDefault(ws);
    // Opted out of card payment (payment_provider "undefined"): its page has no "Pay now".
    const optedOut = await sendDefault(ws, { paymentProvider: 'undefined' });
    await remindAndDeliverOn18December();
    const mailOf = (number: string, kind: string) =>
      smtp.received.find((r) => r.rcptTo[0] === 'ann@client.test' && r.mail.subject?.includes(number) && r.mail.headers.get('x-hourbook-message-kind') === kind)!.mail;
    for (const kind of ['invoice', 'invoice_reminder']) {
      const paying = mailOf(payable.number, kind);
      expect(paying.text).toMatch(/View and pay the invoice online: http:\/\/cardpay\.localhost:3000\/invoices\/[\w-]{43}/);
      expect(String(paying.html)).toMatch(/>View and pay the invoice online<\/a>/);
      const viewing = mailOf(optedOut.number, kind);
      expect(viewing.text).toMatch(/View the invoice online: http:\/\/cardpay\.localhost:3000\/invoices\/[\w-]{43}/);
      expect(viewing.text).not.toMatch(/pay the invoice online/i);
    }
  });

  it('a credit note: its own attachment name, the amount as a positive credit, and what was paid on the cancelled invoice', async () => {
    const db = env.alpha.handle.db;
    const client = makeClient(db, { name: 'Gulf Trading', currency: 'BHD' });
    const fatima = makeRecipient(db, client.id, { name: 'Fatima Al-Sayed', email: 'fatima@gulf.test' });
    const res = await env.alpha.api.post(`/api/external/v2/clients/${client.id}/invoices`, {
      email: env.alpha.ownerEmail,
      number: 'INV-BH-1',
      total: 626.228,
      invoice_services: [{ notes: 'Design', unit_amount: 626.228 }],
      send_email: true,
      invoice_details: { recipient_ids: [fatima.id] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const invoiceId = res.body.invoice.id as string;
    await runJobOnce(outboxJob, env.services);
    await env.alpha.caller.invoices.recordPayment({ email: env.alpha.ownerEmail, invoice_id: invoiceId, amount: 300, method: 'bank_transfer' });
    const voided = await env.alpha.caller.invoices.void({ email: env.alpha.ownerEmail, invoice_id: invoiceId, credit_note_number: 'CN-BH-1' });
    const note = voided.credit_note!;
    await env.alpha.caller.invoices.send({ email: env.alpha.ownerEmail, invoice_id: note.id, invoice_details: { attach_pdf_invoice: 'true' } });
    await env.alpha.caller.invoices.resend({
      email: env.alpha.ownerEmail,
      invoice_id: note.id,
      invoice_details: { recipient_ids: [fatima.id], subject: 'Your credit note', message: 'Sorry for the mix-up.' },
    });
    smtp.received.length = 0;
    await runJobOnce(outboxJob, env.services);

    const mail = smtp.received.find((r) => r.mail.subject === 'Credit note CN-BH-1 from Nordlicht Digital GmbH')!.mail;
    expect(mail.attachments.map((a) => a.filename)).toEqual(['credit-note-CN-BH-1.pdf']);
    expect(mail.text).toContain('Hello Fatima Al-Sayed,\n\nPlease find credit note CN-BH-1, which cancels invoice INV-BH-1, for 626,228\u00a0BHD.');
    expect(mail.text).toContain('300,000\u00a0BHD had already been paid on invoice INV-BH-1; that amount will be refunded to you or settled with you separately.');
    expect(mail.text).toContain('Amount credited: 626,228\u00a0BHD');
    expect(mail.text).toContain('Paid on invoice INV-BH-1: 300,000\u00a0BHD');
    expect(mail.text).not.toMatch(/over|-626|−626/);
    expect(String(mail.html)).toContain('had already been paid on invoice INV-BH-1');
    // The sender's own message leaves the payment out: the mail still says it.
    const own = smtp.received.find((r) => r.mail.subject === 'Your credit note')!.mail;
    expect(own.text).toContain('Hello Fatima Al-Sayed,\n\nSorry for the mix-up.\n\n300,000\u00a0BHD had already been paid on invoice INV-BH-1;');

    // A credit note of an invoice nothing was paid on says nothing about payments.
    const unpaid = await sendDefault(env.alpha);
    const cancelled = await env.alpha.caller.invoices.void({ email: env.alpha.ownerEmail, invoice_id: unpaid.id });
    await env.alpha.caller.invoices.send({ email: env.alpha.ownerEmail, invoice_id: cancelled.credit_note!.id, invoice_details: {} });
    smtp.received.length = 0;
    await runJobOnce(outboxJob, env.services);
    const plain = smtp.received.find((r) => r.rcptTo[0] === 'ann@client.test')!.mail;
    expect(plain.text).toContain(`which cancels invoice ${unpaid.number}, for 100,00\u00a0$.`);
    expect(plain.text).not.toMatch(/paid/);
  });
});

describe('a recipient deleted after the invoice was queued', () => {
  const ctx = useSmtpEnv();
  const deleteRecipient = (id: string) => ctx.env.alpha.handle.db.update(recipients).set({ deleted: true }).where(eq(recipients.id, id)).run();

  it('gets nothing; the others get theirs and the invoice still becomes sent', async () => {
    const inv = await sendInvoice(ctx.env.alpha, { attach: false });
    const [gone, kept] = inv.recipients;
    deleteRecipient(gone!.id);
    await runJobOnce(outboxJob, ctx.env.services);
    expect(ctx.smtp.received.map((r) => r.rcptTo[0]).sort()).toEqual([kept!.email, ctx.env.alpha.ownerEmail].sort());
    const rows = ctx.env.alpha.handle.db.select().from(outbox).where(eq(outbox.invoiceId, inv.id)).all();
    expect(rows.find((r) => r.toAddress === gone!.email)).toMatchObject({
      status: 'failed',
      recipientId: gone!.id,
      lastError: 'cancelled: the recipient was deleted before delivery',
    });
    expect(invoiceStatus(ctx.env.alpha, inv.id)).toBe('sent');
  });

  it('when every recipient is gone, nothing reaches the client and the invoice is a draft again', async () => {
    const inv = await sendInvoice(ctx.env.alpha, { copy: false, attach: false });
    for (const r of inv.recipients) deleteRecipient(r.id);
    await runJobOnce(outboxJob, ctx.env.services);
    expect(ctx.smtp.received).toHaveLength(0);
    expect(invoiceStatus(ctx.env.alpha, inv.id)).toBe('draft');
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
  let smtp: Smtp;
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
