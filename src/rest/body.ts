import type { IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import { nestedDeeperThan, tooDeeplyNested } from '../domain/nesting.ts';
import { AppError } from '../errors.ts';

export const MAX_BODY_BYTES = 1024 * 1024;

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

const hasBody = (req: IncomingMessage) =>
  req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

const isJson = (req: IncomingMessage) => JSON_TYPE.test(req.headers['content-type'] ?? '');

/**
 * body-parser's JSON reader (charsets, Content-Encoding, the size limit). strict: false so valid
 * JSON that is not an object (`"abc"`, `null`) is parsed and answered 422 by the adapter; 400 is
 * kept for bodies that do not parse at all.
 */
const parseJson = express.json({ limit: MAX_BODY_BYTES, type: isJson, strict: false });

/**
 * The request's body: JSON (415 otherwise), at most 1 MiB (413), that parses (400), nested at most
 * MAX_NESTING levels (422). Undefined when the request has none. body-parser's own errors are mapped by `bodyParserError`.
 */
export function readJsonBody(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  if (hasBody(req) && !isJson(req)) {
    return Promise.reject(new AppError('unsupported_media_type', 'unsupported_media_type', 'The request body must be JSON, sent with Content-Type: application/json'));
  }
  return new Promise((resolve, reject) => {
    parseJson(req as express.Request, res as express.Response, (err?: unknown) => {
      const body = (req as { body?: unknown }).body;
      if (err) reject(err);
      else if (nestedDeeperThan(body)) reject(tooDeeplyNested());
      else resolve(body);
    });
  });
}

/** body-parser's failures in the envelope's vocabulary. */
export function bodyParserError(err: unknown): AppError | null {
  if (typeof err !== 'object' || err === null) return null;
  if (!('type' in err)) return undecodableBody(err);
  switch ((err as { type: unknown }).type) {
    case 'entity.parse.failed':
      return new AppError('invalid_json', 'invalid_json', 'The request body is not valid JSON');
    case 'entity.too.large':
      return new AppError('payload_too_large', 'payload_too_large', 'The request body is larger than 1 MiB');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError('unsupported_media_type', 'unsupported_media_type', 'The request body must be UTF-8 JSON');
    case 'request.aborted':
    case 'request.size.invalid':
      return new AppError('invalid_json', 'invalid_json', 'The request body was incomplete');
    default:
      return null;
  }
}

/**
 * A body whose Content-Encoding (gzip, deflate, br) does not match its bytes: zlib's own error,
 * which body-parser passes on with status 400 but no type of its own.
 */
function undecodableBody(err: object): AppError | null {
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string' || !/^(Z_|ERR_BROTLI|ERR__ERROR)/.test(code)) return null;
  return new AppError('invalid_json', 'invalid_json', 'The request body could not be decompressed as its Content-Encoding says');
}
