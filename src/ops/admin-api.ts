import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { AppError } from '../errors.ts';
import { packageVersion } from '../package.ts';
import { sendError } from '../rest/respond.ts';
import type { Effect } from '../domain/scope.ts';
import type { AppServices } from '../services.ts';
import { checkOrError, installCopy, removeDatabaseFiles, isHealthy, PAGE_HASH_BYTES, pageHashes, pageSizeOf, syncFile, withConsistentImage } from '../workspaces/backup.ts';
import { isValidSubdomain } from '../workspaces/host.ts';
import { downloadSnapshot, NodeRequestError, OPERATION_HEADER, PAGE_SIZE_HEADER, requestChangedPages, SNAPSHOT_BYTES, SNAPSHOT_SHA256, type NodeAddress } from './node-client.ts';
import { applyChangedPages, sendChangedPages } from './page-diff.ts';
import { preparedCopyName, type PreparedCopies } from './prepared-copies.ts';
import type { Readiness } from './readiness.ts';
import { privateDir } from '../workspaces/registry.ts';

/**
 * The admin endpoints of one hourbook process, under `/_cluster`: status, pausing a workspace's
 * writes, handing it over, streaming a consistent snapshot of it, pulling one from another node.
 * `hourbook workspace move` drives them on two nodes; `hourbook restore` and `demo` use them over
 * the local control socket. On the TCP port they exist only when CLUSTER_SECRET is set and answer
 * only a request carrying it (`Authorization: Bearer <secret>`); on the control socket the socket
 * file's permissions are the guard.
 */

/** `DATA_DIR/.transfer/`: snapshots being sent or received; never a workspace, never listed. */
export const transferDir = (dataDir: string) => join(dataDir, '.transfer');

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
  /** The process's copies received for moves under way (one for every router of the process). */
  prepared: PreparedCopies;
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

/**
 * The operation a pause, hand-over, resume or retire is part of (a move's or a restore's id, in the
 * body's `operation`): a hold belongs to it (src/workspaces/gate.ts). Absent: a hold taken belongs
 * to no operation, and a resume lifts any hold (an operator's way out of an abandoned move).
 */
function operationOf(req: Request): string | undefined {
  const operation: unknown = req.body?.operation;
  if (operation === undefined || operation === null) return undefined;
  if (typeof operation !== 'string' || operation.length === 0 || operation.length > 100) throw invalidField('operation', 'must be a string of 1 to 100 characters');
  return operation;
}

/** 422 `validation_failed` for one field of an admin request's body, in the envelope's shape. */
const invalidField = (path: string, message: string) => new AppError('unprocessable', 'validation_failed', `${path} ${message}`, { details: [{ path, message }] });

/** Pause, resume, hand over and retire: what this node serves of a workspace. */
function holdRoutes(router: Router, services: AppServices): void {
  const { registry, logger } = services;
  const stateOf = (subdomain: string) => ({ subdomain, hold: registry.gate.state(subdomain) });

  router.post('/workspaces/:subdomain/pause', async (req, res) => {
    const subdomain = workspaceOf(services, req);
    await registry.gate.hold(subdomain, 'writes', reasonOf(req), operationOf(req) ?? null);
    logger.info({ workspace: subdomain, reason: reasonOf(req) }, 'writes paused');
    res.json(stateOf(subdomain));
  });

  // Idempotent: an operation's resume lifts its own hold if it still has one, never another's;
  // `hold` ('writes' or 'all') lifts only a hold of that kind.
  router.post('/workspaces/:subdomain/resume', (req, res) => {
    const subdomain = workspaceOf(services, req, true);
    const kind: unknown = req.body?.hold;
    if (kind !== undefined && kind !== 'writes' && kind !== 'all') throw invalidField('hold', 'must be writes or all');
    const released = registry.resume(subdomain, operationOf(req), kind);
    if (released) logger.info({ workspace: subdomain }, 'workspace resumed');
    res.json({ ...stateOf(subdomain), released });
  });

  // `paused: true`: the operation paused the workspace first, and hands it over only if that pause
  // is still in force (409 hold_lost if it was resumed meanwhile). The workspace may have no file
  // here (a restore of one that left this node, or of a new one).
  router.post('/workspaces/:subdomain/hand-over', async (req, res) => {
    const subdomain = workspaceOf(services, req, true);
    const operation = operationOf(req) ?? null;
    if (req.body?.paused === true) registry.gate.requireHeldBy(subdomain, operation);
    await registry.handOver(subdomain, reasonOf(req), operation);
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
    const retiredTo = registry.retire(subdomain, operationOf(req));
    logger.info({ workspace: subdomain, retired_to: retiredTo }, 'workspace retired from this node');
    res.json({ ...stateOf(subdomain), retired_to: retiredTo });
  });
}

/** The node a target copies from: one of its own CLUSTER_NODES, named in the body's `from`. */
function sourceNode(services: AppServices, req: Request): { from: string; source: NodeAddress } {
  const { config } = services;
  const from = typeof req.body?.from === 'string' ? req.body.from : '';
  const url = config.clusterNodes.get(from);
  if (!url || !config.clusterSecret) throw new AppError('unprocessable', 'unknown_node', `"${from}" is not a node of CLUSTER_NODES on this node`);
  return { from, source: { url, secret: config.clusterSecret } };
}

/**
 * What went wrong with the source node, for the caller: its refusal passed on with its status and
 * code (a 5xx of its own stays a 503: retry), or 503 `source_unreachable` when it could not be
 * reached or its answer was cut or damaged on the way.
 */
function relayed(err: unknown): unknown {
  if (!(err instanceof NodeRequestError)) {
    return new AppError('unavailable', 'source_unreachable', `The transfer from the source node failed: ${err instanceof Error ? err.message : String(err)}`, { extra: { retry_after: 1 } });
  }
  // A 4xx not passed on as such (400, 401, 403) is a refusal all the same, not a reason to retry.
  const kind = ({ 404: 'not_found', 409: 'conflict', 422: 'unprocessable' } as const)[err.status as 404 | 409 | 422] ?? (err.status < 500 ? 'unprocessable' : 'unavailable');
  return new AppError(kind, err.code ?? 'source_refused', `The source node answered: ${err.message}`);
}

/** How long a node waits on a peer that neither sends nor reads during a transfer. */
const STALL_MS = 60_000;

/**
 * Runs a transfer's answer; a failure once its bytes began to go out (most often the receiver went
 * away) ends the connection, which the receiver sees as a cut answer, and is logged as a warning.
 */
async function cutOffQuietly(res: Response, services: AppServices, subdomain: string, send: () => Promise<void>): Promise<void> {
  try {
    await send();
  } catch (err) {
    if (!res.headersSent) throw err;
    services.logger.warn({ workspace: subdomain, err: err instanceof Error ? err.message : String(err) }, 'transfer cut off');
    res.destroy();
  }
}

/** Where a source copies a file it cannot freeze, for the time of one transfer. */
function scratchFile(dataDir: string, subdomain: string): string {
  privateDir(transferDir(dataDir));
  return join(transferDir(dataDir), `${subdomain}-out-${randomUUID()}.sqlite`);
}

const workspaceExists = (subdomain: string) => new AppError('conflict', 'workspace_exists', `This node already has a workspace ${subdomain}`);

/**
 * The source's side of a move: a snapshot of the frozen file as it is (writes go on), then, once
 * writes are paused, the pages that changed since (src/ops/page-diff.ts).
 */
function sourceRoutes(router: Router, services: AppServices): void {
  const { registry, config, logger } = services;

  // The file's bytes at one moment, streamed from the file itself while it is frozen (or from a
  // copy when it cannot be), with their length (a header) and SHA-256 (a trailer, hashed as they
  // are sent). A receiver that stops reading for STALL_MS is cut off, so the file is let go.
  router.get('/workspaces/:subdomain/snapshot', async (req, res) => {
    const subdomain = workspaceOf(services, req);
    res.setTimeout(STALL_MS, () => res.destroy(new Error('the receiver stopped reading')));
    await cutOffQuietly(res, services, subdomain, () => withConsistentImage(registry.fileFor(subdomain), scratchFile(config.dataDir, subdomain), async (path, { pageSize, pageCount }) => {
      res.setHeader('Content-Type', 'application/vnd.sqlite3');
      res.setHeader(SNAPSHOT_BYTES, String(pageSize * pageCount));
      res.setHeader('Trailer', SNAPSHOT_SHA256);
      const hash = createHash('sha256');
      const hashing = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          hash.update(chunk);
          done(null, chunk);
        },
      });
      await pipeline(createReadStream(path, { start: 0, end: pageSize * pageCount - 1, highWaterMark: 1 << 20 }), hashing, res, { end: false });
      res.addTrailers({ [SNAPSHOT_SHA256]: hash.digest('hex') });
      res.end();
    }));
  });

  // Only while writes are paused: after it, nothing the target lacks can be written here.
  router.post('/workspaces/:subdomain/changes', express.raw({ type: 'application/octet-stream', limit: '256mb' }), async (req, res) => {
    const subdomain = workspaceOf(services, req);
    const theirs: unknown = req.body;
    const pageSize = Number(req.headers[PAGE_SIZE_HEADER.toLowerCase()]);
    if (!Buffer.isBuffer(theirs) || theirs.length === 0 || theirs.length % PAGE_HASH_BYTES !== 0 || !Number.isInteger(pageSize) || pageSize <= 0) {
      throw new AppError('unprocessable', 'invalid_page_hashes', `The body must be the copy's page hashes, ${PAGE_HASH_BYTES} bytes each (application/octet-stream), with its page size in ${PAGE_SIZE_HEADER}`);
    }
    // A move names itself: its own pause must still be in force.
    const operation = req.headers[OPERATION_HEADER.toLowerCase()];
    if (typeof operation === 'string') registry.gate.requireHeldBy(subdomain, operation);
    if (!registry.gate.isHeld(subdomain)) throw new AppError('conflict', 'workspace_not_paused', `Writes to ${subdomain} must be paused before its changed pages are sent`);
    res.setTimeout(STALL_MS, () => res.destroy(new Error('the receiver stopped reading')));
    let sent = 0;
    await cutOffQuietly(res, services, subdomain, () => withConsistentImage(registry.fileFor(subdomain), scratchFile(config.dataDir, subdomain), async (path, image) => {
      if (image.pageSize !== pageSize) throw new AppError('conflict', 'page_size_changed', `${subdomain} now has pages of ${image.pageSize} bytes, the copy ${pageSize}: prepare a new copy`);
      sent = await sendChangedPages(path, image, theirs, res);
    }));
    logger.info({ workspace: subdomain, pages_sent: sent }, 'changed pages sent');
  });
}

/**
 * The target's side of a move: `prepare` receives a snapshot and checks it while the source keeps
 * taking writes; `pull`, once the source's writes are paused, brings the copy up to date with the
 * pages that changed meanwhile and installs it; `discard` drops a copy whose move was given up.
 */
function targetRoutes(router: Router, services: AppServices, prepared: PreparedCopies): void {
  const { registry, config, logger } = services;

  router.post('/workspaces/:subdomain/prepare', async (req, res) => {
    const subdomain = workspaceOf(services, req, true);
    const { from, source } = sourceNode(services, req);
    if (registry.exists(subdomain)) throw workspaceExists(subdomain);
    privateDir(transferDir(config.dataDir));
    const file = join(transferDir(config.dataDir), preparedCopyName(subdomain));
    try {
      const received = await downloadSnapshot(source, subdomain, file).catch((err: unknown) => Promise.reject(relayed(err)));
      const pageSize = pageSizeOf(file);
      // The page hashes on the hashing thread and the flush to disk on the thread pool while the
      // check reads the copy here: none of it is left for the time writes are paused.
      const hashing = pageHashes(file, { pageSize, pageCount: Math.floor(received.bytes / pageSize) });
      const syncing = syncFile(file);
      const check = checkOrError(file);
      const [hashes] = await Promise.all([hashing, syncing]);
      if (received.bytes % pageSize !== 0 || !isHealthy(check)) throw new AppError('unprocessable', 'snapshot_damaged', `The snapshot of ${subdomain} failed its integrity check`);
      const transfer = prepared.add({ subdomain, from, file, pageSize, hashes });
      logger.info({ workspace: subdomain, from, bytes: received.bytes }, 'copy of a workspace received');
      res.json({ subdomain, transfer, bytes: received.bytes, sha256: received.sha256, schema_version: check instanceof Error ? null : check.schema.version });
    } catch (err) {
      removeDatabaseFiles(file);
      throw err;
    }
  });

  router.post('/workspaces/:subdomain/pull', async (req, res) => {
    const subdomain = workspaceOf(services, req, true);
    const { from, source } = sourceNode(services, req);
    const copy = prepared.take(String(req.body?.transfer ?? ''), subdomain, from);
    try {
      const changes = await requestChangedPages(source, subdomain, copy.hashes, copy.pageSize, operationOf(req)).catch((err: unknown) => Promise.reject(relayed(err)));
      const applied = await applyChangedPages(changes, copy.file, copy.pageSize, copy.hashes);
      if (registry.exists(subdomain)) throw workspaceExists(subdomain);
      installCopy(copy.file, registry.fileFor(subdomain));
      // It may have left this node once before: it is served here again from now on.
      registry.resume(subdomain);
      logger.info({ workspace: subdomain, from, bytes: applied.bytes, pages_changed: applied.pagesChanged }, 'workspace received');
      res.json({ subdomain, bytes: applied.bytes, pages_changed: applied.pagesChanged, pages_sha256: applied.digest });
    } finally {
      removeDatabaseFiles(copy.file);
    }
  });

  router.post('/workspaces/:subdomain/discard', (req, res) => {
    const subdomain = workspaceOf(services, req, true);
    res.json({ subdomain, discarded: prepared.discard(String(req.body?.transfer ?? '')) });
  });
}

export function adminRouter({ services, readiness, url, prepared }: AdminOptions): Router {
  const router = express.Router();
  router.use(express.json({ limit: '16kb' }));
  router.get('/status', (_req, res) => {
    res.json({ pid: process.pid, version: packageVersion(), url: url(), data_dir: services.config.dataDir, status: readiness.status, holds: services.registry.gate.all() });
  });
  holdRoutes(router, services);
  sourceRoutes(router, services);
  targetRoutes(router, services, prepared);
  router.use((req: Request) => {
    throw new AppError('not_found', 'route_not_found', `No admin operation ${req.method} ${req.path}`);
  });
  router.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    sendError(res, err, services.logger, '');
  });
  return router;
}
