import { execFile, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { provisionWorkspace } from '../src/domain/workspace/provision.ts';
import { WorkspaceRegistry } from '../src/workspaces/registry.ts';
import { send } from './helpers/http.ts';
import { spawnHourbook } from './helpers/processes.ts';
import { freePort } from './helpers/ports.ts';

const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = `.tmp/build-startup-${process.pid}`;
const work = mkdtempSync(join(tmpdir(), 'hourbook-startup-'));

/** Packages a short command must never load: the web server, the RPC layer, PDF, mail, API docs. */
const HEAVY = ['express', '@trpc/server', 'pdfkit', 'nodemailer', 'swagger-ui-express', 'swagger-ui-dist'];

interface Meta {
  outputs: Record<string, { inputs: Record<string, unknown> }>;
}

beforeAll(async () => {
  await exec(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), '--outdir', OUT], { cwd: ROOT });
  // Records every module the command's process resolves: its chunks and the packages left external.
  writeFileSync(
    join(work, 'hooks.mjs'),
    "import { appendFileSync } from 'node:fs';\nexport async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(process.env.RESOLVED_LOG, r.url + '\\n'); return r; }\n",
  );
  writeFileSync(join(work, 'register.mjs'), `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(work, 'hooks.mjs')).href)});\n`);
}, 120_000);
afterAll(() => {
  rmSync(join(ROOT, OUT), { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

/** Runs a command from the build; returns the source files and packages it loaded. */
async function loadedBy(...args: string[]): Promise<{ stdout: string; sources: string[]; packages: string[] }> {
  const log = join(work, `resolved-${args.join('-').replace(/[^a-z0-9-]/gi, '_')}.log`);
  writeFileSync(log, '');
  let stdout: string;
  try {
    ({ stdout } = await exec(process.execPath, ['--import', join(work, 'register.mjs'), join(ROOT, OUT, 'main.js'), ...args], {
      env: { ...process.env, RESOLVED_LOG: log, DATA_DIR: join(work, 'data'), LOG_LEVEL: 'silent' },
    }));
  } catch (err) {
    stdout = (err as { stdout: string }).stdout; // a refused command still shows what it loaded
  }
  const meta = JSON.parse(readFileSync(join(ROOT, OUT, 'build-meta.json'), 'utf8')) as Meta;
  const urls = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  const inputs = new Set<string>();
  const packages = new Set<string>();
  for (const url of urls) {
    if (!url.startsWith('file:')) continue;
    const file = relative(ROOT, fileURLToPath(url));
    for (const input of Object.keys(meta.outputs[file]?.inputs ?? {})) inputs.add(input);
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
    if (m?.[1]) packages.add(m[1]);
  }
  for (const input of inputs) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
    if (m?.[1]) packages.add(m[1]);
  }
  return { stdout, sources: [...inputs].filter((i) => i.startsWith('src/')), packages: [...packages].sort() };
}

describe('the built command line loads only what a command uses', () => {
  it('workspace list loads no web server, RPC, PDF, mail, API docs or validation library', async () => {
    const { stdout, sources, packages } = await loadedBy('workspace', 'list');
    expect(stdout).toBe('no workspaces\n');
    for (const heavy of [...HEAVY, 'zod']) expect(packages).not.toContain(heavy);
    expect(sources).not.toContain('src/server.ts');
    expect(packages).toEqual(expect.arrayContaining(['better-sqlite3', 'drizzle-orm']));
  });

  it.each([['key', 'list', 'ghost'], ['check'], ['migrate', '--check'], ['backup', '--to', '.tmp/none'], ['litestream', 'config', '--replica', 'file:///x']].map((a) => [a.join(' '), a] as const))(
    '%s loads none of the heavy packages either',
    async (_name, args) => {
      const { packages, sources } = await loadedBy(...args);
      for (const heavy of [...HEAVY, 'zod']) expect(packages).not.toContain(heavy);
      expect(sources).not.toContain('src/server.ts');
    },
  );

  it('--version loads neither the database nor any dependency', async () => {
    const { stdout, packages } = await loadedBy('--version');
    expect(stdout).toBe(`${JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version}\n`);
    expect(packages).toEqual([]);
  });

  it('serve is what loads the server (the check above can see it)', async () => {
    const { packages } = await loadedBy('serve', '--no-such-flag');
    // The command fails on its flag only after its module (and the server with it) was loaded.
    expect(packages).toEqual(expect.arrayContaining(['express', '@trpc/server']));
  });
});

describe('the server starts from its bundle with the code cache the build wrote', () => {
  const bundle = join(ROOT, OUT, 'serve.cjs');
  const codeCache = pathToFileURL(join(ROOT, 'bin', 'code-cache.js')).href;

  it('V8 accepts the cache for this Node; a bundle changed after its cache compiles afresh', async () => {
    const rejected = async (file: string) =>
      (
        await exec(process.execPath, ['--input-type=module', '-e', `import { compileBundle } from ${JSON.stringify(codeCache)}; console.log(compileBundle(process.argv[1]).cachedDataRejected);`, file])
      ).stdout.trim();
    expect(statSync(`${bundle}.cache`).size).toBeGreaterThan(100_000);
    expect(await rejected(bundle)).toBe('false');
    // V8 would take this cache for an edit of the same length (it compares lengths, not text): the
    // bundle being newer than its cache is what keeps the cache away from it.
    const edited = join(work, 'edited.cjs');
    copyFileSync(`${bundle}.cache`, `${edited}.cache`);
    writeFileSync(edited, readFileSync(bundle, 'utf8').replace('hourbook listening on', 'HOURBOOK LISTENING ON'));
    utimesSync(`${edited}.cache`, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    expect(await rejected(edited)).toBe('undefined'); // compiled without a cache
    utimesSync(`${edited}.cache`, new Date(), new Date(Date.now() + 60_000));
    expect(await rejected(edited)).toBe('false'); // the proof that V8 alone would have used it
  });

  it('the bundle leaves out what the server never runs: zod locales, and iconv-lite tables, which stay loadable from node_modules', async () => {
    const text = readFileSync(bundle, 'latin1');
    // zod's Dutch messages: present only when some file imports zod's namespace object by name.
    expect(text).not.toContain('Ongeldige invoer');
    expect(text).toContain('Invalid input: expected'); // the English ones the API answers with
    const tables = [...text.matchAll(/require\("(iconv-lite\/encodings\/tables\/[\w-]+\.json)"\)/g)].map((m) => m[1]!);
    expect(tables).toEqual(expect.arrayContaining(['iconv-lite/encodings/tables/shiftjis.json', 'iconv-lite/encodings/tables/cp936.json']));
    const requireFromBundle = createRequire(bundle);
    for (const table of tables) expect(Object.keys(requireFromBundle(table) as object).length).toBeGreaterThan(0);
  });

  it('serve and demo are the commands the bin runs from the bundle, and the bundle serves', async () => {
    const { SERVER_COMMANDS } = (await import(codeCache)) as { SERVER_COMMANDS: string[] };
    const { COMMANDS } = await import('../src/cli/index.ts');
    expect(SERVER_COMMANDS).toEqual(['serve', 'demo']);
    for (const words of SERVER_COMMANDS) expect(COMMANDS.find((c) => c.words === words)?.serves).toBe(true);

    const port = await freePort();
    const code = `import { runBundle } from ${JSON.stringify(codeCache)}; process.argv = [process.argv[0], process.argv[1], 'serve']; runBundle(process.argv[1]);`;
    const server = spawn(process.execPath, ['--input-type=module', '-e', code, bundle], {
      env: { ...process.env, DATA_DIR: join(work, 'bundle-data'), PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<number | null>((resolve) => server.once('exit', resolve));
    try {
      await new Promise<void>((listening, failed) => {
        server.stdout.on('data', (d: Buffer) => d.toString().includes('listening') && listening());
        void exited.then((code) => failed(new Error(`the bundle exited with ${code} before it listened`)));
      });
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
      const docs = await fetch(`http://127.0.0.1:${port}/api/external/openapi.json`);
      expect(docs.status).toBe(200);
      expect(((await docs.json()) as { openapi: string }).openapi).toMatch(/^3\./);
    } finally {
      server.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});

describe('hourbook serve through the bin, as operators start it', () => {
  it('serves the web app on a workspace host (from dist/serve.cjs once built, which sits one level below the package root)', async () => {
    const dataDir = join(work, 'bin-data');
    const registry = new WorkspaceRegistry({ dataDir, synchronous: 'FULL' });
    provisionWorkspace(registry, { subdomain: 'acme', timeZone: 'UTC', owner: { email: 'o@acme.test', firstName: 'O', lastName: 'A' } }, new Date());
    registry.closeAll();
    expect(existsSync(join(ROOT, 'dist', 'web', 'index.html'))).toBe(true);
    const port = await freePort();
    const server = await spawnHourbook({ DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' }, ['serve']);
    try {
      const page = await send(`http://127.0.0.1:${port}`, 'GET', '/', { host: 'acme.localhost' });
      // The bundle once looked for the app two levels above dist/serve.cjs and answered "not built".
      expect(page.status).toBe(200);
      expect(page.text).toContain('<div id="root">');
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});
