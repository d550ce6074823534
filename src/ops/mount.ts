import express, { type Express } from 'express';
import type { AppServices } from '../services.ts';
import { migrateAllAtStart } from '../workspaces/upgrade.ts';
import { adminRouter, requireSecret, transferDir } from './admin-api.ts';
import { listenControlSocket } from './control-socket.ts';
import { ADMIN_PREFIX } from './node-client.ts';
import { PreparedCopies } from './prepared-copies.ts';
import { Readiness } from './readiness.ts';

export interface Ops {
  readiness: Readiness;
  /** Claims the data directory's control socket; fails when another server already serves it. */
  claim(): Promise<void>;
  /** Once listening: checks every workspace's schema (not ready until done). Resolves when ready. */
  start(): Promise<void>;
  /** Shutdown began: not ready any more, the control socket closes. */
  stop(): Promise<void>;
}

/**
 * What an operator and the other nodes need from a running server, kept apart from the product's
 * routes: `/readyz`, the cluster endpoints (only with CLUSTER_SECRET), the local control socket
 * and the start-up migration pass.
 */
export function mountOps(app: Express, services: AppServices, url: () => string, opts: { controlSocket: boolean }): Ops {
  const readiness = new Readiness();
  app.get('/readyz', readiness.handler);
  // Copies left by a move this process did not finish (it stopped between prepare and pull) go now.
  const prepared = new PreparedCopies(transferDir(services.config.dataDir));
  const admin = () => adminRouter({ services, readiness, url, prepared });
  if (services.config.clusterSecret) app.use(ADMIN_PREFIX, requireSecret(services.config.clusterSecret), admin());
  let socket: { close: () => Promise<void> } | null = null;
  return {
    readiness,
    async claim() {
      if (!opts.controlSocket) return;
      const local = express();
      local.disable('x-powered-by');
      local.use(ADMIN_PREFIX, admin());
      socket = await listenControlSocket(services.config.dataDir, local);
    },
    async start() {
      try {
        const migrated = await migrateAllAtStart(services.registry, services.logger, (left) => readiness.migrating(left));
        if (migrated > 0) services.logger.info({ migrated }, 'workspaces migrated at start');
      } catch (err) {
        services.logger.error({ err }, 'the start-up migration pass failed; workspaces are migrated when opened');
      } finally {
        readiness.migrating(0);
      }
    },
    async stop() {
      readiness.stopping();
      await socket?.close();
      socket = null;
    },
  };
}
