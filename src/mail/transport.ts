import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { lazy } from '../lazy.ts';
import type Mail from 'nodemailer/lib/mailer';
import type { Config } from '../config.ts';

/** Where a workspace's messages go: an SMTP server, or `.eml` files when no server is configured. */
export interface MailTransport {
  send(message: Mail.Options & { messageId: string }, fileId: string): Promise<void>;
  close(): void;
}

/** nodemailer is loaded when the first message is sent, not when the server starts. */
const mailer = lazy<typeof import('nodemailer')>('nodemailer');

export const mailDirFor = (config: Config, subdomain: string) => join(config.dataDir, 'mail', subdomain);

/**
 * `SMTP_URL` set: nodemailer's SMTP transport (short timeouts, so a dead server fails the attempt
 * instead of holding the worker). Unset: the full RFC 5322 message is written to
 * `DATA_DIR/mail/<subdomain>/<outbox id>.eml` — written to a temporary name and renamed, so a reader
 * never sees half a file and a retried delivery overwrites rather than duplicates.
 */
export function createMailTransport(config: Config, subdomain: string): MailTransport {
  const nodemailer = mailer();
  if (config.smtpUrl) {
    const smtp = nodemailer.createTransport({
      url: config.smtpUrl,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 60_000,
    } as Parameters<typeof nodemailer.createTransport>[0]);
    return {
      async send(message) {
        await smtp.sendMail(message);
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
