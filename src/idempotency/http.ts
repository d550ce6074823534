import type { ServerResponse } from 'node:http';
import type { IdempotentExchange } from './exchange.ts';
import type { StoredAnswer } from './store.ts';

export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** Sends a stored first answer again, byte for byte, marked as a replay. */
export function sendStoredAnswer(res: ServerResponse, answer: StoredAnswer): void {
  res.statusCode = answer.status;
  if (answer.contentType) res.setHeader('Content-Type', answer.contentType);
  res.setHeader(REPLAYED_HEADER, 'true');
  res.end(answer.body);
}

type Chunk = string | Buffer | Uint8Array;
const asBuffer = (chunk: Chunk, encoding?: BufferEncoding) => (typeof chunk === 'string' ? Buffer.from(chunk, encoding) : Buffer.from(chunk));

/**
 * Hands the answer a door writes to `exchange.settle` before it goes out, whichever way the door
 * writes it (the REST door's `res.end`, the tRPC adapter's `res.write`s), and tells the exchange
 * when the connection closes without an answer. The status is read at the end, so the door must
 * know it by then: a streamed tRPC answer, whose status line goes out before its calls end, never
 * claims a key (src/trpc/http.ts).
 */
export function keepAnswer(res: ServerResponse, exchange: IdempotentExchange): void {
  const chunks: Buffer[] = [];
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  let started = false;
  const starting = () => {
    if (!started) exchange.beforeSending();
    started = true;
  };
  res.write = ((chunk: Chunk, ...rest: unknown[]) => {
    starting();
    if (chunk !== undefined && chunk !== null) chunks.push(asBuffer(chunk, typeof rest[0] === 'string' ? (rest[0] as BufferEncoding) : undefined));
    return write(chunk, ...rest);
  }) as ServerResponse['write'];
  res.end = ((chunk?: Chunk | (() => void), ...rest: unknown[]) => {
    starting();
    if (chunk !== undefined && chunk !== null && typeof chunk !== 'function') {
      chunks.push(asBuffer(chunk, typeof rest[0] === 'string' ? (rest[0] as BufferEncoding) : undefined));
    }
    const type = res.getHeader('content-type');
    exchange.settle({ status: res.statusCode, contentType: typeof type === 'string' ? type : null, body: Buffer.concat(chunks).toString('utf8') });
    return end(chunk, ...rest);
  }) as ServerResponse['end'];
  res.once('close', () => exchange.abandoned());
}
