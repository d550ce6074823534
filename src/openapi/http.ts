import express, { type Router } from 'express';
import type { OpenApiDocument } from './document.ts';

export const OPENAPI_PATH = '/api/external/openapi.json';

/**
 * Serves the document, built once at the first request (building it converts every schema, a
 * noticeable share of start-up otherwise). No key is needed: the contract is public, and any
 * origin may read it so integrators' tools (editors, code generators) can load it by URL.
 */
export function openApiRouter(build: () => OpenApiDocument): Router {
  const router = express.Router();
  let body: string | undefined;
  router.get(OPENAPI_PATH, (_req, res) => {
    body ??= JSON.stringify(build());
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.type('application/json').send(body);
  });
  return router;
}
