import { createHash, randomBytes } from 'node:crypto';

/** 256 random bits as 43 characters of base64url: a session cookie or a one-time link's token. */
export const newSecret = () => randomBytes(32).toString('base64url');

/** What is stored instead of a secret: its SHA-256 (the secret has 256 bits, so no salt or KDF is needed). */
export const secretHash = (secret: string) => createHash('sha256').update(secret).digest('hex');

/** Secrets we hand out are 43 characters; anything far off is refused before it reaches an index. */
export const plausibleSecret = (value: string | undefined): value is string => value !== undefined && /^[A-Za-z0-9_-]{20,100}$/.test(value);
