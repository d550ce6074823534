import pino, { type Logger } from 'pino';

/**
 * Structured logs on stdout. Request logs carry no headers and no bodies, so never a key.
 *
 * Lines are written asynchronously (pino's SonicBoom destination): a request never waits for a
 * write to stdout, and lines logged while a write is in flight go out together with the next one.
 * pino flushes what is buffered when the process exits normally (`exit`, SIGTERM through our
 * shutdown); a `kill -9` may lose the last lines, never a business write.
 */
export function createLogger(level: string): Logger {
  return pino({ level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime }, pino.destination({ dest: 1, sync: false }));
}
