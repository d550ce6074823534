import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import { docsRouter, DOCS_PATH } from './docs/page.ts';
import { jobs } from './jobs/index.ts';
import { startJobs } from './jobs/runner.ts';
import { publicInvoiceRouter } from './public/invoice-page.ts';
import { buildOpenApiDocument } from './openapi/document.ts';
import { openApiRouter } from './openapi/http.ts';
import { REST_PREFIX, restRouter } from './rest/adapter.ts';
import { sendError } from './rest/respond.ts';
import { restRoutes } from './rest/routes/index.ts';
import type { AppServices } from './services.ts';
import { hostOf } from './trpc/context.ts';
import { webAppRouter } from './web/serve-app.ts';
import { trpcDoor } from './web/trpc-door.ts';
import { subdomainFromHost } from './workspaces/host.ts';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,100}$/;

/** One line per request: method, path, status, ms, workspace, request id. Never headers or bodies. */
function requestLog(services: AppServices) {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', requestId);
    res.on('finish', () => {
      services.logger.info(
        {
          method: req.method,
          path: req.originalUrl.split('?')[0],
          status: res.statusCode,
          ms: Number((process.hrtime.bigint() - started) / 1000n) / 1000,
          workspace: subdomainFromHost(hostOf(req, services.config.trustProxy), services.config.baseDomain),
          request_id: requestId,
        },
        'request',
      );
    });
    next();
  };
}

export function createApp(services: AppServices): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.use(requestLog(services));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  app.use('/trpc', trpcDoor(services));

  // Public, before the REST router (which would demand a key); the document is built once.
  app.use(openApiRouter(buildOpenApiDocument(restRoutes, services.config)));
  app.use(DOCS_PATH, docsRouter());
  app.use(REST_PREFIX, restRouter(services, restRoutes));
  app.use(publicInvoiceRouter(services));
  app.use(webAppRouter(services));

  app.use((req: Request, res: Response) => {
    res.status(404).json({ error: `Nothing is served at ${req.method} ${req.path}`, code: 'not_found' });
  });
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    sendError(res, err, services.logger, String(res.getHeader('x-request-id') ?? ''));
  });
  return app;
}

export interface RunningServer {
  server: Server;
  url: string;
  close: () => Promise<void>;
}

/**
 * Listens, starts the background jobs, and returns a close that stops accepting, lets requests in
 * flight finish, stops the jobs and closes every workspace file cleanly.
 */
/** How long requests in flight may take to finish once shutdown began. */
const SHUTDOWN_GRACE_MS = 10_000;

export async function startServer(
  services: AppServices,
  opts: { port?: number; host?: string; jobs?: boolean; shutdownGraceMs?: number } = {},
): Promise<RunningServer> {
  const app = createApp(services);
  const running = opts.jobs === false ? null : startJobs(jobs, services, services.logger);
  if (running) services.wake = (job, subdomain) => running.kick(job, subdomain);
  const port = opts.port ?? services.config.port;
  const host = opts.host ?? services.config.host;
  const server = await new Promise<Server>((resolveListen, reject) => {
    const s = app.listen(port, host, (err?: Error) => (err ? reject(err) : resolveListen(s)));
  });
  const address = server.address();
  const url = typeof address === 'object' && address ? `http://${host}:${address.port}` : `http://${host}:${port}`;
  let closing: Promise<void> | null = null;
  return {
    server,
    url,
    close: () =>
      (closing ??= (async () => {
        await new Promise<void>((done) => {
          server.close(() => done());
          server.closeIdleConnections();
          // Requests in flight get a grace period; a client that keeps its connection open past it
          // (keep-alive, a stalled upload) is cut off so shutdown always ends.
          setTimeout(() => server.closeAllConnections(), opts.shutdownGraceMs ?? SHUTDOWN_GRACE_MS).unref();
        });
        await running?.stop();
        services.registry.closeAll();
      })()),
  };
}
