import { createHash } from 'node:crypto';
import { chmodSync, existsSync, rmSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminCall } from './node-client.ts';

/**
 * The local control socket of a serving process: a Unix socket in its data directory, answering
 * the admin endpoints to whoever may open the file (mode 0600: the service's own user, and root).
 * A command that must not race the server (`restore`, a second `demo`) asks it there; no socket
 * that answers means no server serves that data directory.
 */

/** Unix socket paths are limited to about 107 bytes; a deep DATA_DIR gets one in the temp directory, named by its hash. */
const MAX_SOCKET_PATH = 100;

export function controlSocketPath(dataDir: string): string {
  const inDataDir = join(dataDir, '.hourbook.sock');
  if (Buffer.byteLength(inDataDir) <= MAX_SOCKET_PATH) return inDataDir;
  return join(tmpdir(), `hourbook-${createHash('sha256').update(dataDir).digest('hex').slice(0, 16)}.sock`);
}

/** The control socket exists but this user may not connect to it: a server may well be running. */
export class ControlSocketDenied extends Error {
  constructor(path: string) {
    super(`cannot reach the server of this data directory: its control socket ${path} refuses this user (run the command as the user the server runs as, or root)`);
  }
}

/**
 * True when something accepts connections on the socket (a live server); a stale file left by a
 * crash does not. A socket this user may not connect to is neither: ControlSocketDenied, so that
 * no command takes a server that serves the files for none.
 */
const answers = (path: string) =>
  new Promise<boolean>((resolve, reject) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EACCES' || err.code === 'EPERM' ? reject(new ControlSocketDenied(path)) : resolve(false)));
  });

export class AlreadyServingError extends Error {}

export interface ServerStatus {
  pid: number;
  version: string;
  url: string;
  data_dir: string;
  status: string;
}

/**
 * The status of the server serving `dataDir`, or null when none does (or one that accepts the
 * connection does not answer its status: it is stopping). ControlSocketDenied when this user may
 * not ask.
 */
export async function runningServer(dataDir: string): Promise<ServerStatus | null> {
  const socketPath = controlSocketPath(dataDir);
  if (!existsSync(socketPath) || !(await answers(socketPath))) return null;
  return adminCall<ServerStatus>({ socketPath }, 'GET', '/status').catch(() => null);
}

/**
 * Listens on the control socket of `dataDir`. Refuses (AlreadyServingError) when another process
 * answers there: two servers over one data directory would each think they own its files.
 */
export async function listenControlSocket(dataDir: string, handler: RequestListener): Promise<{ close: () => Promise<void> }> {
  const path = controlSocketPath(dataDir);
  if (existsSync(path)) {
    const other = await runningServer(dataDir);
    if (other) throw new AlreadyServingError(`hourbook (pid ${other.pid}, ${other.url}) already serves ${dataDir}`);
    rmSync(path, { force: true });
  }
  const server: Server = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  chmodSync(path, 0o600);
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
