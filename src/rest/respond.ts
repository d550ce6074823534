import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { AppError, retryAfterOf } from '../errors.ts';
import { toAppError } from '../trpc/errors.ts';
import { bodyParserError } from './body.ts';

/** Writes `body` as JSON with `status`, as Express's `res.status(status).json(body)` does. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/** Writes any error as the one envelope of docs/design.md §4; unknown errors are logged once, hidden. */
export function sendError(res: ServerResponse, err: unknown, logger: Logger, requestId: string): void {
  const parsed = bodyParserError(err);
  const { error, internal } = parsed ? { error: parsed, internal: false } : toAppError(err);
  if (internal) logger.error({ err, request_id: requestId }, 'unhandled error');
  if (res.headersSent) {
    res.end();
    return;
  }
  // 429 rate_limited, 409 idempotency_key_in_use, 503 workspace_paused: how long to wait.
  const retryAfter = retryAfterOf(error);
  if (retryAfter !== undefined) res.setHeader('Retry-After', String(retryAfter));
  if (error.kind === 'method_not_allowed' && Array.isArray(error.extra?.allow)) {
    res.setHeader('Allow', (error.extra.allow as string[]).join(', '));
  }
  sendJson(res, error.status, error.toBody());
}

export { AppError };
