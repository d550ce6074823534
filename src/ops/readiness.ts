import type { Request, Response } from 'express';

/**
 * Whether this process should be sent traffic, for a load balancer's or orchestrator's readiness
 * probe (`/readyz`). `/healthz` says the process is alive; this says it is ready: not while the
 * start-up pass is still migrating workspace files, and no longer once shutdown has begun.
 */
export class Readiness {
  private state: { status: 'starting' | 'migrating' | 'ready' | 'stopping'; left?: number } = { status: 'starting' };

  migrating(left: number): void {
    if (this.state.status === 'stopping') return;
    this.state = left > 0 ? { status: 'migrating', left } : { status: 'ready' };
  }

  stopping(): void {
    this.state = { status: 'stopping' };
  }

  get status(): string {
    return this.state.status;
  }

  /** 200 `{status: "ready"}`, else 503 with the reason (`migrating` with the files left, `stopping`). */
  handler = (_req: Request, res: Response): void => {
    const ready = this.state.status === 'ready';
    res.setHeader('Cache-Control', 'no-store');
    res.status(ready ? 200 : 503).json(this.state.left === undefined ? { status: this.state.status } : { status: this.state.status, workspaces_left: this.state.left });
  };
}
