import { AppError } from '../errors.ts';

/**
 * What is held back for a workspace: `writes` while its file is copied (a move, a restore), `all`
 * once this process has handed the file over (it moved to another node, or is being replaced).
 */
export type Hold = 'writes' | 'all';

/** Seconds a client is told to wait: a hold lasts as long as a copy, usually well under a minute. */
export const HOLD_RETRY_AFTER_SECONDS = 1;

export interface HoldState {
  hold: Hold;
  reason: string;
  since: string;
  /** The operation that holds it (a move's, a restore's id), or null for one that did not say. */
  operation: string | null;
  writesInFlight: number;
}

const held = (hold: Hold, subdomain: string, reason: string) =>
  hold === 'all'
    ? new AppError('unavailable', 'workspace_moved', `The workspace ${subdomain} is not served here right now (${reason}); retry shortly`, {
        extra: { retry_after: HOLD_RETRY_AFTER_SECONDS },
      })
    : new AppError('unavailable', 'workspace_paused', `Writes to ${subdomain} are paused (${reason}); retry shortly, nothing was applied`, {
        extra: { retry_after: HOLD_RETRY_AFTER_SECONDS },
      });

const busy = (subdomain: string, h: { reason: string; since: Date }) =>
  new AppError('conflict', 'workspace_busy', `${subdomain} is held by another operation (${h.reason}, since ${h.since.toISOString()}); wait for it to end, or resume the workspace if it was abandoned`, {
    extra: { reason: h.reason, since: h.since.toISOString() },
  });

const lost = (subdomain: string, operation: string | null) =>
  new AppError('conflict', 'hold_lost', `${subdomain} is no longer held by ${operation ?? 'this operation'} (it was resumed meanwhile): writes may have been taken since, so nothing more is done`);

/**
 * The pause switch of every workspace of this process. Every write (a mutation through either door,
 * a job's pass) enters the gate first and leaves it when done; a hold refuses new writes with 503
 * and `Retry-After`, and `hold()` resolves only once the writes already running have finished, so
 * after it the file changes no more and a copy of it is the whole truth. Reads pass a `writes` hold.
 */
export class WorkspaceGate {
  private readonly holds = new Map<string, { hold: Hold; reason: string; since: Date; operation: string | null }>();
  private readonly writers = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();

  /** Throws 503 `workspace_moved` when this process serves nothing of the workspace now. */
  checkOpen(subdomain: string): void {
    const h = this.holds.get(subdomain);
    if (h?.hold === 'all') throw held('all', subdomain, h.reason);
  }

  /** A write begins: 503 when writes are held, else the function that ends it (call it exactly once). */
  enterWrite(subdomain: string): () => void {
    const h = this.holds.get(subdomain);
    if (h) throw held(h.hold, subdomain, h.reason);
    this.writers.set(subdomain, (this.writers.get(subdomain) ?? 0) + 1);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const n = (this.writers.get(subdomain) ?? 1) - 1;
      if (n > 0) {
        this.writers.set(subdomain, n);
        return;
      }
      this.writers.delete(subdomain);
      for (const wake of this.waiting.get(subdomain) ?? []) wake();
      this.waiting.delete(subdomain);
    };
  }

  /** Like enterWrite, but null instead of an error: for jobs, which skip a held workspace. */
  tryEnterWrite(subdomain: string): (() => void) | null {
    return this.holds.has(subdomain) ? null : this.enterWrite(subdomain);
  }

  isHeld(subdomain: string): boolean {
    return this.holds.has(subdomain);
  }

  /**
   * Holds writes (or everything) for `operation`; resolves when no write of the workspace is running
   * any more. The operation holding it already may widen its hold to `all`; any other gets 409.
   */
  async hold(subdomain: string, hold: Hold, reason: string, operation: string | null = null): Promise<void> {
    this.checkHeldBy(subdomain, operation);
    const current = this.holds.get(subdomain);
    this.holds.set(subdomain, { hold: current?.hold === 'all' ? 'all' : hold, reason, since: current?.since ?? new Date(), operation });
    if (!this.writers.get(subdomain)) return;
    await new Promise<void>((resolve) => this.waiting.set(subdomain, [...(this.waiting.get(subdomain) ?? []), resolve]));
  }

  /**
   * Lifts a hold: the workspace takes writes again. With an operation, only that operation's hold
   * (a hold of another is left as it is: false); without, any hold. With `kind`, only a hold of
   * that kind (an operator who saw writes paused does not lift a hand-over by mistake).
   */
  release(subdomain: string, operation?: string | null, kind?: Hold): boolean {
    const current = this.holds.get(subdomain);
    if (!current || (operation !== undefined && current.operation !== operation) || (kind !== undefined && current.hold !== kind)) return false;
    return this.holds.delete(subdomain);
  }

  /** The hold stays as it is, but belongs to no operation any more (its operation ended). */
  disown(subdomain: string): void {
    const current = this.holds.get(subdomain);
    if (current) current.operation = null;
  }

  /** Throws 409 `workspace_busy` when another operation than `operation` holds the workspace. */
  checkHeldBy(subdomain: string, operation: string | null): void {
    const current = this.holds.get(subdomain);
    if (current && current.operation !== operation) throw busy(subdomain, current);
  }

  /**
   * For an operation's step that relies on its pause still being in force (sending the pages written
   * before it, handing the workspace over): 409 `hold_lost` when it was lifted meanwhile.
   */
  requireHeldBy(subdomain: string, operation: string | null): void {
    this.checkHeldBy(subdomain, operation);
    if (!this.holds.has(subdomain)) throw lost(subdomain, operation);
  }

  state(subdomain: string): HoldState | null {
    const h = this.holds.get(subdomain);
    return h ? { hold: h.hold, reason: h.reason, since: h.since.toISOString(), operation: h.operation, writesInFlight: this.writers.get(subdomain) ?? 0 } : null;
  }

  /** Every held workspace, for the control endpoint's status. */
  all(): Record<string, HoldState> {
    return Object.fromEntries([...this.holds.keys()].map((s) => [s, this.state(s) as HoldState]));
  }
}
