import * as z from 'zod';
import { takesBody, type RestRoute } from '../rest/types.ts';

/** The one error envelope of docs/design.md §4; extra machine-readable fields may sit beside it. */
const envelope = (code: z.ZodString | z.ZodEnum) =>
  z.looseObject({
    error: z.string().min(1).meta({ description: 'A message a person can act on' }),
    code: code.meta({ description: 'Stable snake_case value to branch on' }),
    details: z
      .array(z.object({ path: z.string(), message: z.string() }))
      .optional()
      .meta({ description: 'Only for validation failures: one entry per offending field' }),
  });

const snakeCase = () => z.string().regex(/^[a-z][a-z0-9_]*$/);

export const errorEnvelope = envelope(snakeCase());

interface ErrorStatus {
  name: string;
  description: string;
  code: z.ZodString | z.ZodEnum;
  /** What the reference shows, a real answer rather than one generated from the code's pattern. */
  example: Record<string, unknown>;
}

const NOT_FOUND_ID = '5a2de667-243b-4da3-b090-b698a03d98da';

/** Every error status an operation can answer, with the codes it carries. */
export const errorStatuses = {
  400: {
    name: 'BadRequest',
    description: 'The body is not valid JSON (`invalid_json`), or the path is not valid percent-encoded UTF-8 (`invalid_path`).',
    code: z.enum(['invalid_json', 'invalid_path']),
    example: { error: 'The request body is not valid JSON', code: 'invalid_json' },
  },
  401: {
    name: 'Unauthorized',
    description: 'Missing, unknown, revoked or expired `X-Api-Key`, or a key of another workspace (`unauthorized`).',
    code: z.enum(['unauthorized']),
    example: { error: 'Could not authenticate, invalid API Key', code: 'unauthorized' },
  },
  403: {
    name: 'Forbidden',
    description:
      'The caller may not do this: the acting user (named by `email`, or the member a personal API key belongs to) lacks the role (`forbidden`, `override_not_permitted`), is deactivated (`user_inactive`), or is not the one named (`acting_user_mismatch`).',
    code: snakeCase(),
    example: { error: 'Only an Owner or Admin may create invoices', code: 'forbidden' },
  },
  404: {
    name: 'NotFound',
    description: 'No workspace at this host (`workspace_not_found`), or an unknown id, also one of another workspace (`<resource>_not_found`).',
    code: z.string().regex(/^[a-z][a-z0-9_]*_not_found$/),
    example: { error: `No client with id ${NOT_FOUND_ID} in this workspace`, code: 'client_not_found' },
  },
  406: {
    name: 'NotAcceptable',
    description: 'The request did not send `Accept: application/json` (`not_acceptable`).',
    code: z.enum(['not_acceptable']),
    example: { error: 'This endpoint answers JSON only: send Accept: application/json', code: 'not_acceptable' },
  },
  409: {
    name: 'Conflict',
    description:
      'The write conflicts with existing data (e.g. `invoice_number_taken`, `project_user_exists`, `recipient_exists`), or a request with the same `Idempotency-Key` is still running (`idempotency_key_in_use`, with `Retry-After`).',
    code: snakeCase(),
    example: { error: 'Invoice number INV-0042 is already used in this workspace', code: 'invoice_number_taken' },
  },
  413: {
    name: 'PayloadTooLarge',
    description: 'The body is larger than 1 MiB (`payload_too_large`).',
    code: z.enum(['payload_too_large']),
    example: { error: 'The request body is larger than 1 MiB', code: 'payload_too_large' },
  },
  415: {
    name: 'UnsupportedMediaType',
    description: 'The body is not JSON sent as `Content-Type: application/json` (`unsupported_media_type`).',
    code: z.enum(['unsupported_media_type']),
    example: { error: 'The request body must be JSON, sent with Content-Type: application/json', code: 'unsupported_media_type' },
  },
  422: {
    name: 'Unprocessable',
    description:
      'The input breaks a rule: `validation_failed` (with `details`), `user_not_found`, a business rule such as `time_entry_locked`, or an `Idempotency-Key` that is malformed (`idempotency_key_invalid`) or was used with another request (`idempotency_key_reused`).',
    code: snakeCase(),
    example: { error: 'Invalid request: hours: must be hours as a string such as "1.5", "0.25" or "1:30"', code: 'validation_failed', details: [{ path: 'hours', message: 'must be hours as a string such as "1.5", "0.25" or "1:30"' }] },
  },
  429: {
    name: 'RateLimited',
    description: 'Too many requests for this API key (`rate_limited`); retry after the `Retry-After` seconds, also given as `retry_after`.',
    code: z.enum(['rate_limited']),
    example: { error: 'Too many requests for this API key; retry in 2 s', code: 'rate_limited', retry_after: 2 },
  },
  500: {
    name: 'InternalError',
    description: 'Something failed on the server; nothing was applied (`internal_error`).',
    code: z.enum(['internal_error']),
    example: { error: 'Something went wrong on our side; the request was not applied', code: 'internal_error' },
  },
  503: {
    name: 'Unavailable',
    description:
      'The workspace is being moved or restored: writes are paused (`workspace_paused`; reads go on) or the workspace is briefly served by no node here (`workspace_moved`). Nothing was applied; retry after the `Retry-After` seconds, also given as `retry_after`.',
    code: z.enum(['workspace_paused', 'workspace_moved']),
    example: { error: 'Writes to acme are paused (move to node2); retry shortly, nothing was applied', code: 'workspace_paused', retry_after: 1 },
  },
} as const satisfies Record<number, ErrorStatus>;

export type DocumentedErrorStatus = keyof typeof errorStatuses;

export const errorSchemaFor = (status: DocumentedErrorStatus) => envelope(errorStatuses[status].code);

export const hasRequestBody = (route: Pick<RestRoute, 'method'>) => takesBody(route.method);

/**
 * Which error statuses one operation documents. Every operation can meet an unknown workspace or a
 * bad key (404, 401), a malformed path (400), a refused caller (403: a personal API key acts as its
 * member, whom the role rules may refuse, `forbidden`, and who may have been deactivated,
 * `user_inactive`; so may the acting user an `email` names), a rule (422), the per-key rate limit
 * (429), a server failure (500) and a move of the workspace (503); bodies add 413/415 (and 400 for
 * bad JSON); every write may conflict with existing data (409); the spec's Accept rule adds 406.
 */
export function errorStatusesOf(route: RestRoute): DocumentedErrorStatus[] {
  const statuses: DocumentedErrorStatus[] = [400, 401, 403, 404, 422, 429, 500, 503];
  if (hasRequestBody(route)) statuses.push(413, 415);
  if (route.method !== 'GET') statuses.push(409);
  if (route.requireJsonAccept) statuses.push(406);
  return statuses.sort((a, b) => a - b);
}
