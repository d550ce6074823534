import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Webhook signing secrets must be readable again to sign each delivery, so they cannot be stored
 * hashed like API keys. With a server secret (`SECRET_KEY`) they are stored encrypted (AES-256-GCM
 * with a key derived per workspace by HKDF-SHA256), so a copied workspace file alone does not give
 * them away; without one they are stored as they are, and the workspace file must be guarded like
 * the secret itself (docs/webhooks.md).
 */
export interface SecretBox {
  /** What to store for `secret` in the workspace `workspaceId`. */
  seal(secret: string, workspaceId: string): string;
  /** The secret back from what was stored; throws when it cannot be read (no or another server secret). */
  open(stored: string, workspaceId: string): string;
}

const PLAIN = 'plain:';
const SEALED = 'enc:v1:';

/** A new Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
export const newSigningSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

const TAG_BYTES = 16;

export function secretBox(serverSecret: string | undefined): SecretBox {
  const keyFor = (workspaceId: string) => {
    if (!serverSecret) throw new Error('this webhook secret is stored encrypted, and SECRET_KEY is not set');
    return Buffer.from(hkdfSync('sha256', serverSecret, workspaceId, 'hourbook webhook signing secret v1', 32));
  };
  return {
    seal(secret, workspaceId) {
      if (!serverSecret) return PLAIN + secret;
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', keyFor(workspaceId), iv);
      const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      return `${SEALED}${iv.toString('base64')}:${cipher.getAuthTag().toString('base64')}:${sealed.toString('base64')}`;
    },
    open(stored, workspaceId) {
      if (stored.startsWith(PLAIN)) return stored.slice(PLAIN.length);
      if (!stored.startsWith(SEALED)) throw new Error('unknown webhook secret format');
      const [iv = '', tag = '', sealed = ''] = stored.slice(SEALED.length).split(':');
      // The whole 16-byte tag, always: Node would also take a shorter one, and check only that much.
      const decipher = createDecipheriv('aes-256-gcm', keyFor(workspaceId), Buffer.from(iv, 'base64'), { authTagLength: TAG_BYTES });
      try {
        decipher.setAuthTag(Buffer.from(tag, 'base64'));
        return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64')), decipher.final()]).toString('utf8');
      } catch {
        throw new Error('this webhook secret cannot be decrypted: SECRET_KEY differs from the one it was stored with');
      }
    },
  };
}
