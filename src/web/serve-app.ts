import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import express, { type Request, type Response, type Router } from 'express';
import { PACKAGE_ROOT } from '../package.ts';
import type { AppServices } from '../services.ts';
import { hostOf } from '../trpc/context.ts';
import { subdomainFromHost } from '../workspaces/host.ts';

/**
 * Where `npm run build:web` writes the app (vite.config.ts). From the package root: this module
 * runs from src/web/, from a chunk in dist/chunks/ and from the server bundle dist/serve.cjs.
 */
export const WEB_DIST = join(PACKAGE_ROOT, 'dist', 'web');

/**
 * The first path segments that are pages of the app; only these fall back to index.html, so the
 * app never swallows /api, /trpc, /docs, /healthz or a public invoice page (/invoices/<token>).
 */
export const APP_ROUTES = ['sign-in', 'set-password', 'forgot-password', 'timesheet', 'approvals', 'clients', 'projects', 'invoicing', 'reports', 'team', 'settings', 'account'];

const isAppRoute = (path: string) => path === '/' || APP_ROUTES.includes(path.split('/')[1] ?? '');

const page = (title: string, text: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${title}</title></head><body style="font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem"><h1>${title}</h1><p>${text}</p></body></html>`;

/**
 * The staff web app on every workspace host: hashed assets cached for a year, index.html never
 * cached (so a new build is picked up at once), and index.html for the app's own routes.
 */
export function webAppRouter(services: AppServices, dist = WEB_DIST): Router {
  const router = express.Router({ caseSensitive: true, strict: false });
  router.use('/assets', express.static(join(dist, 'assets'), { immutable: true, maxAge: '365d', index: false }));

  // Read again when a new build replaced it, so a running server never points at deleted assets.
  let index: { mtimeMs: number; html: string } | null = null;
  const indexHtml = (): string | null => {
    const file = join(dist, 'index.html');
    if (!existsSync(file)) return null;
    const { mtimeMs } = statSync(file);
    if (index?.mtimeMs !== mtimeMs) index = { mtimeMs, html: readFileSync(file, 'utf8') };
    return index.html;
  };

  router.get(/.*/, (req: Request, res: Response, next) => {
    if (!isAppRoute(req.path)) {
      next();
      return;
    }
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('Content-Security-Policy', "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'");
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'same-origin');
    const subdomain = subdomainFromHost(hostOf(req, services.config.trustProxy), services.config.baseDomain);
    if (!subdomain || !services.registry.exists(subdomain)) {
      res.status(404).type('html').send(page('No workspace here', 'No hourbook workspace is served at this address. Check the link you followed.'));
      return;
    }
    const html = indexHtml();
    if (!html) {
      res.status(503).type('html').send(page('The web app is not built', 'Run <code>npm run build:web</code> (npm ci does it) and reload.'));
      return;
    }
    res.type('html').send(html);
  });
  return router;
}
