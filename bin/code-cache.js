// The server's start-up from the built artifact: `hourbook serve` and `hourbook demo` run
// dist/serve.cjs, one CommonJS bundle of the program, compiled with the V8 code cache the build
// wrote beside it (dist/serve.cjs.cache). Node 20 keeps no compile cache for ES modules (that came
// in Node 22), and compiling the server's code was a quarter of its start-up; with the cache V8
// reads the bytecode of every function the server ran while starting instead of compiling them
// again. V8 checks the cache against its own version and flags and the source's length, and
// compiles normally when they do not match (another Node). It does not read the source itself, so
// a cache is used only when it was written after the bundle: a bundle edited since (even to the
// same length) compiles afresh. The cache is only ever a shortcut, never a different program.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import vm from 'node:vm';

/** The commands that start the server, and so run the bundle (the others load only their own chunk of dist/main.js). */
export const SERVER_COMMANDS = ['serve', 'demo'];

/** The bundle compiled as a CommonJS module function, with its cache when there is one that V8 accepts. */
export function compileBundle(file, { useCache = true } = {}) {
  const cacheFile = `${file}.cache`;
  let cachedData;
  try {
    // `>=`: npm gives every file of a package the same time.
    if (useCache && statSync(cacheFile).mtimeMs >= statSync(file).mtimeMs) cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined; // no cache: compile as usual
  }
  // The build makes the bundle pure ASCII (and checks it), so Latin-1 reads it exactly, and 13 ms
  // faster than UTF-8 here. The wrapper is the one Node puts around every CommonJS file.
  const wrapped = `(function (exports, require, module, __filename, __dirname) { ${readFileSync(file, 'latin1')}\n})`;
  return new vm.Script(wrapped, { filename: file, cachedData, importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER });
}

/**
 * Runs the bundle in this process, as `node file` would. With `cacheOut` (the build, see
 * scripts/build.mjs) it compiles without a cache and, when the process exits, writes the code
 * cache of everything that ran until then.
 */
export function runBundle(file, { cacheOut } = {}) {
  const script = compileBundle(file, { useCache: !cacheOut });
  if (cacheOut) process.once('exit', () => writeFileSync(cacheOut, script.createCachedData()));
  const module = { exports: {}, filename: file, id: '.', loaded: false };
  script.runInThisContext().call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
}
