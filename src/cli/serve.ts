import { createServer } from 'node:net';
import { sampleTimeEntry } from '../demo/examples.ts';
import { DEMO_LOGINS, seedDemoLogins } from '../demo/logins.ts';
import { seedDemo } from '../demo/seed.ts';
import { provisionWorkspace } from '../domain/workspace/provision.ts';
import { AlreadyServingError, runningServer } from '../ops/control-socket.ts';
import { startServer, type RunningServer } from '../server.ts';
import type { AppServices } from '../services.ts';
import { createApiKey } from '../workspaces/keys.ts';
import { parse, UsageError } from './args.ts';
import { openWorkspace, scopeOf, type Command } from './context.ts';

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
async function ensureNotServing(services: AppServices): Promise<void> {
  const { dataDir, port, host } = services.config;
  const other = await runningServer(dataDir).catch(() => null);
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

const DEMO = 'demo';

/** Creates (or reuses) the demo workspace, seeds it, prints the app's address and logins, a key and curl lines, then serves. */
export const demo: Command = async (argv, services, io) => {
  parse(argv, {});
  // A second demo beside a running one would add a key and then fail to listen: refuse first.
  await ensureNotServing(services);
  const now = services.clock();
  let handle = services.registry.get(DEMO);
  if (!handle) {
    provisionWorkspace(
      services.registry,
      { subdomain: DEMO, name: 'Demo Agency', timeZone: 'Europe/Berlin', owner: { email: 'owner@demo.localhost', firstName: 'Olivia', lastName: 'Owner' } },
      now,
    );
    handle = openWorkspace(services, DEMO);
  }
  seedDemo(scopeOf(services, handle));
  await seedDemoLogins(scopeOf(services, handle));
  const key = createApiKey(handle.db, { label: 'demo', now });
  const { port, baseDomain } = services.config;
  const headers = `-H 'Host: ${DEMO}.${baseDomain}' -H 'X-Api-Key: ${key.apiKey}'`;
  const entry = sampleTimeEntry(handle, now.toISOString().slice(0, 10));
  const width = Math.max(...DEMO_LOGINS.map((l) => l.who.length));
  io.out(`demo workspace ready: ${DEMO}.${baseDomain}
web app: http://${DEMO}.${baseDomain}:${port}/
${DEMO_LOGINS.map((l) => `  ${`${l.who}:`.padEnd(width + 1)}  ${l.email}  password: ${l.password}`).join('\n')}
api key: ${key.apiKey}
try:
  curl ${headers} -H 'Accept: application/json' http://localhost:${port}/api/external/v2/team-members
${
  entry
    ? `  curl ${headers} -H 'Content-Type: application/json' -d '${JSON.stringify(entry)}' http://localhost:${port}/api/external/v2/time-entries
`
    : ''
}  open http://localhost:${port}/docs for the API reference
`);
  await serve([], services, io);
};
