import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createReadStream, mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { AppError } from '../errors.ts';
import { packageVersion } from '../package.ts';
import { sendError } from '../rest/respond.ts';
import type { Effect } from '../domain/scope.ts';
import type { AppServices } from '../services.ts';
import { checkFile, copyConsistent, installCopy, isHealthy } from '../workspaces/backup.ts';
import { isValidSubdomain } from '../workspaces/host.ts';
import { downloadSnapshot, SNAPSHOT_BYTES, SNAPSHOT_SHA256 } from './node-client.ts';
import type { Readiness } from './readiness.ts';

/**
 * The admin endpoints of one hourbook process, under `/_cluster`: status, pausing a workspace's
 * writes, handing it over, streaming a consistent snapshot of it, pulling one from another node.
 * `hourbook workspace move` drives them on two nodes; `hourbook restore` and `demo` use them over
 * the local control socket. On the TCP port they exist only when CLUSTER_SECRET is set and answer
 * only a request carrying it (`Authorization: Bearer <secret>`); on the control socket the socket
 * file's permissions are the guard.
 */

/** `DATA_DIR/.transfer/`: snapshots being sent or received; never a workspace, never listed. */
const transferDir = (dataDir: string) => join(dataDir, '.transfer');

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Accepts only `Authorization: Bearer <CLUSTER_SECRET>`, compared in constant time. */
export function requireSecret(secret: string) {
  const expected = digest(secret);
  return (req: Request, _res: Response, next: NextFunction) => {
    const header = req.headers.authorization ?? '';
    const presented = header.startsWith('Bearer ') ? header.slice(7) : '';
    if (presented.length > 0 && timingSafeEqual(digest(presented), expected)) next();
    else next(new AppError('unauthorized', 'unauthorized', 'This endpoint needs the cluster secret'));
  };
}

export interface AdminOptions {
  services: AppServices;
  readiness: Readiness;
  /** The address the server listens on, reported by `status`. */
  url: () => string;
}

/** The subdomain of the path, which must name a workspace file on this node unless `mayBeAbsent`. */
function workspaceOf(services: AppServices, req: Request, mayBeAbsent = false): string {
  const subdomain = String(req.params.subdomain);
  if (!isValidSubdomain(subdomain)) throw new AppError('not_found', 'workspace_not_found', `"${subdomain}" is not a workspace name`);
  if (!mayBeAbsent && !services.registry.exists(subdomain)) throw new AppError('not_found', 'workspace_not_found', `No workspace ${subdomain} on this node`);
  return subdomain;
}

/** What a write can give the jobs to do (`Effect`), as `wake` accepts it. */
const EFFECTS: readonly Effect[] = ['outbox', 'webhooks', 'changed'];

const reasonOf = (req: Request) => (typeof req.body?.reason === 'string' ? req.body.reason.slice(0, 200) : 'maintenance');

/** Pause, resume, hand over and retire: what this node serves of a workspace. */
function holdRoutes(router: Router, services: AppServices): void {
  const { registry, logger } = services;
  const stateOf = (subdomain: string) => ({ subdomain, hold: registry.gate.state(subdomain) });

  router.post('/workspaces/:subdomain/pause', async (req, res) => {
    const subdomain = workspaceOf(services, req);
    await registry.gate.hold(subdomain, 'writes', reasonOf(req));
    logger.info({ workspace: subdomain, reason: reasonOf(req) }, 'writes paused');
    res.json(stateOf(subdomain));
  });

  router.post('/workspaces/:subdomain/resume', (req, res) => {
    const subdomain = workspaceOf(services, req, true);
    registry.resume(subdomain);
    logger.info({ workspace: subdomain }, 'workspace resumed');
    res.json(stateOf(subdomain));
  });

  router.post('/workspaces/:subdomain/hand-over', async (req, res) => {
    const subdomain = workspaceOf(services, req);
    await registry.handOver(subdomain, reasonOf(req));
    logger.info({ workspace: subdomain, reason: reasonOf(req) }, 'workspace handed over: every request answered 503');
    res.json(stateOf(subdomain));
  });

  // A command run beside the server wrote to the workspace: its jobs look at it now, not at their next visit.
  router.post('/workspaces/:subdomain/wake', (req, res) => {
    const subdomain = workspaceOf(services, req);
    const asked: unknown[] = Array.isArray(req.body?.effects) ? (req.body.effects as unknown[]) : [];
    const effects = EFFECTS.filter((e) => asked.includes(e));
    for (const effect of effects) services.wake(effect, subdomain);
    res.json({ subdomain, woken: effects });
  });

  router.post('/workspaces/:subdomain/retire', (req, res) => {
    const subdomain = workspaceOf(services, req);
    const retiredTo = registry.retire(subdomain);
    logger.info({ workspace: subdomain, retired_to: retiredTo }, 'workspace retired from this node');
    res.json({ ...stateOf(subdomain), retired_to: retiredTo });
  });
}

/** Snapshot and pull: a workspace's file from one node to another. */
function transferRoutes(router: Router, services: AppServices): void {
  const { registry, config, logger } = services;

  // A consistent copy taken now, streamed with its length (a header) and SHA-256 (a trailer, hashed
  // as it is sent: one read of the copy instead of two, in the time a move keeps writes paused).
  router.get('/workspaces/:subdomain/snapshot', async (req, res) => {
    const subdomain = workspaceOf(services, req);
    mkdirSync(transferDir(config.dataDir), { recursive: true });
    const copy = join(transferDir(config.dataDir), `${subdomain}-out-${randomUUID()}.sqlite`);
    try {
      await copyConsistent(registry.fileFor(subdomain), copy, { shareEventLoop: true });
      res.setHeader('Content-Type', 'application/vnd.sqlite3');
      res.setHeader(SNAPSHOT_BYTES, String(statSync(copy).size));
      res.setHeader('Trailer', SNAPSHOT_SHA256);
      const hash = createHash('sha256');
      const hashing = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          hash.update(chunk);
          done(null, chunk);
        },
      });
      await pipeline(createReadStream(copy, { highWaterMark: 1 << 20 }), hashing, res, { end: false });
      res.addTrailers({ [SNAPSHOT_SHA256]: hash.digest('hex') });
      res.end();
    } finally {
      rmSync(copy, { force: true });
    }
  });

  // The receiving side of a move: fetch the snapshot from a node of CLUSTER_NODES, prove it, install it.
  router.post('/workspaces/:subdomain/pull', async (req, res) => {
    const subdomain = workspaceOf(services, req, true);
    const from = typeof req.body?.from === 'string' ? req.body.from : '';
    const source = config.clusterNodes.get(from);
    if (!source || !config.clusterSecret) throw new AppError('unprocessable', 'unknown_node', `"${from}" is not a node of CLUSTER_NODES on this node`);
    if (registry.exists(subdomain)) throw new AppError('conflict', 'workspace_exists', `This node already has a workspace ${subdomain}`);
    mkdirSync(transferDir(config.dataDir), { recursive: true });
    const incoming = join(transferDir(config.dataDir), `${subdomain}-in-${randomUUID()}.sqlite`);
    try {
      const received = await downloadSnapshot({ url: source, secret: config.clusterSecret }, subdomain, incoming);
      const check = checkFile(incoming);
      if (!isHealthy(check)) throw new AppError('unprocessable', 'snapshot_damaged', `The snapshot of ${subdomain} failed its integrity check`);
      if (registry.exists(subdomain)) throw new AppError('conflict', 'workspace_exists', `This node already has a workspace ${subdomain}`);
      installCopy(incoming, registry.fileFor(subdomain));
      // It may have left this node once before: it is served here again from now on.
      registry.resume(subdomain);
      logger.info({ workspace: subdomain, from, bytes: received.bytes }, 'workspace received');
      res.json({ subdomain, bytes: received.bytes, sha256: received.sha256, schema_version: check.schema.version });
    } finally {
      rmSync(incoming, { force: true });
    }
  });
}

export function adminRouter({ services, readiness, url }: AdminOptions): Router {
  const router = express.Router();
  router.use(express.json({ limit: '16kb' }));
  router.get('/status', (_req, res) => {
    res.json({ pid: process.pid, version: packageVersion(), url: url(), data_dir: services.config.dataDir, status: readiness.status, holds: services.registry.gate.all() });
  });
  holdRoutes(router, services);
  transferRoutes(router, services);
  router.use((req: Request) => {
    throw new AppError('not_found', 'route_not_found', `No admin operation ${req.method} ${req.path}`);
  });
  router.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    sendError(res, err, services.logger, '');
  });
  return router;
}
