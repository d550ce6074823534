import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { AppError } from './errors.ts';

/**
 * What the edge of the HTTP server answers for requests that never reach a route: paths that do
 * not decode, and requests Node's own parser refuses. Every such answer is the error envelope, so
 * a client (or a fuzzer) never sees a bare status, a reset or a 500 for input it sent.
 */

/** Whether every segment of a raw path is valid percent-encoded UTF-8 (`%ZZ`, `%c0%ae`, lone surrogates are not). */
export function isDecodablePath(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Refuses a path that does not decode before any router tries to (Express would throw while
 * matching a parameter and the request would end as a 500). `pageFor` answers instead for paths a
 * person opens in a browser (the public invoice page answers with its own HTML 404).
 */
export function refuseUndecodablePaths(pageFor: (req: Request, res: Response) => boolean) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (isDecodablePath(req.path)) {
      next();
      return;
    }
    if (pageFor(req, res)) return;
    next(new AppError('bad_request', 'invalid_path', 'The request path is not valid percent-encoded UTF-8'));
  };
}

/** Node's parser errors, by code, as a status and the envelope's code and message. */
function parserFailure(code: string | undefined): { status: number; code: string; message: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, code: 'headers_too_large', message: 'The request headers are too large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'HPE_HEADERS_TIMEOUT':
      return { status: 408, code: 'request_timeout', message: 'The request did not arrive in time' };
    default:
      return { status: 400, code: 'bad_request', message: 'The request is not valid HTTP/1.1 (check Content-Length, Transfer-Encoding and header characters)' };
  }
}

const REASONS: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 417: 'Expectation Failed', 431: 'Request Header Fields Too Large' };

function writeRaw(socket: Duplex, status: number, body: object): void {
  const json = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Bad Request'}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`,
  );
}

/**
 * Answers what Node refuses before Express sees it (malformed or conflicting Content-Length, header
 * overflow, control bytes in a header) and unknown `Expect` values, with the envelope instead of a
 * bare status line.
 */
export function answerMalformedRequests(server: Server, logger: Logger): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // A connection reset or a socket already answered needs nothing more.
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const failure = parserFailure(err.code);
    logger.debug({ code: err.code }, 'malformed request refused');
    writeRaw(socket, failure.status, { error: failure.message, code: failure.code });
  });
  server.on('checkExpectation', (_req, res) => {
    res.writeHead(417, { 'content-type': 'application/json; charset=utf-8', connection: 'close' });
    res.end(JSON.stringify({ error: 'Only "Expect: 100-continue" is understood', code: 'expectation_failed' }));
  });
}
