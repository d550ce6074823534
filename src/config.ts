import { resolve } from 'node:path';

/*
 * The environment is read by every command, so this module stays free of zod: zod's start-up
 * (about a third of a short command's run) is paid only by commands that validate input with it.
 * Each variable is one row: how to read it and what it means when unset.
 */

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
type LogLevel = (typeof LOG_LEVELS)[number];

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  baseDomain: string;
  /** Links in mail and PDFs, `{subdomain}` replaced; from PUBLIC_URL, else BASE_DOMAIN and PORT. */
  publicUrl: string;
  smtpUrl: string | undefined;
  mailFrom: string;
  sqliteSynchronous: 'FULL' | 'NORMAL';
  /** Extra milliseconds a shared commit stays open for more writers (0: the current event-loop turn). */
  commitDelayMs: number;
  trustProxy: boolean;
  logLevel: LogLevel;
  corsOrigins: string[];
  /** Requests a minute per API key (bursts up to the same number); 0 turns the limit off. */
  rateLimitPerMinute: number;
  /** The card processor's API address as the `stripe` package takes it; null: its default. */
  stripeApi: { host: string; port: number; protocol: 'http' | 'https' } | null;
  /** The shared secret of the nodes of one installation; unset: no cluster endpoint is served. */
  clusterSecret: string | undefined;
  /** Every node by name (`node1=http://10.0.0.1:3000,...`): whom a move may copy from or to. */
  clusterNodes: Map<string, string>;
  /** HAProxy's admin socket and the map file it routes by (used by `workspace move`). */
  haproxySocket: string | undefined;
  haproxyMap: string | undefined;
  /** Where Litestream replicates each workspace, e.g. `s3://bucket/hourbook` or `file:///var/backups/replica`. */
  litestreamReplica: string | undefined;
  /** The server secret: when set, webhook signing secrets are stored encrypted with keys derived from it. */
  secretKey: string | undefined;
  /** Webhooks may be delivered to private, loopback and link-local addresses (tests, on-premise receivers). */
  webhookAllowPrivate: boolean;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;
type Problems = string[];

const integer = (name: string, value: string, min: number, max: number, problems: Problems): number => {
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < min || n > max) problems.push(`${name}: must be a whole number from ${min} to ${max}`);
  return n;
};

function oneOf<T extends string>(name: string, value: string, allowed: readonly T[], problems: Problems): T {
  if (!(allowed as readonly string[]).includes(value)) problems.push(`${name}: must be one of ${allowed.join(', ')}`);
  return value as T;
}

function smtpUrl(value: string | undefined, problems: Problems): string | undefined {
  if (value === undefined) return undefined;
  try {
    if (/^smtps?:$/.test(new URL(value).protocol)) return value;
  } catch {
    // reported below
  }
  problems.push('SMTP_URL: must be an smtp:// or smtps:// URL');
  return undefined;
}

/** `http://127.0.0.1:4010` → the stripe package's host/port/protocol options (tests point it at a local stand-in). */
function stripeApiOf(base: string | undefined, problems: Problems): Config['stripeApi'] {
  if (base === undefined) return null;
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    url = new URL('invalid:');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    problems.push('STRIPE_API_BASE: must be an http:// or https:// URL');
    return null;
  }
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return { host: url.hostname, port: Number(url.port || (protocol === 'http' ? 80 : 443)), protocol };
}

/**
 * PUBLIC_URL: an absolute http(s) URL with no query or fragment (links append their paths to it).
 * `{subdomain}` in it stands for each workspace's; without it every link names one host, which is
 * right only for a server of one workspace. A value such as `hourbook.example.com` (no scheme) made
 * links in mail that no mail program opens.
 */
function publicUrlOf(value: string | undefined, fallback: string, problems: Problems): string {
  if (value === undefined) return fallback;
  let url: URL | null = null;
  try {
    url = new URL(value.replaceAll('{subdomain}', 'workspace'));
  } catch {
    // reported below
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash) {
    problems.push('PUBLIC_URL: must be an http:// or https:// URL without query, such as https://{subdomain}.hourbook.example.com');
  }
  return value.replace(/\/+$/, '');
}

/** `name=url,name=url`: the nodes of a cluster. */
function clusterNodes(value: string | undefined, problems: Problems): Map<string, string> {
  const nodes = new Map<string, string>();
  for (const part of (value ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^([a-z0-9][a-z0-9_-]*)=(https?:\/\/\S+)$/i.exec(part);
    if (!m?.[1] || !m[2]) {
      problems.push(`CLUSTER_NODES: "${part}" is not name=http://host:port`);
      continue;
    }
    nodes.set(m[1], m[2].replace(/\/+$/, ''));
  }
  return nodes;
}

/** A flag variable: set and not `0`, `false` or `no`. */
const isOn = (value: string | undefined) => value !== undefined && !['0', 'false', 'no'].includes(value.toLowerCase());

/**
 * Without PUBLIC_URL, links point at the address the server answers on: `http://{subdomain}.` +
 * BASE_DOMAIN + `:PORT` (no port for 80), so changing either never leaves mail with dead links.
 */
export const derivedPublicUrl = (baseDomain: string, port: number) => `http://{subdomain}.${baseDomain}${port === 80 ? '' : `:${port}`}`;

/** Reads and validates the environment once, at start; a bad value stops start with a clear message. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  // Empty variables count as unset, as they do in most deployment tools.
  const env: Env = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  const problems: Problems = [];
  const port = integer('PORT', env.PORT ?? '3000', 0, 65535, problems);
  const baseDomain = env.BASE_DOMAIN ?? 'localhost';
  if (!/^[a-z0-9.-]+$/.test(baseDomain)) problems.push('BASE_DOMAIN: must be a lower-case domain name such as localhost or hourbook.example.com');
  const mailFrom = env.MAIL_FROM ?? 'hourbook <no-reply@localhost>';
  if (mailFrom.length < 3) problems.push('MAIL_FROM: must be an address such as hourbook <no-reply@example.com>');
  const clusterSecret = env.CLUSTER_SECRET;
  if (clusterSecret !== undefined && clusterSecret.length < 32) problems.push('CLUSTER_SECRET: must be at least 32 characters (e.g. openssl rand -hex 32)');
  const secretKey = env.SECRET_KEY;
  if (secretKey !== undefined && secretKey.length < 32) problems.push('SECRET_KEY: must be at least 32 characters (e.g. `openssl rand -base64 32`)');
  const config: Config = {
    port,
    host: env.HOST ?? '127.0.0.1',
    dataDir: resolve(env.DATA_DIR ?? './db/data'),
    baseDomain,
    publicUrl: publicUrlOf(env.PUBLIC_URL, derivedPublicUrl(baseDomain, port), problems),
    smtpUrl: smtpUrl(env.SMTP_URL, problems),
    mailFrom,
    sqliteSynchronous: oneOf('SQLITE_SYNCHRONOUS', env.SQLITE_SYNCHRONOUS ?? 'FULL', ['FULL', 'NORMAL'], problems),
    commitDelayMs: integer('COMMIT_DELAY_MS', env.COMMIT_DELAY_MS ?? '0', 0, 1000, problems),
    trustProxy: isOn(env.TRUST_PROXY),
    logLevel: oneOf('LOG_LEVEL', env.LOG_LEVEL ?? 'info', LOG_LEVELS, problems),
    corsOrigins: (env.CORS_ORIGINS ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    rateLimitPerMinute: integer('RATE_LIMIT_PER_MINUTE', env.RATE_LIMIT_PER_MINUTE ?? '3000', 0, Number.MAX_SAFE_INTEGER, problems),
    stripeApi: stripeApiOf(env.STRIPE_API_BASE, problems),
    clusterSecret,
    clusterNodes: clusterNodes(env.CLUSTER_NODES, problems),
    haproxySocket: env.HAPROXY_SOCKET,
    haproxyMap: env.HAPROXY_MAP,
    litestreamReplica: env.LITESTREAM_REPLICA_URL,
    secretKey,
    webhookAllowPrivate: isOn(env.WEBHOOK_ALLOW_PRIVATE),
  };
  if (problems.length > 0) throw new ConfigError(`invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  return config;
}

/** The public base URL of one workspace, for links in e-mails and PDFs. */
export function publicUrlFor(config: Config, subdomain: string): string {
  return config.publicUrl.replaceAll('{subdomain}', subdomain);
}
