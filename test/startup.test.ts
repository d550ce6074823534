import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

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
