#!/usr/bin/env node
// The package's bin. It runs the built JavaScript (dist/, `npm run build`, also run by `npm ci`
// through `prepare`) when that is at least as new as every source file; otherwise — a checkout
// edited since the last build — the TypeScript sources through tsx's loader, so a change is never
// silently ignored. An installed package ships no sources and always runs dist/. Either way the
// program runs in this process, so signals reach the server directly. From dist/, the commands
// that start the server run its bundle with its code cache (code-cache.js).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBundle, SERVER_COMMANDS } from './code-cache.js';

const root = new URL('../', import.meta.url);
const built = new URL('dist/main.js', root);
const serverBundle = new URL('dist/serve.cjs', root);

/** Whether anything under `dir` changed after `time` (a file edited, added or removed). */
function changedSince(dir, time) {
  if (statSync(dir).mtimeMs > time) return true;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() ? changedSince(path, time) : statSync(path).mtimeMs > time) return true;
  }
  return false;
}

/**
 * True when dist/main.js exists and no file under src/ changed after it was written. (A walk by
 * hand: `readdirSync`'s recursive mode took 25 ms of every command's start here, this takes 5.)
 */
function builtIsCurrent() {
  if (!existsSync(built)) return false;
  const sources = fileURLToPath(new URL('src/', root));
  return !existsSync(sources) || !changedSince(sources, statSync(built).mtimeMs);
}

if (builtIsCurrent()) {
  if (SERVER_COMMANDS.includes(process.argv[2]) && existsSync(serverBundle)) runBundle(fileURLToPath(serverBundle));
  else await import(built.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('src/main.ts', root).href);
}
