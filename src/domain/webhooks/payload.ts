import { createHmac } from 'node:crypto';

/**
 * The body of every delivery of an event, the same bytes on every attempt (Standard Webhooks):
 * `{"type", "timestamp" (when it happened), "data" (the API object the change answered)}`.
 */
export function webhookBody(event: { type: string; createdAt: string; data: string }): string {
  return `{"type":${JSON.stringify(event.type)},"timestamp":${JSON.stringify(event.createdAt)},"data":${event.data}}`;
}

/** The HMAC key of a Standard Webhooks secret: the bytes of the base64 after `whsec_`. */
export const signingKey = (secret: string): Buffer => Buffer.from(secret.replace(/^whsec_/, ''), 'base64');

/**
 * The Standard Webhooks headers: the event id (stable across retries, for deduplication), the
 * attempt's time in Unix seconds, and `v1,` + base64 HMAC-SHA256 of `id.timestamp.body` keyed by
 * the secret's bytes (`signingKey`).
 */
export function signedHeaders(key: Buffer, id: string, at: Date, body: string): Record<string, string> {
  const timestamp = Math.floor(at.getTime() / 1000);
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1,${signature}` };
}
