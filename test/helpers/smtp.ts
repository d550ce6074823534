import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { Clock } from '../../src/clock.ts';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { startTestEnv, type TestEnv, type TestWorkspace } from './env.ts';
import { makeProjectSetup, makeRecipient } from './factories.ts';

export interface Received {
  rcptTo: string[];
  mail: ParsedMail;
}

/**
 * Decides, once a message's data has arrived, whether the server accepts it (null) or answers with
 * an error (an `Error` with a `responseCode`, such as 421): a test can hold the answer meanwhile.
 */
export type SmtpAnswer = (mail: ParsedMail) => Promise<Error | null>;

/** A real SMTP server on localhost that keeps every message it accepts; `answer`, when set, decides first. */
/** A running SMTP server of the tests: what it received, and how it answers the next message (null: accept). */
export interface Smtp {
  port: number;
  received: Received[];
  answer: SmtpAnswer | null;
  close: () => Promise<void>;
}

export async function startSmtp(port = 0): Promise<Smtp> {
  const received: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then(async (mail) => {
          const refused = control.answer ? await control.answer(mail) : null;
          if (refused) return callback(refused);
          received.push({ rcptTo: session.envelope.rcptTo.map((r) => r.address), mail });
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = (server as unknown as { server: { address(): AddressInfo } }).server.address();
  const control = { port: address.port, received, answer: null as SmtpAnswer | null, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  return control;
}

/** The first message the server caught for this address, waiting for it up to `timeoutMs`. */
export async function mailTo(smtp: { received: Received[] }, address: string, timeoutMs = 20_000): Promise<Received> {
  const started = Date.now();
  for (;;) {
    const found = smtp.received.find((r) => r.rcptTo.includes(address));
    if (found) return found;
    if (Date.now() - started > timeoutMs) throw new Error(`no mail to ${address}; got ${smtp.received.map((r) => r.rcptTo.join()).join('; ')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * A test environment whose mail goes to a real SMTP server, and that server, for the tests of the
 * file or `describe` it is called in: it registers the hooks that start them, close them, and
 * between tests make the server accept everything again and forget what it received.
 */
export function useSmtpEnv(opts: { clock?: Clock; mailFrom?: string } = {}): { readonly env: TestEnv; readonly smtp: Smtp } {
  let env: TestEnv | undefined;
  let smtp: Smtp | undefined;
  beforeAll(async () => {
    smtp = await startSmtp();
    env = await startTestEnv({ ...(opts.clock && { clock: opts.clock }), env: { SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, ...(opts.mailFrom && { MAIL_FROM: opts.mailFrom }) } });
  });
  afterAll(async () => {
    await env?.close();
    await smtp?.close();
  });
  afterEach(() => {
    smtp!.answer = null;
    smtp!.received.length = 0;
  });
  return {
    get env() {
      return env!;
    },
    get smtp() {
      return smtp!;
    },
  };
}

/** An SMTP refusal as nodemailer reports it: the server's code and text. */
export const refusal = (code: number, text: string) => Object.assign(new Error(text), { responseCode: code });

/** The one address a received message was sent to. */
export const toAddress = (mail: ParsedMail) => (mail.to && !Array.isArray(mail.to) ? mail.to.value[0]?.address : undefined);

/** An invoice e-mailed at creation (endpoint 1) to new recipients of a new client, without a PDF. */
export async function emailedInvoice(ws: TestWorkspace, people: { name: string; email: string }[], opts: { copy?: boolean } = {}) {
  const s = makeProjectSetup(ws.handle.db);
  const rs = people.map((p) => makeRecipient(ws.handle.db, s.client.id, p));
  const res = await ws.api.post(`/api/external/v2/clients/${s.client.id}/invoices`, {
    email: ws.ownerEmail,
    number: `M-${rs[0]!.id.slice(0, 8)}`,
    total: 100,
    invoice_services: [{ notes: 'Work', unit_amount: 100 }],
    send_email: true,
    invoice_details: { attach_pdf_invoice: 'false', send_me_a_copy: opts.copy ? 'true' : 'false', recipient_ids: rs.map((r) => r.id) },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { id: res.body.invoice.id as string, clientId: s.client.id, recipients: rs };
}
