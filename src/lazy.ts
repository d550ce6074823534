import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

/**
 * A CommonJS package loaded on first use instead of at start: for what only some requests need
 * (PDF rendering, sending mail, the API reference page). Each is a noticeable share of the
 * server's start-up when imported up front; a synchronous require keeps their callers unchanged.
 * The type parameter is the package's type: `lazy<typeof import('pdfkit')>('pdfkit')`.
 */
export function lazy<T>(id: string): () => T {
  let module: T | undefined;
  return () => (module ??= load(id) as T);
}
