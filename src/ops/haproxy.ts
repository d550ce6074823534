import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';

/**
 * Routes in HAProxy: the map file that sends each workspace's subdomain to a node (a backend of
 * the same name), changed through HAProxy's runtime API (its `stats socket ... level admin`), so a
 * route flips at once without a reload, and written to the map file too, so a reload keeps it.
 */

/** One command on the runtime API; HAProxy answers and closes the connection. */
export function haproxyCommand(socketPath: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    socket.on('error', reject);
    socket.on('end', () => resolve(answer.trim()));
    socket.on('connect', () => socket.write(`${command}\n`));
  });
}

/** The node the map sends a subdomain to, or null when it has no entry (the default backend serves it). */
export async function routeOf(socketPath: string, map: string, subdomain: string): Promise<string | null> {
  const answer = await haproxyCommand(socketPath, `show map ${map}`);
  if (/unknown map/i.test(answer)) throw new Error(`HAProxy does not know the map ${map}: HAPROXY_MAP must be the path its configuration uses`);
  for (const line of answer.split('\n')) {
    const [, key, value] = line.trim().split(/\s+/);
    if (key === subdomain && value) return value;
  }
  return null;
}

/** The map file's lines with `subdomain` set to `node`, comments and other entries kept. */
function rewriteMapFile(path: string, subdomain: string, node: string): void {
  const lines = existsSync(path) ? readFileSync(path, 'utf8').split('\n') : [];
  const entry = `${subdomain} ${node}`;
  let found = false;
  const out = lines.map((line) => {
    if (line.trim().split(/\s+/)[0] !== subdomain) return line;
    found = true;
    return entry;
  });
  if (!found) out.splice(out.at(-1) === '' ? out.length - 1 : out.length, 0, entry);
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, out.join('\n').replace(/\n*$/, '\n'));
  renameSync(tmp, path);
}

/** Sends `subdomain` to `node` from now on: in the running HAProxy at once, and in the map file. */
export async function setRoute(socketPath: string, map: string, subdomain: string, node: string): Promise<void> {
  const current = await routeOf(socketPath, map, subdomain);
  const command = current === null ? `add map ${map} ${subdomain} ${node}` : `set map ${map} ${subdomain} ${node}`;
  const answer = await haproxyCommand(socketPath, command);
  if (answer !== '') throw new Error(`HAProxy refused "${command}": ${answer}`);
  if ((await routeOf(socketPath, map, subdomain)) !== node) throw new Error(`HAProxy still routes ${subdomain} elsewhere after "${command}"`);
  rewriteMapFile(map, subdomain, node);
}
