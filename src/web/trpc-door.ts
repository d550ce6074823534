import { createExpressMiddleware } from '@trpc/server/adapters/express';
import cors from 'cors';
import express, { type Router } from 'express';
import { MAX_BODY_BYTES } from '../rest/body.ts';
import type { AppServices } from '../services.ts';
import { contextFor } from '../trpc/context.ts';
import { toAppError } from '../trpc/errors.ts';
import { appRouter } from '../trpc/router.ts';
import { subdomainFromHost } from '../workspaces/host.ts';
import { browserRequest } from './browser.ts';
import { csrfGuard } from './csrf.ts';

/**
 * /trpc: the procedures for TypeScript clients, called with an API key (integrations, other
 * frontends through CORS_ORIGINS) or with the session cookie (the web app, behind the CSRF guard).
 */
export function trpcDoor(services: AppServices): Router {
  const { config } = services;
  const subdomainOf = (host: string | undefined) => subdomainFromHost(host, config.baseDomain);
  const router = express.Router();
  router.use(
    cors({ origin: config.corsOrigins.length > 0 ? config.corsOrigins : false }),
    csrfGuard(config),
    createExpressMiddleware({
      router: appRouter,
      maxBodySize: MAX_BODY_BYTES,
      createContext: ({ req, res }) =>
        contextFor(services, req, String(res.getHeader('x-request-id') ?? ''), subdomainOf, browserRequest(req, res, config, services.clock)),
      responseMeta: ({ errors }) => {
        // Answers carry a member's data: never cached, by the browser or anything between.
        const headers: Record<string, string> = { 'Cache-Control': 'no-store' };
        const retryAfter = errors.map((e) => toAppError(e).error.extra?.retry_after).find((v) => typeof v === 'number');
        if (retryAfter !== undefined) headers['Retry-After'] = String(retryAfter);
        return { headers };
      },
      onError: ({ error, ctx }) => {
        if (toAppError(error).internal) services.logger.error({ err: error, request_id: ctx?.requestId }, 'unhandled error');
      },
    }),
  );
  return router;
}
