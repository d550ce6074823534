import { createServer } from 'node:net';
import { AlreadyServingError, runningServer } from '../ops/control-socket.ts';
import { startServer, type RunningServer } from '../server.ts';
import type { AppServices } from '../services.ts';
import { parse, UsageError } from './args.ts';
import type { Command } from './context.ts';

/** Resolves when nothing listens on the port yet; a UsageError naming it otherwise. */
const portIsFree = (port: number, host: string) =>
  new Promise<void>((resolve, reject) => {
    if (port === 0) return resolve();
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? new UsageError(`port ${port} on ${host} is already in use (is hourbook running? set PORT to serve on another)`) : err),
    );
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
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new UsageError(`port ${services.config.port} on ${services.config.host} is already in use (is hourbook running? set PORT to serve on another)`);
    }
    throw err;
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
