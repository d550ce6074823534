import express, { type Router } from 'express';
import type { OpenApiDocument } from './document.ts';

export const OPENAPI_PATH = '/api/external/openapi.json';

/**
 * Serves the document built once at start. No key is needed: the contract is public, and any
 * origin may read it so integrators' tools (editors, code generators) can load it by URL.
 */
export function openApiRouter(document: OpenApiDocument): Router {
  const router = express.Router();
  const body = JSON.stringify(document);
  router.get(OPENAPI_PATH, (_req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.type('application/json').send(body);
  });
  return router;
}
