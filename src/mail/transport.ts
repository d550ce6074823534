import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { lazy } from '../lazy.ts';
import type Mail from 'nodemailer/lib/mailer';
import type { Config } from '../config.ts';

/** Where a workspace's messages go: an SMTP server, or `.eml` files when no server is configured. */
export interface MailTransport {
  /** `signal` ends the attempt when it aborts (the SMTP connection is closed). */
  send(message: Mail.Options & { messageId: string }, fileId: string, signal?: AbortSignal): Promise<void>;
  close(): void;
}

/**
 * How long the SMTP client waits (ms). Connecting and the greeting stay short, so a dead server
 * fails the attempt at once. After that nodemailer has one inactivity timeout for every reply, and
 * it must be RFC 5321 §4.5.3.2.6's 10 minutes for the reply to the final "." of DATA: a server may
 * scan the message before answering, and giving up earlier means a retry it has already accepted
 * (a duplicate). The other replies' own limits (§4.5.3.2: 5 minutes at most) are below it.
 */
export interface SmtpTimeouts {
  connectionMs: number;
  greetingMs: number;
  replyMs: number;
}
export const SMTP_TIMEOUTS: SmtpTimeouts = { connectionMs: 10_000, greetingMs: 10_000, replyMs: 10 * 60_000 };

/** nodemailer is loaded when the first message is sent, not when the server starts. */
const mailer = lazy<typeof import('nodemailer')>('nodemailer');

export const mailDirFor = (config: Config, subdomain: string) => join(config.dataDir, 'mail', subdomain);

/**
 * `SMTP_URL` set: nodemailer's SMTP transport with `timeouts` (tests shorten them). Unset: the
 * full RFC 5322 message is written to `DATA_DIR/mail/<subdomain>/<outbox id>.eml` — written to a
 * temporary name and renamed, so a reader never sees half a file and a retried delivery
 * overwrites rather than duplicates.
 */
export function createMailTransport(config: Config, subdomain: string, timeouts: SmtpTimeouts = SMTP_TIMEOUTS): MailTransport {
  const nodemailer = mailer();
  if (config.smtpUrl) {
    const smtp = nodemailer.createTransport({
      url: config.smtpUrl,
      connectionTimeout: timeouts.connectionMs,
      greetingTimeout: timeouts.greetingMs,
      socketTimeout: timeouts.replyMs,
    } as Parameters<typeof nodemailer.createTransport>[0]);
    return {
      async send(message, _fileId, signal) {
        // nodemailer 10 takes `signal` per message (not yet in @types/nodemailer).
        await smtp.sendMail({ ...message, signal } as Mail.Options);
      },
      close: () => smtp.close(),
    };
  }
  const files = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  const dir = mailDirFor(config, subdomain);
  return {
    async send(message, fileId) {
      const info = await files.sendMail(message);
      mkdirSync(dir, { recursive: true });
      const target = join(dir, `${fileId}.eml`);
      writeFileSync(`${target}.tmp`, info.message as Buffer);
      renameSync(`${target}.tmp`, target);
    },
    close: () => files.close(),
  };
}
