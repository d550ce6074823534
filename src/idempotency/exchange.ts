import type { Transaction } from '../db/index.ts';
import { AppError } from '../errors.ts';
import type { AppServices } from '../services.ts';
import type { CallHooks } from '../trpc/context.ts';
import type { WorkspaceHandle } from '../workspaces/handle.ts';
import { findLive, IDEMPOTENCY_TTL_MS, saveAnswer, type IdempotencyRow, type StoredAnswer } from './store.ts';

/**
 * Who a key belongs to: keys are per workspace (each workspace file has its own table) and per
 * caller. Today every caller is an API key; a signed-in session would add `session:<user id>`.
 */
export type Principal = { kind: 'api_key'; id: string };
export const principalOf = (p: Principal) => `${p.kind}:${p.id}`;

/**
 * Who holds each key now, per workspace file, caller and key (one process): the exchange that
 * claimed it. Holding the owner, not just the key, is what lets a request that already let go
 * (its client left) never free the key of the retry that took it since.
 */
const inFlight = new Map<string, IdempotentExchange>();

/** 409, 429 and 5xx say "try again"; storing them would turn a passing problem into a permanent one. */
const storable = (status: number) => status < 500 && status !== 409 && status !== 429;

/**
 * Test hook, for the crash test only: the process kills itself (SIGKILL, like `kill -9`) right
 * after a change and its stored answer were committed and before the answer is sent.
 */
const crashAfterCommit = process.env.HOURBOOK_TEST_CRASH_AFTER_COMMIT === '1';

export interface KeyClaim {
  services: AppServices;
  handle: WorkspaceHandle;
  principal: Principal;
  key: string;
  method: string;
  /** The path with its query, for the stored row (people read it when they look a key up). */
  path: string;
}

/** How many requests hold a key at this moment (all workspaces of the process). */
export const keysInFlight = () => inFlight.size;

/**
 * Takes the key for this request as soon as its headers name the caller, before its body is read:
 * 409 `idempotency_key_in_use` while another request with the key is running (with Retry-After).
 * The claim is released once the answer is settled, or when the connection closes (not before the
 * operation it started has finished).
 */
export function claimIdempotencyKey(claim: KeyClaim): { kind: 'refused'; error: AppError } | { kind: 'claimed'; exchange: IdempotentExchange } {
  const principal = principalOf(claim.principal);
  const flight = `${claim.handle.file}\n${principal}\n${claim.key}`;
  if (inFlight.has(flight)) {
    return {
      kind: 'refused',
      error: new AppError('conflict', 'idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed; retry after a moment', {
        extra: { retry_after: 1 },
      }),
    };
  }
  const exchange = new IdempotentExchange(claim, principal, flight, claim.services.clock());
  inFlight.set(flight, exchange);
  return { kind: 'claimed', exchange };
}

/**
 * One request that holds its key. Once its body is read the door calls `match`: the stored first
 * answer of the key (the same method, path and body) is replayed, another request under the key is
 * refused (422 `idempotency_key_reused`), else the request proceeds: the door sets `render` (how an
 * operation's output becomes the HTTP answer it sends), hands `hooks` to the procedure (so a write
 * stores that answer in its own transaction) and calls `settle` with the answer it actually sends.
 */
export class IdempotentExchange {
  /** The door's answer for a procedure's output; set before the procedure runs. */
  render: ((procedure: string, output: unknown) => StoredAnswer) | null = null;
  /** Set by `match`: only a request whose body was read has an answer worth keeping. */
  private fingerprint: string | null = null;
  private committed: StoredAnswer | null = null;
  private state: 'waiting' | 'running' | 'done' | 'cancelled' = 'waiting';
  private settled = false;
  private releaseWhenDone = false;

  constructor(
    private readonly req: KeyClaim,
    private readonly principal: string,
    private readonly flight: string,
    private readonly now: Date,
  ) {}

  /** Compares the request (its fingerprint) with what the key answered before, if anything. */
  match(fingerprint: string): { kind: 'replay'; answer: StoredAnswer } | { kind: 'refused'; error: AppError } | { kind: 'proceed' } {
    const stored = findLive(this.req.handle.db, this.principal, this.req.key, this.now);
    if (!stored) {
      this.fingerprint = fingerprint;
      return { kind: 'proceed' };
    }
    this.settled = true;
    this.release();
    if (stored.requestHash !== fingerprint) {
      return {
        kind: 'refused',
        error: new AppError('unprocessable', 'idempotency_key_reused', `This Idempotency-Key was used with another request (${stored.method} ${stored.path}); use a new key for a new request`),
      };
    }
    return { kind: 'replay', answer: { status: stored.status, contentType: stored.contentType, body: stored.body } };
  }

  readonly hooks: CallHooks = {
    beforeCommit: (tx: Transaction, procedure: string, output: unknown) => {
      if (this.committed || !this.render || this.fingerprint === null) return;
      let answer: StoredAnswer;
      try {
        answer = this.render(procedure, output);
      } catch (err) {
        // The transaction's result is not the operation's output (an operation that reshapes after
        // its write): the answer is kept by `settle` instead, just after the commit.
        this.req.services.logger.warn({ err, procedure }, 'idempotency: cannot render the answer inside the transaction');
        return;
      }
      saveAnswer(tx, this.row(answer));
      this.committed = answer;
    },
    begin: () => {
      if (this.state === 'cancelled') return false;
      this.state = 'running';
      return true;
    },
    end: () => {
      this.state = 'done';
      if (this.releaseWhenDone) this.release();
    },
  };

  /** Called right before the answer's first byte is written. */
  beforeSending(): void {
    if (crashAfterCommit && this.committed) process.kill(process.pid, 'SIGKILL');
  }

  /**
   * The answer the door sends. A success or a 4xx (except 409 and 429) is kept: written now when
   * the operation wrote nothing (or answered other than it rendered), else already committed with
   * the change. 409, 429 and 5xx are not kept, so they may be retried with the same key. A request
   * that no longer holds its key (its client left) keeps nothing: a retry may hold the key by now,
   * and the key's answer is the retry's.
   */
  settle(answer: StoredAnswer): void {
    if (this.settled) return;
    this.settled = true;
    try {
      if (this.fingerprint !== null && this.holdsKey() && storable(answer.status) && !sameAnswer(this.committed, answer)) {
        if (this.committed) this.req.services.logger.warn({ key_path: this.req.path }, 'idempotency: the answer sent differs from the one committed; keeping the one sent');
        // The workspace may have been closed since the request began (LRU): ask the registry again.
        const handle = this.req.services.registry.get(this.req.handle.subdomain);
        if (handle) saveAnswer(handle.db, this.row(answer));
      }
    } finally {
      this.release();
    }
  }

  /**
   * The connection closed. Before the operation began: it never will (nothing is done). While it
   * runs: the key stays held until it has finished, so a retry can never run beside it.
   */
  abandoned(): void {
    if (this.settled) return;
    if (this.state === 'waiting') {
      this.state = 'cancelled';
      this.release();
    } else if (this.state === 'running') {
      this.releaseWhenDone = true;
    } else {
      this.release();
    }
  }

  /**
   * Lets go of the key if this request still holds it. A request may be told to let go twice (its
   * client left, then its door answered), and by the second time the key may be a retry's.
   */
  private release(): void {
    if (this.holdsKey()) inFlight.delete(this.flight);
  }

  private holdsKey(): boolean {
    return inFlight.get(this.flight) === this;
  }

  private row(answer: StoredAnswer): IdempotencyRow {
    return {
      principal: this.principal,
      key: this.req.key,
      requestHash: this.fingerprint ?? '',
      method: this.req.method,
      path: this.req.path,
      status: answer.status,
      contentType: answer.contentType,
      body: answer.body,
      createdAt: this.now.toISOString(),
      expiresAt: new Date(this.now.getTime() + IDEMPOTENCY_TTL_MS).toISOString(),
    };
  }
}

const sameAnswer = (a: StoredAnswer | null, b: StoredAnswer) => a !== null && a.status === b.status && a.body === b.body && a.contentType === b.contentType;
