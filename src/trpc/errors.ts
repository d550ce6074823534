import { TRPCError } from '@trpc/server';
import { AppError, retryAfterOf, validationError, type SchemaIssue } from '../errors.ts';

const hasIssues = (value: unknown): value is { issues: readonly SchemaIssue[] } =>
  typeof value === 'object' && value !== null && Array.isArray((value as { issues?: unknown }).issues);

/** tRPC's own failures (before any procedure ran) in the product's vocabulary. */
const trpcOwn: Partial<Record<TRPCError['code'], () => AppError>> = {
  PARSE_ERROR: () => new AppError('invalid_json', 'invalid_json', 'The request body is not valid JSON'),
  NOT_FOUND: () => new AppError('not_found', 'procedure_not_found', 'No such procedure'),
  METHOD_NOT_SUPPORTED: () => new AppError('method_not_allowed', 'method_not_allowed', 'Use GET for queries and POST for mutations'),
  PAYLOAD_TOO_LARGE: () => new AppError('payload_too_large', 'payload_too_large', 'The request body is larger than 1 MiB'),
  UNSUPPORTED_MEDIA_TYPE: () => new AppError('unsupported_media_type', 'unsupported_media_type', 'The request body must be JSON'),
};

/** Exceptions that say the code is wrong, not the request. */
const isBug = (err: unknown) => err instanceof RangeError || err instanceof TypeError || err instanceof ReferenceError;

/**
 * Every error, whatever threw it, as the one domain error type. Anything not understood is an
 * internal error whose message never reaches the caller; `internal` is true for those so the
 * caller logs them once.
 */
export function toAppError(err: unknown): { error: AppError; internal: boolean } {
  if (err instanceof AppError) return { error: err, internal: false };
  if (err instanceof TRPCError) {
    if (err.cause instanceof AppError) return { error: err.cause, internal: false };
    if (hasIssues(err.cause)) return { error: validationError(err.cause.issues), internal: false };
    const own = trpcOwn[err.code];
    if (own) return { error: own(), internal: false };
    // tRPC's own refusals say what is wrong with the request (a batch too large, input that does
    // not parse); a bug met while the input was read (a stack overflow, a TypeError) must not
    // reach the caller as if it were a validation message.
    if (err.code === 'BAD_REQUEST' && !isBug(err.cause)) {
      return { error: new AppError('unprocessable', 'validation_failed', err.message), internal: false };
    }
  }
  return { error: new AppError('internal', 'internal_error', 'Something went wrong on our side; the request was not applied'), internal: true };
}

/**
 * tRPC's `responseMeta`: answers carry a member's data, so never cached (by the browser or anything
 * between); and a `Retry-After` header when an error says how long to wait (429, 503), as REST sends it.
 */
export function responseMeta({ errors }: { errors: readonly TRPCError[] }): { headers: Record<string, string> } {
  const headers: Record<string, string> = { 'Cache-Control': 'no-store' };
  const seconds = errors.map((e) => retryAfterOf(toAppError(e).error)).find((s) => s !== undefined);
  if (seconds !== undefined) headers['Retry-After'] = String(seconds);
  return { headers };
}
