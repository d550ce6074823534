import { existsSync, statSync } from 'node:fs';
import { checkFile, copyCompacted, damageOf, isHealthy, pageSizeOf } from '../workspaces/backup.ts';
import { PAGE_SIZE } from '../workspaces/handle.ts';
import { parse } from './args.ts';
import { selected } from './backup.ts';
import { print, type Command } from './context.ts';
import { claimTransfer, newOperation, pauseWrites, replaceWorkspaceFile, resume, servingServer } from './replace-file.ts';

/** A file's bytes with those of its WAL: what the workspace takes on disk. */
const bytesOf = (file: string) => statSync(file).size + (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0);
const mib = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MiB`;

/**
 * `hourbook vacuum [<subdomain>...]`: rewrites each workspace file compactly (`VACUUM INTO`) with
 * the page size new files get (8 KiB): the space of deleted rows goes back to the file system, and
 * a file made before that page size gets it, which makes invoices and reports on it faster. When a
 * server serves the workspace, its writes are paused while the copy is made and checked (they get
 * 503 and retry; reads go on); the copy then replaces the file as in `restore`: handed over,
 * installed, resumed. The previous file is kept in `DATA_DIR/retired/` until an operator deletes it.
 */
export const vacuum: Command = async (argv, services, io) => {
  const { values, positionals } = parse(argv, {});
  const names = selected(services, positionals);
  const serving = await servingServer(services);
  const results = [];
  for (const subdomain of names) {
    const file = services.registry.fileFor(subdomain);
    const before = { bytes: bytesOf(file), pageSize: pageSizeOf(file) };
    const transfer = claimTransfer(services, subdomain, 'vacuum');
    const incoming = transfer.path;
    let retired: string | null;
    const operation = newOperation('vacuum');
    try {
      await pauseWrites(serving, subdomain, 'vacuum', operation);
      copyCompacted(file, incoming, PAGE_SIZE);
      // quick_check, while writes wait: VACUUM INTO built every index afresh from its table, which
      // is what the full check would compare (10 s against 0.2 s for a file of 265 MB).
      const check = checkFile(incoming, { quick: true });
      if (!isHealthy(check)) throw new Error(`the compacted copy of ${subdomain} failed its integrity check (${damageOf(check)}); the workspace was left as it was`);
      retired = await replaceWorkspaceFile(services, serving, subdomain, incoming, 'vacuum', { operation, paused: true });
    } finally {
      transfer.release();
      await resume(serving, subdomain, operation);
    }
    results.push({ subdomain, bytes_before: before.bytes, bytes_after: statSync(file).size, page_size_before: before.pageSize, page_size: PAGE_SIZE, retired });
  }
  print(
    io,
    values.json,
    { workspaces: results, served_by: serving?.pid ?? null },
    results
      .map(
        (r) =>
          `${r.subdomain}: ${mib(r.bytes_before)} -> ${mib(r.bytes_after)}, ${r.page_size_before === r.page_size ? `${r.page_size}-byte pages` : `pages ${r.page_size_before} -> ${r.page_size} bytes`}; the previous file is ${r.retired}`,
      )
      .join('\n') || 'no workspaces',
  );
};
