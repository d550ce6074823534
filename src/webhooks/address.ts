import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Whether a webhook may be sent to an address: only globally routable unicast. ipaddr.js names
 * every special-use range of the IANA registries (private, loopback, link-local, carrier-grade
 * NAT, unique-local, multicast, documentation, 6to4, Teredo, NAT64, …); IPv4-mapped IPv6
 * (`::ffff:127.0.0.1`) is judged as the IPv4 address it is, and the deprecated IPv4-compatible
 * form (`::7f00:1`) is refused outright.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((p) => p === 0)) return false;
  return parsed.range() === 'unicast';
}

export interface Destination {
  address: string;
  family: 4 | 6;
}

export class RefusedDestination extends Error {}

/**
 * The address to connect to for `hostname`, after DNS: every address it resolves to must be
 * public (a name that also resolves to 127.0.0.1 is refused as a whole), unless private ones are
 * allowed. The caller connects to exactly this address, so DNS cannot answer differently between
 * this check and the connection (no rebinding).
 */
export async function resolveDestination(hostname: string, allowPrivate: boolean): Promise<Destination> {
  const host = hostname.replace(/^\[|\]$/g, '');
  const literal = isIP(host);
  const found: Destination[] = literal ? [{ address: host, family: literal as 4 | 6 }] : (await lookup(host, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family as 4 | 6 }));
  const first = found[0];
  if (!first) throw new RefusedDestination(`${host} does not resolve to any address`);
  if (!allowPrivate) {
    const refused = found.find((a) => !isPublicAddress(a.address));
    if (refused) {
      const what = literal ? refused.address : `${host} resolves to ${refused.address}`;
      throw new RefusedDestination(`refused: ${what} is not a public address (set WEBHOOK_ALLOW_PRIVATE=1 to allow private, loopback and link-local receivers)`);
    }
  }
  return first;
}
