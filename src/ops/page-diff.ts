import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { PAGE_HASH_BYTES, pageHashes, type FrozenFile } from '../workspaces/backup.ts';
import { PAGE_SIZE_HEADER as PAGE_SIZE } from './node-client.ts';

/**
 * The second half of a move's copy: the pages of a workspace file that changed since the target
 * received a snapshot of it, while the snapshot was checked and the workspace kept taking writes.
 *
 * The target sends the SHA-256 of each page of its copy; the source, its writes paused and its
 * file frozen (`whileFrozen`), hashes its own pages and answers with those that differ, and those
 * past the end of the copy. The answer is a series of records, each a page's number (4 bytes, big
 * endian, from 0) and its bytes, with the page count and size as headers; its trailer is the
 * SHA-256 of the source's page hashes one after the other (`pagesDigest`). The target writes the
 * pages into its copy, cuts it to the page count, and accepts it only if the same digest of its
 * own page hashes matches. Those hashes are of the copy as read back from disk when it was prepared,
 * and of each page received as it is written (a short write fails), so the copy is then the
 * source's file, byte for byte, as far as its disk kept what it was given.
 */

export const PAGE_COUNT = 'X-Hourbook-Pages';
export const PAGES_SHA256 = 'X-Hourbook-Pages-Sha256';

const RECORD_HEADER_BYTES = 4;

/** The digest of a whole file from its page hashes: SHA-256 over them, in page order. */
export const pagesDigest = (hashes: Buffer): string => createHash('sha256').update(hashes).digest('hex');

const hashAt = (hashes: Buffer, page: number) => hashes.subarray(page * PAGE_HASH_BYTES, (page + 1) * PAGE_HASH_BYTES);

/**
 * The source's answer: every page of the frozen `file` whose hash differs from `theirs` (the
 * target's page hashes), written to `res` as records with backpressure. Returns how many were
 * sent. Rejects when the target goes away mid-answer (the pipeline's premature close), so the
 * caller lets go of the frozen file rather than wait on a peer that will read no more.
 */
export async function sendChangedPages(file: string, frozen: FrozenFile, theirs: Buffer, res: ServerResponse): Promise<number> {
  const ours = await pageHashes(file, frozen);
  const theirCount = theirs.length / PAGE_HASH_BYTES;
  res.setHeader('Content-Type', 'application/octet-stream');
  res.setHeader(PAGE_COUNT, String(frozen.pageCount));
  res.setHeader(PAGE_SIZE, String(frozen.pageSize));
  res.setHeader('Trailer', PAGES_SHA256);
  const handle = await open(file, 'r');
  let sent = 0;
  async function* records() {
    for (let page = 0; page < frozen.pageCount; page++) {
      if (page < theirCount && hashAt(ours, page).equals(hashAt(theirs, page))) continue;
      const record = Buffer.allocUnsafe(RECORD_HEADER_BYTES + frozen.pageSize);
      record.writeUInt32BE(page, 0);
      const { bytesRead } = await handle.read(record, RECORD_HEADER_BYTES, frozen.pageSize, page * frozen.pageSize);
      if (bytesRead !== frozen.pageSize) throw new Error(`${file} ends inside page ${page + 1}`);
      sent++;
      yield record;
    }
  }
  try {
    await pipeline(Readable.from(records()), res, { end: false });
  } finally {
    await handle.close();
  }
  res.addTrailers({ [PAGES_SHA256]: pagesDigest(ours) });
  res.end();
  return sent;
}

/** What `applyChangedPages` did to the copy. */
export interface AppliedPages {
  pageCount: number;
  pagesChanged: number;
  bytes: number;
  /** `pagesDigest` of the copy as it now is, equal to the source's. */
  digest: string;
}

/**
 * The target's side: writes the pages of the source's answer `res` into the copy `file` (whose
 * page hashes are `hashes`, `pageSize` bytes each), cuts it to the source's page count, flushes it
 * to disk, and checks the result against the source's digest. Throws, leaving the copy to be
 * deleted, when the answer is cut short, malformed or does not add up to the source's file.
 */
export async function applyChangedPages(res: IncomingMessage, file: string, pageSize: number, hashes: Buffer): Promise<AppliedPages> {
  const pageCount = Number(res.headers[PAGE_COUNT.toLowerCase()]);
  if (Number(res.headers[PAGE_SIZE.toLowerCase()]) !== pageSize) throw new Error(`the source's pages are ${String(res.headers[PAGE_SIZE.toLowerCase()])} bytes, the copy's ${pageSize}`);
  if (!Number.isInteger(pageCount) || pageCount < 0) throw new Error('the source sent no page count');
  const recordBytes = RECORD_HEADER_BYTES + pageSize;
  const oldCount = hashes.length / PAGE_HASH_BYTES;
  const updated = Buffer.alloc(pageCount * PAGE_HASH_BYTES);
  hashes.copy(updated, 0, 0, Math.min(oldCount, pageCount) * PAGE_HASH_BYTES);
  const received = new Set<number>();
  const handle = await open(file, 'r+');
  try {
    let pending: Buffer = Buffer.alloc(0);
    for await (const chunk of res as AsyncIterable<Buffer>) {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      let at = 0;
      for (; pending.length - at >= recordBytes; at += recordBytes) {
        const page = pending.readUInt32BE(at);
        if (page >= pageCount) throw new Error(`the source sent page ${page + 1} of a file of ${pageCount} pages`);
        const bytes = pending.subarray(at + RECORD_HEADER_BYTES, at + recordBytes);
        const { bytesWritten } = await handle.write(bytes, 0, pageSize, page * pageSize);
        if (bytesWritten !== pageSize) throw new Error(`page ${page + 1} of the copy was written short (${bytesWritten} of ${pageSize} bytes)`);
        createHash('sha256').update(bytes).digest().copy(updated, page * PAGE_HASH_BYTES);
        received.add(page);
      }
      pending = pending.subarray(at);
    }
    if (pending.length > 0) throw new Error('the source stopped inside a page');
    for (let page = oldCount; page < pageCount; page++) if (!received.has(page)) throw new Error(`the source did not send new page ${page + 1}`);
    await handle.truncate(pageCount * pageSize);
    await handle.sync();
  } finally {
    await handle.close();
  }
  const digest = pagesDigest(updated);
  // Read once the body has ended; absent when the source stopped before the end.
  const announced = String(res.trailers[PAGES_SHA256.toLowerCase()] ?? '');
  if (digest !== announced) throw new Error(`the copy does not match the source after its changed pages (digest ${digest.slice(0, 12)} ≠ ${announced.slice(0, 12) || 'none'})`);
  return { pageCount, pagesChanged: received.size, bytes: pageCount * pageSize, digest };
}
