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
  COMMIT_DELAY_MS: z.coerce.number().int().min(0).max(1000).default(0),
  TRUST_PROXY: z.string().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  CORS_ORIGINS: z.string().optional(),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(3000),
  /** Where the card processor's API is (tests point it at a local stand-in); unset: the processor's own. */
  STRIPE_API_BASE: z.url({ protocol: /^https?$/ }).optional(),
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
  /** Extra milliseconds a shared commit stays open for more writers (0: the current event-loop turn). */
  commitDelayMs: number;
  trustProxy: boolean;
  logLevel: z.infer<typeof configSchema>['LOG_LEVEL'];
  corsOrigins: string[];
  /** Requests a minute per API key (bursts up to the same number); 0 turns the limit off. */
  rateLimitPerMinute: number;
  /** The card processor's API address as the `stripe` package takes it; null: its default. */
  stripeApi: { host: string; port: number; protocol: 'http' | 'https' } | null;
}

/** `http://127.0.0.1:4010` → the stripe package's host/port/protocol options. */
function stripeApiOf(base: string | undefined): Config['stripeApi'] {
  if (!base) return null;
  const url = new URL(base);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return { host: url.hostname, port: Number(url.port || (protocol === 'http' ? 80 : 443)), protocol };
}

export class ConfigError extends Error {}

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
    commitDelayMs: c.COMMIT_DELAY_MS,
    trustProxy: c.TRUST_PROXY !== undefined && !['0', 'false', 'no'].includes(c.TRUST_PROXY.toLowerCase()),
    logLevel: c.LOG_LEVEL,
    corsOrigins: (c.CORS_ORIGINS ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    rateLimitPerMinute: c.RATE_LIMIT_PER_MINUTE,
    stripeApi: stripeApiOf(c.STRIPE_API_BASE),
  };
}

/** The public base URL of one workspace, for links in e-mails and PDFs. */
export function publicUrlFor(config: Config, subdomain: string): string {
  return config.publicUrl.replaceAll('{subdomain}', subdomain);
}
