import type { StreamHold } from '../workspaces/stream-hold.ts';

/**
 * A CSV export's pieces as the doors read them (tRPC's JSON-lines stream, GET /api/exports),
 * holding the workspace file open until the last piece was taken, the reader stopped, or the
 * registry cut the stream (a hand-over, an idle reader). The pieces are read from SQLite as they
 * are taken, after the procedure returned: without the hold the file could be closed under them
 * (evicted from the registry's open files, handed over).
 */
export interface HeldPieces extends AsyncIterableIterator<string, undefined, undefined> {
  /** Aborted when the stream is cut; the reason is the error its next read fails with. A door that waits on its client listens to it. */
  readonly signal: AbortSignal;
  /** Stops reading: the source is closed and the file released; safe to call more than once. */
  return(): Promise<IteratorResult<string, undefined>>;
}

/** `source`'s pieces under `hold`, released however the reading ends. */
export function heldPieces(hold: StreamHold, source: Iterable<string>): HeldPieces {
  return new Held(hold, source[Symbol.iterator]());
}

class Held implements HeldPieces {
  private ended = false;

  constructor(
    private readonly hold: StreamHold,
    private readonly source: Iterator<string>,
  ) {
    // Cut between two pieces: the source is closed now, while its file is still open (closing
    // drops its temporary rows), and the next read fails with the cut's reason.
    hold.signal.addEventListener('abort', () => this.end(), { once: true });
  }

  get signal(): AbortSignal {
    return this.hold.signal;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  // Async for the iterator protocol; a piece is read synchronously, so no cut can come between
  // the check and the read.
  async next(): Promise<IteratorResult<string, undefined>> {
    if (this.hold.signal.aborted) throw this.hold.signal.reason;
    if (this.ended) return { done: true, value: undefined };
    let step: IteratorResult<string>;
    try {
      step = this.source.next();
    } catch (err) {
      this.end();
      throw err;
    }
    if (step.done) {
      this.end();
      return { done: true, value: undefined };
    }
    this.hold.touch();
    return { done: false, value: step.value };
  }

  /** The reader stopped early (a client that left, a `break`). */
  async return(): Promise<IteratorResult<string, undefined>> {
    this.end();
    return { done: true, value: undefined };
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    try {
      this.source.return?.();
    } finally {
      this.hold.release();
    }
  }
}
