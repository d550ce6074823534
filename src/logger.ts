import pino, { type Logger } from 'pino';

/** Structured logs on stdout. Request logs carry no headers and no bodies, so never a key. */
export function createLogger(level: string): Logger {
  return pino({ level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime });
}
