import { createServer } from 'node:net';
import { AlreadyServingError, runningServer } from '../ops/control-socket.ts';
import { startServer, type RunningServer } from '../server.ts';
import type { AppServices } from '../services.ts';
import { parse, UsageError } from './args.ts';
import type { Command } from './context.ts';

/**
 * Why the server cannot listen on HOST and PORT, in one line an operator can act on, for the errors
 * a setting causes (a typo in HOST, an address of another machine, a taken or privileged port);
 * null for any other error, which keeps its stack.
 */
function listenProblem(err: unknown, port: number, host: string): UsageError | null {
  switch ((err as NodeJS.ErrnoException | null)?.code) {
    case 'EADDRINUSE':
      return new UsageError(`port ${port} on ${host} is already in use (is hourbook running? set PORT to serve on another)`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return new UsageError(`cannot listen on HOST=${host}: no such host name (set HOST to an address of this machine, e.g. 127.0.0.1)`);
    case 'EADDRNOTAVAIL':
      return new UsageError(`cannot listen on HOST=${host}: it is not an address of this machine (set HOST to one of its addresses, e.g. 127.0.0.1 or 0.0.0.0)`);
    case 'EACCES':
      return new UsageError(`not allowed to listen on port ${port} on ${host} (ports below 1024 need privileges; set PORT to 1024 or above)`);
    default:
      return null;
  }
}

/** Resolves when nothing listens on the port yet; a UsageError naming it otherwise. */
const portIsFree = (port: number, host: string) =>
  new Promise<void>((resolve, reject) => {
    if (port === 0) return resolve();
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => reject(listenProblem(err, port, host) ?? err));
    probe.listen(port, host, () => probe.close(() => resolve()));
  });

/** Refuses, before anything is written, to start a second server on a data directory or a port. */
export async function ensureNotServing(services: AppServices): Promise<void> {
  const { dataDir, port, host } = services.config;
  const other = await runningServer(dataDir);
  if (other) throw new UsageError(`hourbook is already running on ${dataDir} (pid ${other.pid}, ${other.url}); stop it first or use another DATA_DIR`);
  await portIsFree(port, host);
}

async function listen(services: AppServices): Promise<RunningServer> {
  try {
    return await startServer(services);
  } catch (err) {
    if (err instanceof AlreadyServingError) throw new UsageError(err.message);
    throw listenProblem(err, services.config.port, services.config.host) ?? err;
  }
}

/** Serves until SIGTERM or SIGINT, then finishes requests in flight and exits 0. */
export const serve: Command = async (argv, services, io) => {
  parse(argv, {});
  const running = await listen(services);
  io.out(`hourbook listening on ${running.url} (workspaces in ${services.config.dataDir})`);
  const shutdown = (signal: string) => {
    services.logger.info({ signal }, 'shutting down: finishing requests in flight');
    void running.close().then(() => {
      services.logger.info('stopped');
      process.exit(0);
    });
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
};
