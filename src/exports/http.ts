import express, { type Request, type Response, type Router } from 'express';
import type * as z from 'zod';
import { EXPORTS, type ExportName, type exportInput } from '../domain/reports/schemas.ts';
import { AppError } from '../errors.ts';
import { sendError } from '../rest/respond.ts';
import type { AppServices } from '../services.ts';
import { contextFor } from '../trpc/context.ts';
import { createCaller } from '../trpc/router.ts';
import { browserRequest } from '../web/browser.ts';
import { subdomainFromHost } from '../workspaces/host.ts';
import type { HeldPieces } from './held-pieces.ts';

/**
 * CSV downloads on the workspace's host: `GET /api/exports/<report>.csv?<parameters>`.
 *
 * The download is the `reports.exportCsv` procedure called through `createCaller` with this
 * request's context, so it is authorized exactly like the procedure: the `X-Api-Key` header (with
 * `email` in the query naming the person asking), or the web app's session cookie, read by the same
 * `browserRequest` as /trpc and looked up in this workspace's own file, so another workspace's
 * cookie opens nothing here. A download changes nothing, so it needs no CSRF header (the app links
 * to it). The CSV is written as the procedure's pieces arrive,
 * each only after the previous one was taken by the socket (backpressure), so memory stays flat
 * whatever the size; a client that goes away stops the export. The pieces hold the workspace file
 * open while they are written, and a hand-over or a client that stops reading cuts them
 * (src/exports/held-pieces.ts; docs/operations.md, "Downloads and hand-overs").
 */
export const EXPORTS_PREFIX = '/api/exports';

/** Query parameters that are lists, written comma-separated (`by=project,person`). */
const LIST_PARAMETERS = new Set(['by', 'client_ids', 'project_ids', 'user_ids', 'status']);
/** Query parameters that are booleans, written `true` or `false` (anything else reaches the schema as text and is refused there). */
const BOOLEAN_PARAMETERS = new Set(['billable', 'bom']);

/** The query string as the procedure's input: strings, lists split at commas, booleans from their words. */
function inputOf(report: ExportName, query: Request['query']): z.input<typeof exportInput> {
  const input: Record<string, unknown> = { report };
  for (const [key, raw] of Object.entries(query)) {
    if (typeof raw !== 'string') throw new AppError('unprocessable', 'validation_failed', `${key}: give it once, as text`, { details: [{ path: key, message: 'must be given once, as text' }] });
    if (key === 'report') throw new AppError('unprocessable', 'validation_failed', 'report: is the file name, not a parameter', { details: [{ path: key, message: 'is not a known field here' }] });
    if (LIST_PARAMETERS.has(key)) input[key] = raw === '' ? [] : raw.split(',').map((v) => v.trim());
    else if (BOOLEAN_PARAMETERS.has(key) && (raw === 'true' || raw === 'false')) input[key] = raw === 'true';
    else input[key] = raw;
  }
  // The procedure's schema checks every value (and refuses unknown parameters by name).
  return input as z.input<typeof exportInput>;
}

const isExportName = (name: string): name is ExportName => (EXPORTS as readonly string[]).includes(name);

/** Resolves on the socket's next 'drain' or 'close', leaving no listener behind either way. */
function drainedOrClosed(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** Writes the pieces, waiting for the socket to drain whenever it asks to; false if the client left. */
async function writeAll(res: Response, pieces: AsyncIterable<string>): Promise<boolean> {
  for await (const piece of pieces) {
    if (res.destroyed) return false;
    if (!res.write(piece)) {
      await drainedOrClosed(res);
      if (res.destroyed) return false;
    }
  }
  return true;
}

export function exportsRouter(services: AppServices): Router {
  const router = express.Router({ caseSensitive: true });
  const subdomainOf = (host: string | undefined) => subdomainFromHost(host, services.config.baseDomain);

  router.get('/:file', async (req: Request<{ file: string }>, res: Response) => {
    const requestId = String(res.getHeader('x-request-id') ?? '');
    const name = req.params.file.endsWith('.csv') ? req.params.file.slice(0, -'.csv'.length) : '';
    if (!isExportName(name)) {
      res.status(404).json({ error: `No export at ${req.path}; exports are ${EXPORTS.map((e) => `${e}.csv`).join(', ')}`, code: 'export_not_found' });
      return;
    }
    const ctx = contextFor(services, req, requestId, subdomainOf, browserRequest(req, res, services.config, services.clock));
    let csv;
    try {
      csv = await createCaller(ctx).reports.exportCsv(inputOf(name, req.query));
    } catch (err) {
      sendError(res, err, services.logger, requestId);
      return;
    }
    res.status(200);
    res.setHeader('Content-Type', csv.content_type);
    res.setHeader('Content-Disposition', `attachment; filename="${csv.filename}"`);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    await stream(res, csv.pieces, (failure, err) => services.logger[failure === 'cut' ? 'warn' : 'error']({ err, request_id: requestId }, `export ${failure === 'cut' ? 'cut' : 'failed'} while streaming`));
  });
  return router;
}

/**
 * Writes the pieces and ends the response. The pieces hold the workspace file (held-pieces.ts);
 * when the registry cuts them (a hand-over, a client that stopped reading) the response is cut at
 * once, even while it waits for the socket to drain, so the client is not left waiting on a
 * connection that will never send more. A cut or a failure after the status line can only end
 * the response incomplete, so the client sees a broken download rather than a short file.
 */
async function stream(res: Response, pieces: HeldPieces, log: (failure: 'cut' | 'failed', err: unknown) => void): Promise<void> {
  const cut = () => {
    log('cut', pieces.signal.reason);
    res.destroy();
  };
  pieces.signal.addEventListener('abort', cut, { once: true });
  try {
    if (await writeAll(res, pieces)) res.end();
  } catch (err) {
    if (!pieces.signal.aborted) log('failed', err);
    res.destroy();
  } finally {
    pieces.signal.removeEventListener('abort', cut);
    // Releases the file whichever way the writing ended (a no-op when the pieces already did).
    await pieces.return();
  }
}
