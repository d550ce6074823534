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
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// `--outdir DIR` (inside the checkout, so the package root is still found above it): tests build there.
const flag = process.argv.indexOf('--outdir');
const out = flag > 0 ? join(root, process.argv[flag + 1] ?? 'dist') : join(root, 'dist');

/** Loaded from node_modules at run time: native code, or code that reads files beside itself. */
export const EXTERNAL = ['better-sqlite3', 'sharp', 'jsdom', 'pdfkit', 'swagger-ui-express', 'swagger-ui-dist', 'dejavu-fonts-ttf'];

/**
 * iconv-lite's code tables for Chinese, Japanese and Korean charsets (400 KB, a fifth of the
 * server's bundle) stay in node_modules, required from there on first use. Bundled, they were read
 * at every start; nothing the server receives uses them (its JSON bodies are UTF-8, -16 or -32).
 */
const iconvTablesOutside = {
  name: 'iconv-tables-outside',
  setup(b) {
    b.onResolve({ filter: /^\.\/tables\/[\w-]+\.json$/ }, (args) =>
      /[\\/]iconv-lite[\\/]encodings$/.test(args.resolveDir) ? { path: `iconv-lite/encodings/${args.path.slice(2)}`, external: true } : undefined,
    );
  },
};

// Only this build's own output: dist/web belongs to `npm run build:web`.
for (const name of ['main.js', 'main.js.map', 'chunks', 'build-meta.json', 'serve.cjs', 'serve.cjs.map', 'serve.cjs.cache']) rmSync(join(out, name), { recursive: true, force: true });
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
  plugins: [iconvTablesOutside],
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

/**
 * The same program as one CommonJS file for the commands that start the server (bin/code-cache.js):
 * Node 20 can give a CommonJS script V8's code cache but not an ES module. The commands' dynamic
 * imports become functions run on first use, so the server still evaluates only what it imports.
 * Stripe is a dependency of its own, loaded from node_modules on the first card payment.
 */
await build({
  absWorkingDir: root,
  entryPoints: { serve: 'src/main.ts' },
  outdir: out,
  outExtension: { '.js': '.cjs' },
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  external: [...EXTERNAL, 'stripe'],
  plugins: [iconvTablesOutside],
  // Without comments and spaces (names kept, for stack traces) the file is half the size and pure
  // ASCII: reading and compiling it took 100 ms before, as much as the cache saved.
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  sourcesContent: false,
  logLevel: 'warning',
  // A CommonJS file has no import.meta; the program reads only its url (to find the package root).
  define: { 'import.meta.url': '__hourbookUrl' },
  banner: { js: "const __hourbookUrl = require('node:url').pathToFileURL(__filename).href;" },
});
// bin/code-cache.js reads the bundle as Latin-1, which is exact only for ASCII.
if (readFileSync(join(out, 'serve.cjs')).some((byte) => byte > 0x7f)) throw new Error(`${join(out, 'serve.cjs')} is not pure ASCII`);
await primeCodeCache(join(out, 'serve.cjs'));

/**
 * Writes `serve.cjs.cache`: starts the bundle's server on a scratch data directory and a free
 * port, waits for /readyz and the web app's page, stops it, and keeps the code V8 compiled for all
 * of that. A build where that fails still works, only its server starts slower: say so, go on.
 */
async function primeCodeCache(bundle) {
  const data = mkdtempSync(join(tmpdir(), 'hourbook-build-'));
  const port = await freePort();
  const code = `import { runBundle } from ${JSON.stringify(pathToFileURL(join(root, 'bin', 'code-cache.js')).href)};
process.argv = [process.argv[0], ${JSON.stringify(bundle)}, 'serve'];
runBundle(${JSON.stringify(bundle)}, { cacheOut: ${JSON.stringify(`${bundle}.cache`)} });`;
  const env = { ...process.env, DATA_DIR: data, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent', NODE_ENV: 'production' };
  const server = spawn(process.execPath, ['--input-type=module', '-e', code], { env, stdio: 'ignore' });
  const exited = new Promise((resolve) => server.once('exit', resolve));
  try {
    await untilAnswered(`http://127.0.0.1:${port}/readyz`, exited);
    await fetch(`http://127.0.0.1:${port}/`).then((r) => r.arrayBuffer());
  } catch (err) {
    console.warn(`warning: no code cache for ${bundle} (the server will start without it): ${err.message}`);
  } finally {
    server.kill('SIGTERM');
    // A server that does not stop must not hold the build: it is killed (and leaves no cache).
    const stuck = setTimeout(() => server.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(stuck);
    rmSync(data, { recursive: true, force: true });
  }
}

async function untilAnswered(url, exited) {
  let gone = false;
  void exited.then(() => (gone = true));
  for (const deadline = Date.now() + 30_000; Date.now() < deadline && !gone; await new Promise((r) => setTimeout(r, 20))) {
    const ok = await fetch(url).then((r) => r.ok, () => false);
    if (ok) return;
  }
  throw new Error(gone ? 'the server exited before it was ready' : 'the server was not ready within 30 s');
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}
