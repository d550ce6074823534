#!/usr/bin/env node
// The package's bin. It runs the built JavaScript (dist/, `npm run build`, also run by `npm ci`
// through `prepare`) when that is at least as new as every source file; otherwise — a checkout
// edited since the last build — the TypeScript sources through tsx's loader, so a change is never
// silently ignored. An installed package ships no sources and always runs dist/. Either way the
// program runs in this process, so signals reach the server directly.
import { existsSync, readdirSync, statSync } from 'node:fs';

const root = new URL('../', import.meta.url);
const built = new URL('dist/main.js', root);
const sources = new URL('src/', root);

/** True when dist/main.js exists and no file under src/ changed after it was written. */
function builtIsCurrent() {
  if (!existsSync(built)) return false;
  if (!existsSync(sources)) return true;
  const builtAt = statSync(built).mtimeMs;
  for (const name of readdirSync(sources, { recursive: true })) {
    if (statSync(new URL(name, sources)).mtimeMs > builtAt) return false;
  }
  return true;
}

if (builtIsCurrent()) {
  await import(built.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('src/main.ts', root).href);
}
