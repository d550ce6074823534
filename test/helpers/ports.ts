import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * The first port the kernel hands out on its own (`listen(0)`, and the local end of every outgoing
 * connection): Linux says which in ip_local_port_range (32768 by default); elsewhere (macOS from
 * 49152) 32768 is below it too.
 */
function ephemeralStart(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 11_000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

/**
 * Ports of the Fetch standard's "bad ports" list in that range: Node's fetch refuses to connect to
 * them ("bad port"), so a server given one never answers a test or bench that fetches from it (a
 * full `npm run bench` failed so, on 10080).
 */
const FETCH_BAD_PORTS = new Set([10080]);

/** Ports from here to the ephemeral range are handed out by `freePort` alone. */
export const FIRST = 10_000;
export const END = ephemeralStart();

const canListen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });

/**
 * A port nothing listens on, for a server whose port must be known before it starts (a child
 * process given PORT, a PUBLIC_URL written into links). It is closed again before that server
 * binds it, so it is chosen at random below the ephemeral range: a port from `listen(0)` could be
 * given in between to the local end of any connection a test running in parallel opens, and the
 * server then failed with EADDRINUSE (seen in a full `npm test`).
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = FIRST + Math.floor(Math.random() * (END - FIRST));
    if (FETCH_BAD_PORTS.has(port)) continue;
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port between ${FIRST} and ${END}`);
}
