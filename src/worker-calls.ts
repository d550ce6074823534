import { Worker, type ResourceLimits } from 'node:worker_threads';

/**
 * Calls to a worker thread run from source with `eval` (Node's own modules only, so the same
 * source works from `src/` under tsx, from the server bundle and from an installed package).
 * Each message carries a job number; the worker answers `{ job, result }` or `{ job, error }`.
 *
 * The thread starts on first use and is referenced only while a call is under way, so it never
 * keeps the process alive on its own. A thread that dies fails every call it held, and the next
 * call starts a new one.
 */
export class WorkerCalls<Request extends object, Result> {
  private worker: Worker | null = null;
  private job = 0;
  private readonly waiting = new Map<number, { resolve: (result: Result) => void; reject: (err: Error) => void }>();

  constructor(
    /** What the thread is, for error messages ("the WAL sync thread"). */
    private readonly name: string,
    private readonly source: string,
    private readonly resourceLimits: ResourceLimits,
  ) {}

  call(request: Request): Promise<Result> {
    const worker = this.started();
    const job = ++this.job;
    if (this.waiting.size === 0) worker.ref();
    return new Promise((resolve, reject) => {
      this.waiting.set(job, { resolve, reject });
      worker.postMessage({ job, ...request });
    });
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.source, { eval: true, resourceLimits: this.resourceLimits });
    worker.unref();
    worker.on('message', ({ job, result, error }: { job: number; result?: Result; error?: string | null }) => {
      const waiting = this.waiting.get(job);
      this.waiting.delete(job);
      if (this.waiting.size === 0) worker.unref();
      if (error) waiting?.reject(new Error(error));
      else waiting?.resolve(result as Result);
    });
    const lost = (why: string) => {
      if (this.worker !== worker) return;
      this.worker = null;
      const err = new Error(`${this.name} stopped: ${why}`);
      for (const { reject } of this.waiting.values()) reject(err);
      this.waiting.clear();
    };
    worker.on('error', (err) => lost(err.message));
    worker.on('exit', (code) => lost(`exit code ${code}`));
    this.worker = worker;
    return worker;
  }
}
