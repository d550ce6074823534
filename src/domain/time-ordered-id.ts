import { randomUUID } from 'node:crypto';

/**
 * A UUID version 7 (RFC 9562): the time in milliseconds first, then 74 random bits (taken from
 * `randomUUID`'s pooled randomness), so ids made later sort later. For the high-volume logs whose
 * rows are written by the thousand (webhook deliveries and their attempts): each new row lands at
 * the end of the id index, where a random UUID v4 dirtied a random page of it for every row.
 */
export function timeOrderedUuid(at: Date): string {
  const time = at.getTime().toString(16).padStart(12, '0');
  // randomUUID(): xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx; its variant nibble V is kept.
  const random = randomUUID();
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${random.slice(15, 18)}-${random.slice(19, 23)}-${random.slice(24)}`;
}
