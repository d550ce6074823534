import { createServer, type Server } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import { docsRouter, DOCS_PATH } from './docs/page.ts';
import { EXPORTS_PREFIX, exportsRouter } from './exports/http.ts';
import { jobs } from './jobs/index.ts';
import { startJobs } from './jobs/runner.ts';
import { answerMalformedRequests, refuseUndecodablePaths } from './http-edge.ts';
import { requestLog } from './request-log.ts';
import { STRIPE_WEBHOOK_PATH } from './domain/workspace/payment-processor.ts';
import { stripeWebhookRouter } from './public/card-payment.ts';
import { answerUnknownInvoicePath, publicInvoiceRouter, workspaceOfRequest } from './public/invoice-page.ts';
import { mountOps, type Ops } from './ops/mount.ts';
import { buildOpenApiDocument } from './openapi/document.ts';
import { OPENAPI_PATH, openApiRouter } from './openapi/http.ts';
import { restDoor } from './rest/adapter.ts';
import { sendError } from './rest/respond.ts';
import { restRoutes } from './rest/routes/index.ts';
import type { AppServices } from './services.ts';
import { trpcHttp } from './trpc/http.ts';
import { webAppRouter } from './web/serve-app.ts';

export function createApp(services: AppServices, mount?: (app: express.Express) => void): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.use(requestLog(services));
  app.use(refuseUndecodablePaths(answerUnknownInvoicePath));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  // /readyz and the cluster endpoints (src/ops/), before anything that would answer for a workspace.
  mount?.(app);
  // The card processor's webhook reads its raw body to check the signature: before any parser.
  // Each router is mounted at its own path, so other requests pass it with one prefix test instead of entering it.
  app.use(STRIPE_WEBHOOK_PATH, stripeWebhookRouter(services, (req) => workspaceOfRequest(services, req)));

  app.use('/trpc', trpcHttp(services));

  // Public, before the REST router (which would demand a key); the document is built when first asked for.
  app.use(OPENAPI_PATH, openApiRouter(() => buildOpenApiDocument(restRoutes, services.config), services.config));
  app.use(DOCS_PATH, docsRouter());
  app.use(EXPORTS_PREFIX, exportsRouter(services));
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
  opts: { port?: number; host?: string; jobs?: boolean; shutdownGraceMs?: number; controlSocket?: boolean } = {},
): Promise<RunningServer> {
  let url = '';
  let ops: Ops | undefined;
  const app = createApp(services, (a) => {
    ops = mountOps(a, services, () => url, { controlSocket: opts.controlSocket ?? true });
  });
  if (!ops) throw new Error('ops not mounted');
  const mounted: Ops = ops;
  await mounted.claim();
  const port = opts.port ?? services.config.port;
  const host = opts.host ?? services.config.host;
  let server: Server;
  try {
    server = await new Promise<Server>((resolveListen, reject) => {
      // The REST door answers /api/external itself; every other request goes to the Express app.
      const rest = restDoor(services, restRoutes);
      const s = createServer((req, res) => {
        if (!rest(req, res)) app(req, res);
      });
      s.once('error', reject);
      s.listen(port, host, () => resolveListen(s));
    });
  } catch (err) {
    await mounted.stop();
    throw err;
  }
  answerMalformedRequests(server, services.logger);
  // WAL checkpoints leave the event loop (src/workspaces/checkpointer.ts).
  services.registry.startCheckpoints((file, error) => services.logger.warn({ file, error }, 'background checkpoint failed'));
  const address = server.address();
  url = typeof address === 'object' && address ? `http://${host}:${address.port}` : `http://${host}:${port}`;
  // Jobs start once every file is on the current schema; requests are served meanwhile.
  let running: ReturnType<typeof startJobs> | null = null;
  let closing: Promise<void> | null = null;
  const started = mounted.start().then(() => {
    if (closing || opts.jobs === false) return;
    running = startJobs(jobs, services, services.logger);
    const r = running;
    services.wake = (effect, subdomain) => (effect === 'changed' ? r.changed(subdomain) : r.kick(effect, subdomain));
  });
  return {
    server,
    url,
    close: () =>
      (closing ??= (async () => {
        await mounted.stop();
        await new Promise<void>((done) => {
          server.close(() => done());
          server.closeIdleConnections();
          // Requests in flight get a grace period; a client that keeps its connection open past it
          // (keep-alive, a stalled upload) is cut off so shutdown always ends.
          setTimeout(() => server.closeAllConnections(), opts.shutdownGraceMs ?? SHUTDOWN_GRACE_MS).unref();
        });
        await started.catch(() => {});
        await (running as ReturnType<typeof startJobs> | null)?.stop();
        await services.registry.closeAllAndStop();
      })()),
  };
}
