#!/usr/bin/env node
/**
 * `npm run build`: the server and the command line as plain JavaScript in dist/, so neither pays
 * for TypeScript at start (tsx transpiles the whole graph on every run: 1.5 s per command).
 *
 * esbuild bundles src/main.ts with code splitting: every command module the CLI loads with a
 * dynamic import becomes its own chunk, so `hourbook workspace list` loads neither Express nor
 * tRPC. Pure-JavaScript dependencies are bundled in (one file instead of hundreds for zod and
 * drizzle, which is most of a command's start-up); packages that read files next to their own
 * code (pdfkit's font metrics, swagger-ui's assets, the DejaVu fonts) or load a native addon
 * (better-sqlite3) stay external and are loaded from node_modules. Plain JavaScript so it runs
 * before anything is built; type checking stays `npm run typecheck`.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// `--outdir DIR` (inside the checkout, so the package root is still found above it): tests build there.
const flag = process.argv.indexOf('--outdir');
const out = flag > 0 ? join(root, process.argv[flag + 1] ?? 'dist') : join(root, 'dist');

/** Loaded from node_modules at run time: native code, or code that reads files beside itself. */
export const EXTERNAL = ['better-sqlite3', 'sharp', 'jsdom', 'pdfkit', 'swagger-ui-express', 'swagger-ui-dist', 'dejavu-fonts-ttf'];

// Only this build's own output: dist/web belongs to `npm run build:web`.
for (const name of ['main.js', 'main.js.map', 'chunks', 'build-meta.json']) rmSync(join(out, name), { recursive: true, force: true });
mkdirSync(out, { recursive: true });

const started = performance.now();
const result = await build({
  absWorkingDir: root,
  entryPoints: { main: 'src/main.ts' },
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  entryNames: '[name]',
  chunkNames: 'chunks/[name]-[hash]',
  sourcemap: 'linked',
  sourcesContent: false,
  metafile: true,
  logLevel: 'warning',
  // Bundled CommonJS (Express, pino) calls require() for Node's own modules.
  banner: { js: "import { createRequire as __hourbookRequire } from 'node:module'; const require = __hourbookRequire(import.meta.url);" },
});
// Which sources and packages each chunk holds: what a test reads to prove a command loads no server.
writeFileSync(join(out, 'build-meta.json'), JSON.stringify(result.metafile));
const files = Object.keys(result.metafile.outputs).filter((f) => f.endsWith('.js')).length;
console.log(`built ${out}/main.js and ${files - 1} chunks in ${Math.round(performance.now() - started)} ms`);
