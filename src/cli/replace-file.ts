import { randomUUID } from 'node:crypto';
import { chmodSync, chownSync, existsSync, linkSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { controlSocketPath, runningServer } from '../ops/control-socket.ts';
import { adminCall } from '../ops/node-client.ts';
import type { AppServices } from '../services.ts';
import { installCopy, removeDatabaseFiles } from '../workspaces/backup.ts';
import { privateDir, retireFile } from '../workspaces/registry.ts';
import { UsageError } from './args.ts';
import { isRunning } from '../workspaces/processes.ts';

/**
 * Putting a new copy of a workspace file in place of the one a server may be serving: what
 * `restore` and `vacuum` share. The copy is prepared in `DATA_DIR/.transfer/`; a server that
 * serves the data directory (it answers on the control socket) hands the workspace over first
 * (every request for it gets 503 `workspace_moved` with `Retry-After: 1`, its file is closed) and
 * resumes it after, so no request ever sees a half-replaced file.
 */


/** The server serving the data directory, and how to reach it; null when none does. */
export async function servingServer(services: AppServices) {
  // A socket this user may not use throws: not reachable is not the same as not running, and
  // replacing a file a server serves would lose its writes.
  const server = await runningServer(services.config.dataDir);
  return server && { pid: server.pid, control: { socketPath: controlSocketPath(services.config.dataDir) } };
}
export type Serving = Awaited<ReturnType<typeof servingServer>>;

/** What a lock file in `DATA_DIR/.transfer/` says of the command that holds it. */
interface LockHolder {
  pid: number;
  what: string;
  since: string;
}

function readHolder(lock: string): LockHolder | null {
  try {
    return JSON.parse(readFileSync(lock, 'utf8')) as LockHolder;
  } catch {
    // Gone meanwhile, or cut short by a crash while it was written: nobody holds it.
    return null;
  }
}

/** One command's claim on a workspace's transfer: where its copy is prepared, and `release` once done. */
export interface Transfer {
  /** `DATA_DIR/.transfer/<subdomain>-<what>.sqlite`, cleared (a crashed run's copy is overwritten, not left behind). */
  path: string;
  /** Deletes the copy (if still there) and lets go of the workspace. */
  release(): void;
}

/**
 * Claims a workspace for a command that prepares a copy to put in its place (`restore`, `vacuum`,
 * `litestream restore`): `DATA_DIR/.transfer/<subdomain>.lock`, created only if absent, names the
 * process. A second such command for the same workspace stops at once and says who holds it,
 * whether or not a server runs: two of them would otherwise prepare their copies under one name,
 * each deleting the other's, and one could install a copy the other was still writing. A lock left
 * by a process that no longer runs (killed) is taken over.
 */
export function claimTransfer(services: AppServices, subdomain: string, what: string): Transfer {
  // Mode 0700: the copies prepared here are whole workspaces.
  const dir = privateDir(join(services.config.dataDir, '.transfer'));
  const lock = join(dir, `${subdomain}.lock`);
  const holder: LockHolder = { pid: process.pid, what, since: services.clock().toISOString() };
  for (let attempt = 0; ; attempt++) {
    // Written whole beside it, then linked into place (link fails if the lock exists): a lock is
    // never seen half-written, which would read as a killed holder's and be taken over.
    const written = `${lock}.${process.pid}`;
    writeFileSync(written, JSON.stringify(holder));
    try {
      linkSync(written, lock);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const other = readHolder(lock);
      if (other && isRunning(other.pid) && other.pid !== process.pid) {
        throw new UsageError(`${subdomain} is being worked on by another command (${other.what}, pid ${other.pid}, since ${other.since}); run this again once it is done`);
      }
      if (attempt > 0) throw new UsageError(`cannot claim ${subdomain}: ${lock} is in the way`);
      rmSync(lock, { force: true });
    } finally {
      rmSync(written, { force: true });
    }
  }
  const path = join(dir, `${subdomain}-${what}.sqlite`);
  removeDatabaseFiles(path);
  return {
    path,
    release() {
      removeDatabaseFiles(path);
      if (readHolder(lock)?.pid === process.pid) rmSync(lock, { force: true });
    },
  };
}

/** Files written as root (a command run with sudo) go to the data directory's owner, so the service can open them. */
function ownLikeDataDir(file: string, dataDir: string): void {
  if (process.getuid?.() !== 0) return;
  const { uid, gid } = statSync(dataDir);
  chownSync(file, uid, gid);
}

/**
 * One command's work on one workspace (a restore, a vacuum), named in every hold it asks the
 * serving process for: a move or another command holding the workspace meanwhile refuses it (409
 * `workspace_busy`), and its resume lifts only its own hold.
 */
export const newOperation = (what: string) => `${what}-${randomUUID()}`;

/** Asks the serving process to pause the workspace's writes (reads go on) until it is resumed. */
export async function pauseWrites(serving: Serving, subdomain: string, reason: string, operation: string): Promise<void> {
  if (serving) await adminCall(serving.control, 'POST', `/workspaces/${subdomain}/pause`, { reason, operation });
}

/** Lifts the hold `operation` has on the workspace in the serving process (a pause or a hand-over), if any. */
export async function resume(serving: Serving, subdomain: string, operation: string): Promise<void> {
  if (serving) await adminCall(serving.control, 'POST', `/workspaces/${subdomain}/resume`, { operation });
}

/**
 * Puts `incoming` in place as the workspace's file, handed over by the serving process if one
 * serves the data directory (`paused`: the operation paused it before, and that pause must still
 * be in force). The current file, with its WAL, is kept as `DATA_DIR/retired/<subdomain>-before-<what>-<time>.sqlite`;
 * returns that path, or null when there was no file. The caller resumes the workspace.
 */
export async function replaceWorkspaceFile(services: AppServices, serving: Serving, subdomain: string, incoming: string, what: string, op: { operation: string; paused: boolean }): Promise<string | null> {
  const { registry, config } = services;
  // The workspace's file from now on: its owner's alone, as the data directory is.
  chmodSync(incoming, 0o600);
  ownLikeDataDir(incoming, config.dataDir);
  // Also for a workspace without a file (new here, or moved away): no request opens it half-installed.
  if (serving) await adminCall(serving.control, 'POST', `/workspaces/${subdomain}/hand-over`, { reason: what, operation: op.operation, paused: op.paused });
  const target = registry.fileFor(subdomain);
  const aside = existsSync(target) ? retireFile(config.dataDir, target, `${subdomain}-before-${what}`, services.clock()) : null;
  installCopy(incoming, target);
  return aside;
}

/** A restore replaces an existing workspace only with `--force` (its file is kept in retired/). */
export function refuseExisting(services: AppServices, subdomains: string[], force: boolean | undefined): void {
  const existing = subdomains.filter((subdomain) => services.registry.exists(subdomain));
  if (existing.length > 0 && !force) {
    throw new UsageError(`${existing.join(', ')} already exist${existing.length === 1 ? 's' : ''} in ${services.config.dataDir}; --force replaces (the current file is kept in retired/)`);
  }
}

/**
 * Puts a checked copy in place of a workspace's file as one operation of its own: handed over and
 * resumed around it when a server serves it, the copy deleted if it could not be put in place.
 * What `restore` and `litestream restore` do with each workspace.
 */
export async function installReplacement(services: AppServices, serving: Serving, subdomain: string, incoming: string, what: string): Promise<string | null> {
  const operation = newOperation(what);
  try {
    return await replaceWorkspaceFile(services, serving, subdomain, incoming, what, { operation, paused: false });
  } finally {
    rmSync(incoming, { force: true });
    await resume(serving, subdomain, operation);
  }
}
