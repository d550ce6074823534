import { createHash } from 'node:crypto';
import { AppError } from '../errors.ts';
import { nestedDeeperThan, tooDeeplyNested } from '../domain/nesting.ts';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** The methods an `Idempotency-Key` applies to; on reads it has nothing to protect and is ignored. */
export const IDEMPOTENT_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** 1-255 printable ASCII characters (space to tilde), as Stripe and the IETF draft accept them. */
const KEY = /^[\x20-\x7e]{1,255}$/;

/**
 * The request's idempotency key: null when it carries none (or is a read), the key otherwise; 422
 * `idempotency_key_invalid` for a key of the wrong length or with characters outside printable ASCII.
 */
export function idempotencyKeyOf(method: string, headers: Record<string, string | string[] | undefined>): string | null {
  if (!IDEMPOTENT_METHODS.has(method.toUpperCase())) return null;
  const value = headers[IDEMPOTENCY_HEADER];
  if (value === undefined) return null;
  const key = Array.isArray(value) ? value.join(', ') : value;
  if (!KEY.test(key)) {
    throw new AppError('unprocessable', 'idempotency_key_invalid', 'Idempotency-Key must be 1 to 255 printable ASCII characters', {
      details: [{ path: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters' }],
    });
  }
  return key;
}

/** JSON with object keys sorted at every depth, so key order and white space never matter. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The query string with its parameters in a stable order. */
function canonicalQuery(search: string): string {
  const params = [...new URLSearchParams(search)].sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : 1) : a < b ? -1 : 1));
  return new URLSearchParams(params).toString();
}

/**
 * What makes two requests "the same request" for a key: the method, the path with its query, and
 * the body as canonical JSON (a body that is not JSON counts as its text). SHA-256, hex.
 */
export function requestFingerprint(method: string, url: string, body: { json: unknown } | { text: string } | null): string {
  const [path = '', search = ''] = url.split('?', 2);
  // Recursing through the body: one nested too deeply is refused before (it would overflow the stack).
  if (body !== null && 'json' in body && nestedDeeperThan(body.json)) throw tooDeeplyNested();
  const canonicalBody = body === null ? '' : 'json' in body ? canonicalJson(body.json) : `text:${body.text}`;
  return createHash('sha256').update(`${method.toUpperCase()}\n${path}?${canonicalQuery(search)}\n${canonicalBody}`).digest('hex');
}
