import { chmodSync, closeSync, existsSync, fsyncSync, linkSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Checkpointer } from './checkpointer.ts';
import { AppError } from '../errors.ts';
import { HOLD_RETRY_AFTER_SECONDS, WorkspaceGate, type Hold } from './gate.ts';
import { WorkspaceHandle, type OpenOptions } from './handle.ts';
import { isValidSubdomain } from './host.ts';
import { isRunning } from './processes.ts';
import { STREAM_LIMITS, type StreamHold, type StreamLimits } from './stream-hold.ts';

export interface RegistryOptions extends OpenOptions {
  dataDir: string;
  /** How many workspace files may stay open at once (handles in use may exceed it briefly). */
  maxOpen?: number;
}

/**
 * Opens workspace files on demand and keeps the most recently used ones open (an LRU with a
 * bound). A handle that a request is using is never closed under it: eviction skips busy handles.
 */
export class WorkspaceRegistry {
  private readonly open = new Map<string, WorkspaceHandle>();
  private readonly maxOpen: number;
  /** Writes held per workspace (moves, restores): checked by every write and every open. */
  readonly gate = new WorkspaceGate();
  private checkpointer: Checkpointer | null = null;
  /** The streams holding each handle (see holdStream), each with the function that cuts it. */
  private readonly streams = new Map<WorkspaceHandle, Set<(reason: AppError) => void>>();
  /** How long streams may idle and a hand-over waits for them (tests shorten them). */
  readonly streamLimits: StreamLimits = { ...STREAM_LIMITS };

  constructor(private readonly opts: RegistryOptions) {
    this.maxOpen = opts.maxOpen ?? 64;
    // A data directory it makes is its owner's alone: the files hold every record of an agency,
    // and mail written to files holds live password links. One made by the operator keeps its mode.
    mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
  }

  get dataDir(): string {
    return this.opts.dataDir;
  }

  fileFor(subdomain: string): string {
    if (!isValidSubdomain(subdomain)) throw new Error(`invalid workspace label: ${subdomain}`);
    return join(this.opts.dataDir, `${subdomain}.sqlite`);
  }

  exists(subdomain: string): boolean {
    return isValidSubdomain(subdomain) && (this.open.has(subdomain) || existsSync(this.fileFor(subdomain)));
  }

  /** Every workspace on disk, sorted. */
  list(): string[] {
    return readdirSync(this.opts.dataDir)
      .filter((f) => f.endsWith('.sqlite'))
      .map((f) => f.slice(0, -'.sqlite'.length))
      .filter(isValidSubdomain)
      .sort();
  }

  /**
   * The open handle of an existing workspace, or null when there is none. Marks it used. A workspace
   * this process has handed over (503 `workspace_moved`) is never reopened.
   */
  get(subdomain: string): WorkspaceHandle | null {
    if (!isValidSubdomain(subdomain)) return null;
    this.gate.checkOpen(subdomain);
    const cached = this.open.get(subdomain);
    if (cached) {
      this.open.delete(subdomain);
      this.open.set(subdomain, cached);
      return cached;
    }
    const file = this.fileFor(subdomain);
    if (!existsSync(file)) return null;
    return this.add(new WorkspaceHandle(subdomain, file, this.opts));
  }

  /**
   * Creates a workspace file and has `seed` write its first rows; returns what `seed` returns. The
   * file is built under a hidden name (`.<subdomain>.sqlite.new-<pid>`, which neither `list` nor
   * `exists` sees), closed, flushed to disk, and only then linked into place: a crash (kill -9) at
   * any point leaves either no workspace or the whole one, never a file without its rows. Linking,
   * unlike a rename, fails when another process created the workspace meanwhile.
   */
  create<T>(subdomain: string, seed: (handle: WorkspaceHandle) => T): T {
    const taken = () => new AppError('conflict', 'workspace_exists', `The workspace ${subdomain} already exists`);
    if (this.exists(subdomain)) throw taken();
    const file = this.fileFor(subdomain);
    removeAbandonedBuilds(this.opts.dataDir, subdomain);
    const building = buildingName(this.opts.dataDir, subdomain, process.pid);
    try {
      const handle = new WorkspaceHandle(subdomain, building, this.opts);
      let seeded: T;
      try {
        seeded = seed(handle);
      } finally {
        // Folds the WAL into the file and deletes it: the file is then all there is to move.
        handle.close();
      }
      // Nothing else has the file open, so the close's checkpoint cannot be refused; were a WAL
      // left all the same, the file linked into place would lack its rows.
      if (existsSync(`${building}-wal`) && statSync(`${building}-wal`).size > 0) throw new Error(`the new file of ${subdomain} kept a WAL at close; nothing was created`);
      // Its owner's alone, as the data directory is; the WAL and -shm SQLite makes take this mode.
      chmodSync(building, 0o600);
      fsyncPath(building);
      // A WAL left by a file deleted half-way would be replayed over the new file when it is opened.
      if (!existsSync(file)) for (const suffix of ['-wal', '-shm']) rmSync(file + suffix, { force: true });
      try {
        linkSync(building, file);
      } catch (err) {
        // Another process created the same workspace meanwhile: its file stays, ours goes.
        if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw taken();
        throw err;
      }
      fsyncPath(this.opts.dataDir);
      return seeded;
    } finally {
      removeWorkspaceFiles(building);
    }
  }

  /** Marks a handle busy for the duration of `fn` (sync or async), so eviction leaves it open. */
  async using<T>(handle: WorkspaceHandle, fn: () => Promise<T> | T): Promise<T> {
    handle.users++;
    try {
      return await fn();
    } finally {
      handle.users--;
      this.evict();
    }
  }

  /**
   * Marks a handle busy for a stream read after its request's procedure returned (a CSV export):
   * the file stays open until `release`. Unlike a request, a stream lasts as long as its client
   * reads, so the registry may cut it: when its reader takes nothing for `idleMs` (`touch` on each
   * piece), and when the workspace is handed over. A cut aborts `signal` with the error the
   * stream ends with, then releases the handle; the stream's listeners run first, while the file
   * is still open, so they can end the response and clean up.
   */
  holdStream(handle: WorkspaceHandle): StreamHold {
    // A hand-over cuts the streams it finds once; one starting after its hold (a call already
    // past the door when it began) is refused with its 503 instead of being waited for.
    this.gate.checkOpen(handle.subdomain);
    const controller = new AbortController();
    let released = false;
    let idle: NodeJS.Timeout | undefined;
    const cuts = this.streams.get(handle) ?? new Set();
    const release = () => {
      if (released) return;
      released = true;
      clearTimeout(idle);
      cuts.delete(cut);
      if (cuts.size === 0) this.streams.delete(handle);
      handle.users--;
      this.evict();
    };
    const cut = (reason: AppError) => {
      if (released) return;
      controller.abort(reason);
      release();
    };
    const touch = () => {
      if (released) return;
      clearTimeout(idle);
      // A timer must not keep a command-line process alive.
      idle = setTimeout(() => cut(idleCut(this.streamLimits.idleMs)), this.streamLimits.idleMs).unref();
    };
    handle.users++;
    cuts.add(cut);
    this.streams.set(handle, cuts);
    touch();
    return { signal: controller.signal, touch, release };
  }

  /**
   * Stops serving a workspace from this process: every request gets 503 `workspace_moved` (clients
   * retry), writes in flight finish, and the file is closed once no request uses it, so it can be
   * replaced (restore) or retired (moved to another node). Downloads still running after
   * `handOverGraceMs` are cut; a request still running `handOverLimitMs` later fails the
   * hand-over (503 `workspace_in_use`, the file left open and the hold in place). `resume` undoes
   * it. `operation`: whose hold it is (see WorkspaceGate).
   */
  async handOver(subdomain: string, reason: string, operation: string | null = null): Promise<void> {
    // The hold a retired workspace keeps (stray requests get 503) guards no file and belongs to no
    // operation: the one that brings a copy back (a restore) takes it over.
    const left = this.gate.state(subdomain);
    if (!this.exists(subdomain) && left?.hold === 'all' && left.operation === null) this.gate.release(subdomain);
    await this.gate.hold(subdomain, 'all', reason, operation);
    const handle = this.open.get(subdomain);
    if (!handle) return;
    // Every new request is refused by now, so this only waits for those already running. A
    // request ends on its own; a download ends when its client has read it, which may be never
    // (a paused browser, a suspended laptop): after a short grace the downloads still running are
    // cut, their clients see an incomplete download, and the hand-over goes on.
    const { handOverGraceMs, handOverLimitMs } = this.streamLimits;
    if (!(await unused(handle, handOverGraceMs))) {
      for (const cut of [...(this.streams.get(handle) ?? [])]) cut(handedOverCut(subdomain, reason));
      // A request that still runs this long is stuck: refused rather than closed under it, so
      // the operation that asked gives up (and resumes the workspace) instead of hanging.
      if (!(await unused(handle, handOverLimitMs))) {
        throw new AppError('unavailable', 'workspace_in_use', `${subdomain} still had ${handle.users} request(s) running ${handOverLimitMs / 1000} s after it was held for the hand-over; its file was not closed. It stays held (every request 503) until resumed; resume it, or hand it over again`);
      }
    }
    this.open.delete(subdomain);
    handle.close();
  }

  /**
   * Lifts a hold (only `operation`'s, when given); the next request opens the file afresh (it may
   * have been replaced meanwhile).
   */
  resume(subdomain: string, operation?: string | null, kind?: Hold): boolean {
    return this.gate.release(subdomain, operation, kind);
  }

  /**
   * Moves a handed-over workspace's file out of the data directory into `DATA_DIR/retired/`, where
   * nothing serves or lists it; an operator deletes it once sure. Returns its new path.
   */
  retire(subdomain: string, operation?: string | null, now = new Date()): string {
    if (operation !== undefined) this.gate.checkHeldBy(subdomain, operation);
    if (this.gate.state(subdomain)?.hold !== 'all') throw new AppError('conflict', 'workspace_not_handed_over', `${subdomain} must be handed over before it is retired`);
    const target = retireFile(this.opts.dataDir, this.fileFor(subdomain), subdomain, now);
    rmSync(`${this.fileFor(subdomain)}-shm`, { force: true });
    // The hold stays, so stray requests get 503 `workspace_moved`, but its operation is over.
    this.gate.disown(subdomain);
    return target;
  }

  closeAll(): void {
    for (const handle of this.open.values()) handle.close();
    this.open.clear();
  }

  /**
   * From now on the WAL of every open workspace, and of every one opened later, is checkpointed on
   * a worker thread (the server does this; a command-line run keeps SQLite's own checkpoints).
   */
  startCheckpoints(onError: (file: string, error: string) => void): void {
    if (this.checkpointer) return;
    const checkpointer = new Checkpointer(() => this.open.values(), this.opts.synchronous, onError);
    this.checkpointer = checkpointer;
    this.opts.checkpointer = checkpointer;
    for (const handle of this.open.values()) handle.useCheckpointer(checkpointer);
  }

  /** Closes every file, then ends the checkpoint worker. */
  async closeAllAndStop(): Promise<void> {
    this.closeAll();
    const checkpointer = this.checkpointer;
    this.checkpointer = null;
    this.opts.checkpointer = null;
    await checkpointer?.stop();
  }

  private add(handle: WorkspaceHandle): WorkspaceHandle {
    this.open.set(handle.subdomain, handle);
    this.evict(handle);
    return handle;
  }

  /** Closes least recently used idle handles until the bound holds; `keep` was just handed out. */
  private evict(keep?: WorkspaceHandle): void {
    if (this.open.size <= this.maxOpen) return;
    for (const [subdomain, handle] of this.open) {
      if (this.open.size <= this.maxOpen) break;
      if (handle.users > 0 || handle === keep) continue;
      this.open.delete(subdomain);
      handle.close();
    }
  }
}

/** Whether no request uses the handle any more, waiting at most `ms` for it. */
async function unused(handle: WorkspaceHandle, ms: number): Promise<boolean> {
  const until = performance.now() + ms;
  while (handle.users > 0) {
    if (performance.now() >= until) return false;
    await new Promise((r) => setTimeout(r, 5));
  }
  return true;
}

/** What a stream cut by a hand-over ends with: the 503 every request for the workspace now gets. */
const handedOverCut = (subdomain: string, reason: string) =>
  new AppError('unavailable', 'workspace_moved', `The workspace ${subdomain} was handed over (${reason}) while this download ran, so it was cut; download it again shortly`, {
    extra: { retry_after: HOLD_RETRY_AFTER_SECONDS },
  });

/** What a stream whose reader took nothing for too long ends with. */
const idleCut = (ms: number) => new AppError('unavailable', 'export_idle', `The download was cut: nothing of it was read for ${ms / 1000} s; download it again`);

const removeWorkspaceFiles = (file: string) => {
  for (const suffix of ['', '-journal', '-wal', '-shm']) rmSync(file + suffix, { force: true });
};

const fsyncPath = (path: string) => {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
};

/** Where `create` builds a workspace's file before it is complete: hidden, not a workspace name. */
const buildingName = (dataDir: string, subdomain: string, pid: number) => join(dataDir, `.${subdomain}.sqlite.new-${pid}`);

/** Deletes the half-built files of creates of this workspace whose process died (kill -9, power loss). */
function removeAbandonedBuilds(dataDir: string, subdomain: string): void {
  const prefix = `.${subdomain}.sqlite.new-`;
  for (const name of readdirSync(dataDir)) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number.parseInt(name.slice(prefix.length), 10);
    if (pid === process.pid || !isRunning(pid)) rmSync(join(dataDir, name), { force: true });
  }
}

/**
 * A directory only its owner may enter (`retired/`, `.transfer/`: copies of whole workspaces), made
 * with mode 0700 whatever the umask. One that exists keeps its mode: the operator may have chosen it.
 */
export function privateDir(dir: string): string {
  try {
    mkdirSync(dir, { mode: 0o700 });
    chmodSync(dir, 0o700);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return dir;
}

/** A UTC time as it appears in file names: sortable, `20261118T100000Z`. */
export const stampOf = (at: Date) => at.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');

/**
 * Moves a workspace file (with its WAL) into `DATA_DIR/retired/` as `<name>-<UTC time>.sqlite`,
 * mode 0600, and returns its new path. A retired copy is never overwritten: the name is claimed
 * with O_EXCL first, and when a copy of the same second holds it (two restores within a second),
 * the next free `-2`, `-3`, … is taken. Each retired copy may be the only one of someone's data.
 */
export function retireFile(dataDir: string, file: string, name: string, at: Date): string {
  const dir = privateDir(join(dataDir, 'retired'));
  const stamp = stampOf(at);
  let target = '';
  for (let n = 1; !target; n++) {
    const candidate = join(dir, `${name}-${stamp}${n === 1 ? '' : `-${n}`}.sqlite`);
    try {
      closeSync(openSync(candidate, 'wx', 0o600));
      target = candidate;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  // The WAL goes along: a checkpoint at close may have been refused (a reader in another process).
  // Its name follows the claimed one, so it cannot be another copy's either.
  if (existsSync(`${file}-wal`)) {
    renameSync(`${file}-wal`, `${target}-wal`);
    chmodSync(`${target}-wal`, 0o600);
  }
  renameSync(file, target);
  chmodSync(target, 0o600);
  return target;
}
