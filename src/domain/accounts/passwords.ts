import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import * as z from 'zod';

/**
 * Password hashing with scrypt from node:crypto: a memory-hard KDF in the standard library, so no
 * native module to build. Each hash carries its own salt and parameters (`scrypt$N$r$p$salt$hash`),
 * so the cost can be raised later and older hashes still verify (and are upgraded at sign-in).
 */

interface Params {
  N: number;
  r: number;
  p: number;
}

/**
 * 32 MiB of memory per hash, about 0.1–0.4 s of one core on a small server: slow and costly for a
 * guesser, fine for a sign-in (which is throttled besides). Raise N when machines get faster.
 */
export const CURRENT_PARAMS: Params = { N: 2 ** 15, r: 8, p: 1 };
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

/** Long enough to resist guessing; no composition rules (NIST SP 800-63B). */
export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 200;

export const passwordField = z
  .string({ message: 'must be a password' })
  .min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`)
  .max(MAX_PASSWORD_LENGTH, `must be at most ${MAX_PASSWORD_LENGTH} characters`);

/** A password typed to be checked (sign-in, the current one): a new one's rules are `passwordField`'s. */
export const typedPassword = z.string({ message: 'must be a password' }).min(1, 'must not be empty').max(1000, 'is too long');
/**
 * The signed-in member's password, for what a session alone must not do (src/trpc/step-up.ts):
 * asked of a browser's session only, never of an API key.
 */
export const currentPassword = typedPassword.optional().meta({ description: "The member's password, required when signed in: a session alone does not do this" });

const derive = (password: string, salt: Buffer, params: Params) =>
  new Promise<Buffer>((resolve, reject) => {
    const options: ScryptOptions = { N: params.N, r: params.r, p: params.p, maxmem: 256 * params.N * params.r };
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key)));
  });

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await derive(password, salt, CURRENT_PARAMS);
  const { N, r, p } = CURRENT_PARAMS;
  return ['scrypt', N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

function parseHash(stored: string): { params: Params; salt: Buffer; key: Buffer } | null {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !key) return null;
  return { params: { N: Number(n), r: Number(r), p: Number(p) }, salt: Buffer.from(salt, 'base64url'), key: Buffer.from(key, 'base64url') };
}

/** A hash nobody's password matches, verified when an e-mail names nobody so the answer takes as long. */
const DUMMY_HASH = ['scrypt', CURRENT_PARAMS.N, CURRENT_PARAMS.r, CURRENT_PARAMS.p, randomBytes(SALT_LENGTH).toString('base64url'), randomBytes(KEY_LENGTH).toString('base64url')].join('$');

export interface Verification {
  ok: boolean;
  /** The hash was made with older parameters: store a fresh one now that the password is known. */
  outdated: boolean;
}

/** Compares in constant time. `stored` null (no such account, no password yet) is checked against a dummy. */
export async function verifyPassword(password: string, stored: string | null): Promise<Verification> {
  const parsed = parseHash(stored ?? DUMMY_HASH) ?? parseHash(DUMMY_HASH);
  if (!parsed) return { ok: false, outdated: false };
  const key = await derive(password, parsed.salt, parsed.params);
  const ok = stored !== null && key.length === parsed.key.length && timingSafeEqual(key, parsed.key);
  const { N, r, p } = CURRENT_PARAMS;
  return { ok, outdated: ok && (parsed.params.N !== N || parsed.params.r !== r || parsed.params.p !== p) };
}
