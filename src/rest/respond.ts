import type { Response } from 'express';
import type { Logger } from 'pino';
import { AppError, retryAfterOf } from '../errors.ts';
import { toAppError } from '../trpc/errors.ts';
import { bodyParserError } from './body.ts';

/** Writes any error as the one envelope of docs/design.md §4; unknown errors are logged once, hidden. */
export function sendError(res: Response, err: unknown, logger: Logger, requestId: string): void {
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
  res.status(error.status).json(error.toBody());
}

export { AppError };
