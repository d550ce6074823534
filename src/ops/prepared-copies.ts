import { randomUUID } from 'node:crypto';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../errors.ts';
import { removeDatabaseFiles } from '../workspaces/backup.ts';

/**
 * The copies a target node has received for moves under way (`prepare`), each waiting for the
 * pages that changed since (`pull`). A copy not pulled within `EXPIRES_MS` (its move gave up
 * without saying so) is deleted, so a gigabyte does not stay behind in `DATA_DIR/.transfer/`.
 */
export interface PreparedCopy {
  subdomain: string;
  /** The node of CLUSTER_NODES it came from. */
  from: string;
  file: string;
  pageSize: number;
  /** Its pages' SHA-256, one after the other. */
  hashes: Buffer;
}

const EXPIRES_MS = 30 * 60 * 1000;

/** A copy's file name: `<subdomain>-base-<id>.sqlite` in `DATA_DIR/.transfer/`. */
export const preparedCopyName = (subdomain: string) => `${subdomain}-base-${randomUUID()}.sqlite`;

export class PreparedCopies {
  private readonly copies = new Map<string, { copy: PreparedCopy; expiry: NodeJS.Timeout }>();

  /**
   * `dir`: where copies are received. The copies an earlier process left there are deleted: the
   * moves they were for cannot be finished (their ids were in that process's memory).
   */
  constructor(dir: string) {
    let names: string[] = [];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) if (/-base-[0-9a-f-]{36}\.sqlite(-wal|-shm)?$/.test(name)) rmSync(join(dir, name), { force: true });
  }

  /** Keeps a copy; returns the id `take` and `discard` know it by. */
  add(copy: PreparedCopy): string {
    const id = randomUUID();
    const expiry = setTimeout(() => this.discard(id), EXPIRES_MS);
    expiry.unref();
    this.copies.set(id, { copy, expiry });
    return id;
  }

  /** The copy prepared for this workspace from this node, now the caller's to install or delete. */
  take(id: string, subdomain: string, from: string): PreparedCopy {
    const kept = this.copies.get(id);
    if (!kept || kept.copy.subdomain !== subdomain || kept.copy.from !== from) {
      throw new AppError('unprocessable', 'unknown_transfer', `No copy of ${subdomain} from ${from} is prepared here as "${id}" (prepare it first; a copy is kept ${EXPIRES_MS / 60_000} minutes)`);
    }
    clearTimeout(kept.expiry);
    this.copies.delete(id);
    return kept.copy;
  }

  /** Deletes a copy whose move was given up; false when there was none. */
  discard(id: string): boolean {
    const kept = this.copies.get(id);
    if (!kept) return false;
    clearTimeout(kept.expiry);
    this.copies.delete(id);
    // With the -wal and -shm its read-only check left beside it.
    removeDatabaseFiles(kept.copy.file);
    return true;
  }
}
