/**
 * The web app's weight and first load. Size: the JavaScript (and CSS) the browser downloads,
 * gzipped, against the 300 KB budget. Time: a cold first load (fresh browser context, empty cache)
 * of the app on loopback, until its page is on screen, beside a floor measured in the same run: a
 * static page from the same server (the "no workspace here" page), so the ratio says what the app
 * itself costs. Goal: under 1 s.
 *
 *   npx tsx scripts/bench-web.ts            # 10 loads each
 *   BENCH_LOADS=30 npx tsx scripts/bench-web.ts
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import pino from 'pino';
import type { Browser, Page } from 'playwright-core';
import { loadConfig } from '../src/config.ts';
import { issuePasswordLink } from '../src/domain/accounts/links.ts';
import { provisionWorkspace } from '../src/domain/workspace/provision.ts';
import { startServer } from '../src/server.ts';
import { createServices, openWorkspaceScope } from '../src/services.ts';
import { WEB_DIST } from '../src/web/serve-app.ts';
import { hasChromium, launchChromium, NO_CHROMIUM } from '../test/helpers/browser.ts';
import { send } from '../test/helpers/http.ts';
import { printRows, record } from './bench-report.ts';

const JS_BUDGET_KB = 300;
const SECTION = 'web app';
const LOAD_GOAL_MS = 1000;
const LOADS = Number(process.env.BENCH_LOADS ?? 10);

const kb = (bytes: number) => bytes / 1024;
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

/** Gzipped bytes of the built assets, by kind. */
export function bundleSize(dist = WEB_DIST): { js: number; css: number } {
  const assets = join(dist, 'assets');
  if (!existsSync(assets)) throw new Error(`no build in ${dist}: run npm run build:web first`);
  const size = { js: 0, css: 0 };
  for (const file of readdirSync(assets)) {
    const gz = gzipSync(readFileSync(join(assets, file)), { level: 9 }).length;
    if (file.endsWith('.js')) size.js += gz;
    else if (file.endsWith('.css')) size.css += gz;
  }
  return size;
}

/**
 * Gzipped JavaScript a first visit downloads: the scripts index.html names (entry and preloads).
 * The other pages, and the report's chart library, come as they are opened.
 */
export function firstVisitJs(dist = WEB_DIST): number {
  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  const scripts = [...html.matchAll(/(?:src|href)="\/assets\/([^"]+\.js)"/g)].map((m) => m[1]!);
  return scripts.reduce((sum, file) => sum + gzipSync(readFileSync(join(dist, 'assets', file)), { level: 9 }).length, 0);
}

/** Milliseconds from navigation to `ready` on a page of a fresh context (nothing cached). */
async function coldLoad(browser: Browser, url: string, ready: (page: Page) => Promise<unknown>, cookie?: { name: string; value: string; domain: string }): Promise<number> {
  const context = await browser.newContext();
  if (cookie) await context.addCookies([{ ...cookie, path: '/' }]);
  const page = await context.newPage();
  const started = performance.now();
  await page.goto(url);
  await ready(page);
  const elapsed = performance.now() - started;
  await context.close();
  return elapsed;
}

export async function run(): Promise<void> {
  const size = bundleSize();
  record({ section: SECTION, figure: 'web app JavaScript, gzipped', value: kb(size.js), unit: 'KB', goal: { of: 'value', atMost: JS_BUDGET_KB } });
  record({ section: SECTION, figure: 'web app CSS, gzipped', value: kb(size.css), unit: 'KB' });
  console.log(`web app: a first visit loads ${kb(firstVisitJs()).toFixed(1)} KB of the JavaScript; every other page (and the reports' chart) when opened`);
  if (!hasChromium) {
    console.log(NO_CHROMIUM);
    printRows(SECTION);
    return;
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'hourbook-bench-web-'));
  const services = createServices(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '0' }), { logger: pino({ level: 'silent' }) });
  const server = await startServer(services, { port: 0, host: '127.0.0.1', jobs: false });
  const port = new URL(server.url).port;
  const browser = await launchChromium();
  try {
    provisionWorkspace(services.registry, { subdomain: 'bench', timeZone: 'UTC', owner: { email: 'owner@bench.test', firstName: 'Bench', lastName: 'Owner' } }, new Date());
    const handle = services.registry.get('bench')!;
    // A signed-in session for the timesheet, made the way the app makes one.
    const token = /#token=(.+)$/.exec(issuePasswordLink(openWorkspaceScope(services, handle).scope, {}).link)![1]!;
    const signIn = await send(server.url, 'POST', '/trpc/auth.setPassword', {
      host: `bench.localhost:${port}`,
      headers: { origin: `http://bench.localhost:${port}`, 'x-hourbook-csrf': '1' },
      body: { token, password: 'a bench password' },
    });
    const session = /hourbook_session=([^;]+)/.exec(String(signIn.headers['set-cookie'] ?? ''))?.[1];
    if (!session) throw new Error(`could not sign in: ${signIn.status}`);

    const floor: number[] = [];
    const signInPage: number[] = [];
    const timesheet: number[] = [];
    for (let i = 0; i < LOADS + 1; i++) {
      const f = await coldLoad(browser, `http://nowhere.localhost:${port}/timesheet`, (p) => p.getByRole('heading', { name: 'No workspace here' }).waitFor());
      const s = await coldLoad(browser, `http://bench.localhost:${port}/sign-in`, (p) => p.getByRole('heading', { name: 'Sign in' }).waitFor());
      const t = await coldLoad(browser, `http://bench.localhost:${port}/timesheet`, (p) => p.getByRole('heading', { name: 'Timesheet' }).waitFor(), {
        name: 'hourbook_session',
        value: session,
        domain: 'bench.localhost',
      });
      // The first round warms the server (statements, files), not the browser: it is not counted.
      if (i === 0) continue;
      floor.push(f);
      signInPage.push(s);
      timesheet.push(t);
    }
    const label = 'a static page from the same server, cold';
    for (const [figure, values] of [
      ['first load, cold cache: sign-in page', signInPage],
      ['first load, cold cache: timesheet, signed in (2 procedure calls)', timesheet],
    ] as const) {
      record({ section: SECTION, figure, value: median(values), unit: 'ms', floor: { value: median(floor), label }, goal: { of: 'value', atMost: LOAD_GOAL_MS } });
    }
    printRows(SECTION);
  } finally {
    await browser.close();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
