import type { TRPC_ERROR_CODE_KEY } from '@trpc/server';

/**
 * The one domain error type. A kind fixes the HTTP status and the tRPC code; the code is the stable
 * snake_case value integrators branch on (docs/design.md §4).
 */
export const errorKinds = {
  invalid_json: { status: 400, trpc: 'PARSE_ERROR' },
  bad_request: { status: 400, trpc: 'BAD_REQUEST' },
  unauthorized: { status: 401, trpc: 'UNAUTHORIZED' },
  forbidden: { status: 403, trpc: 'FORBIDDEN' },
  not_found: { status: 404, trpc: 'NOT_FOUND' },
  method_not_allowed: { status: 405, trpc: 'METHOD_NOT_SUPPORTED' },
  not_acceptable: { status: 406, trpc: 'BAD_REQUEST' },
  conflict: { status: 409, trpc: 'CONFLICT' },
  payload_too_large: { status: 413, trpc: 'PAYLOAD_TOO_LARGE' },
  unsupported_media_type: { status: 415, trpc: 'UNSUPPORTED_MEDIA_TYPE' },
  unprocessable: { status: 422, trpc: 'UNPROCESSABLE_CONTENT' },
  rate_limited: { status: 429, trpc: 'TOO_MANY_REQUESTS' },
  internal: { status: 500, trpc: 'INTERNAL_SERVER_ERROR' },
  unavailable: { status: 503, trpc: 'SERVICE_UNAVAILABLE' },
} as const satisfies Record<string, { status: number; trpc: TRPC_ERROR_CODE_KEY }>;

type ErrorKind = keyof typeof errorKinds;

export interface ErrorDetail {
  path: string;
  message: string;
}

export class AppError extends Error {
  readonly kind: ErrorKind;
  readonly code: string;
  readonly details: ErrorDetail[] | undefined;
  /** Extra machine-readable fields merged into the envelope (e.g. `computed_total`, `missing_ids`). */
  readonly extra: Record<string, unknown> | undefined;

  constructor(kind: ErrorKind, code: string, message: string, opts?: { details?: ErrorDetail[]; extra?: Record<string, unknown> }) {
    super(message);
    this.name = 'AppError';
    this.kind = kind;
    this.code = code;
    this.details = opts?.details;
    this.extra = opts?.extra;
  }

  get status(): number {
    return errorKinds[this.kind].status;
  }

  /** The REST envelope: `{error, code, details?, ...extra}`. */
  toBody(): Record<string, unknown> {
    return {
      error: this.message,
      code: this.code,
      ...(this.details ? { details: this.details } : {}),
      ...this.extra,
    };
  }
}

export const notFound = (resource: string, message?: string) =>
  new AppError('not_found', `${resource}_not_found`, message ?? `${resource.replaceAll('_', ' ')} not found`);

export const unprocessable = (code: string, message: string, extra?: Record<string, unknown>) =>
  new AppError('unprocessable', code, message, extra ? { extra } : undefined);

export const forbidden = (message = 'You are not allowed to do this', code = 'forbidden') =>
  new AppError('forbidden', code, message);

export const conflict = (code: string, message: string) => new AppError('conflict', code, message);

/** A 422 `validation_failed` for one field, in the same shape as a schema failure. */
export const invalidField = (path: string, message: string) =>
  new AppError('unprocessable', 'validation_failed', `${path}: ${message}`, { details: [{ path, message }] });

const UNAUTHORIZED_MESSAGE = 'Could not authenticate, invalid API Key';
export const unauthorized = () => new AppError('unauthorized', 'unauthorized', UNAUTHORIZED_MESSAGE);

/** Seconds to wait before retrying, for the errors that say (429, 503): sent as `Retry-After` by both doors. */
export const retryAfterOf = (error: AppError): number | undefined =>
  typeof error.extra?.retry_after === 'number' ? error.extra.retry_after : undefined;

export const workspaceNotFound = () =>
  new AppError('not_found', 'workspace_not_found', 'No workspace is served at this host');

/** Issues of a failed schema parse (zod or any Standard Schema) as envelope details. */
export interface SchemaIssue {
  path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> | undefined;
  message: string;
  code?: string;
  /** Set by zod for `unrecognized_keys`. */
  keys?: readonly string[];
}

export function validationError(issues: readonly SchemaIssue[], prefix: string[] = []): AppError {
  const pathOf = (segments: PropertyKey[]) => segments.map(String).join('.') || '(body)';
  const details = issues.flatMap((issue) => {
    const segments = [...prefix, ...(issue.path ?? []).map((p) => (typeof p === 'object' ? p.key : p))];
    // A strict schema's unknown keys: one detail per key, each naming it (zod reports them together on the parent).
    if (issue.code === 'unrecognized_keys' && issue.keys?.length) {
      return issue.keys.map((key) => ({ path: pathOf([...segments, key]), message: 'is not a known field here' }));
    }
    return [{ path: pathOf(segments), message: issue.message }];
  });
  const first = details[0];
  const message = first ? `Invalid request: ${first.path}: ${first.message}` : 'Invalid request';
  return new AppError('unprocessable', 'validation_failed', message, { details });
}
