import { resolve } from 'node:path';
import { z } from 'zod';

const configSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./db/data'),
  BASE_DOMAIN: z
    .string()
    .min(1)
    .regex(/^[a-z0-9.-]+$/, 'must be a lower-case domain name such as localhost or hourbook.example.com')
    .default('localhost'),
  PUBLIC_URL: z.string().default('http://{subdomain}.localhost:3000'),
  SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
  MAIL_FROM: z.string().min(3).default('hourbook <no-reply@localhost>'),
  SQLITE_SYNCHRONOUS: z.enum(['FULL', 'NORMAL']).default('FULL'),
  TRUST_PROXY: z.string().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  CORS_ORIGINS: z.string().optional(),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(3000),
  SECRET_KEY: z.string().min(32, 'must be at least 32 characters (e.g. `openssl rand -base64 32`)').optional(),
  WEBHOOK_ALLOW_PRIVATE: z.string().optional(),
});

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  baseDomain: string;
  publicUrl: string;
  smtpUrl: string | undefined;
  mailFrom: string;
  sqliteSynchronous: 'FULL' | 'NORMAL';
  trustProxy: boolean;
  logLevel: z.infer<typeof configSchema>['LOG_LEVEL'];
  corsOrigins: string[];
  /** Requests a minute per API key (bursts up to the same number); 0 turns the limit off. */
  rateLimitPerMinute: number;
  /** The server secret: when set, webhook signing secrets are stored encrypted with keys derived from it. */
  secretKey: string | undefined;
  /** Webhooks may be delivered to private, loopback and link-local addresses (tests, on-premise receivers). */
  webhookAllowPrivate: boolean;
}

export class ConfigError extends Error {}

/** A flag variable: set and not `0`, `false` or `no`. */
const isOn = (value: string | undefined) => value !== undefined && !['0', 'false', 'no'].includes(value.toLowerCase());

/** Reads and validates the environment once, at start; a bad value stops start with a clear message. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty variables count as unset, as they do in most deployment tools.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = configSchema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  return {
    port: c.PORT,
    host: c.HOST,
    dataDir: resolve(c.DATA_DIR),
    baseDomain: c.BASE_DOMAIN,
    publicUrl: c.PUBLIC_URL.replace(/\/+$/, ''),
    smtpUrl: c.SMTP_URL,
    mailFrom: c.MAIL_FROM,
    sqliteSynchronous: c.SQLITE_SYNCHRONOUS,
    trustProxy: isOn(c.TRUST_PROXY),
    logLevel: c.LOG_LEVEL,
    corsOrigins: (c.CORS_ORIGINS ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    rateLimitPerMinute: c.RATE_LIMIT_PER_MINUTE,
    secretKey: c.SECRET_KEY,
    webhookAllowPrivate: isOn(c.WEBHOOK_ALLOW_PRIVATE),
  };
}

/** The public base URL of one workspace, for links in e-mails and PDFs. */
export function publicUrlFor(config: Config, subdomain: string): string {
  return config.publicUrl.replaceAll('{subdomain}', subdomain);
}
