/**
 * A stream's hold on a workspace file (`WorkspaceRegistry.holdStream`): what a CSV export reads
 * after its procedure returned. docs/operations.md, "Downloads and hand-overs", states the rule.
 */
export interface StreamHold {
  /** Aborted when the registry cuts the stream; its reason is the error (an AppError) the stream ends with. */
  readonly signal: AbortSignal;
  /** The reader took a piece: its idle limit starts again. */
  touch(): void;
  /** The stream is over (read to its end, failed, or its client left); idempotent. */
  release(): void;
}

export interface StreamLimits {
  /** A stream whose reader takes no piece for this long is cut. */
  idleMs: number;
  /** How long a hand-over lets the requests and downloads already running finish before it cuts the downloads. */
  handOverGraceMs: number;
  /** How long a hand-over then waits for the requests left before it gives up (503 `workspace_in_use`). */
  handOverLimitMs: number;
}

export const STREAM_LIMITS: Readonly<StreamLimits> = {
  // A piece is 64 KB: a client that has not taken one in two minutes is not reading (a paused
  // browser download, a suspended laptop), and would hold the file open for ever.
  idleMs: 120_000,
  // Every request for the workspace is answered 503 during the hand-over: it must stay short.
  handOverGraceMs: 2_000,
  handOverLimitMs: 30_000,
};
