import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEnv, type TestEnv } from './helpers/env.ts';
import { send } from './helpers/http.ts';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`docs.test.ts: skipping the browser test: ${CHROMIUM} is missing (apt-get install chromium)`);

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv();
});
afterAll(() => env.close());

const get = (path: string) => send(env.url, 'GET', path, { host: 'localhost' });

describe('/docs', () => {
  it('redirects /docs to /docs/, where the page loads its assets relatively', async () => {
    const res = await get('/docs');
    expect(res.status).toBe(301);
    expect(res.headers.location).toBe('/docs/');
  });

  it('serves a page and assets from the installed package only, without a key', async () => {
    const page = await get('/docs/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('<title>hourbook API reference</title>');
    // Nothing is fetched from another host: every src/href is relative.
    const urls = [...page.text.matchAll(/(?:src|href)=["']([^"']+)["']/g)].map((m) => m[1] as string);
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls) expect(url, url).toMatch(/^\.\//);

    for (const asset of ['swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'swagger-ui.css']) {
      const res = await get(`/docs/${asset}`);
      expect(res.status, asset).toBe(200);
      expect(res.raw.length, asset).toBeGreaterThan(1000);
    }
    for (const demo of ['/docs/index.html', '/docs/swagger-initializer.js']) expect((await get(demo)).headers.location, demo).toBe('/docs/');
    const init = await get('/docs/swagger-ui-init.js');
    expect(init.text).toContain('"url": "/api/external/openapi.json"');
    expect(init.text).toContain('"validatorUrl": null');
  });

  it.skipIf(!hasChromium)('renders the operations in a real browser', async () => {
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 1600 } });
      const offsite: string[] = [];
      const failed: string[] = [];
      page.on('request', (req) => {
        if (!req.url().startsWith(env.url)) offsite.push(req.url());
      });
      page.on('requestfailed', (req) => failed.push(req.url()));
      const errors: string[] = [];
      page.on('pageerror', (err) => errors.push(err.message));

      await page.goto(`${env.url}/docs`);
      await page.locator('.opblock').first().waitFor({ state: 'visible' });
      const paths = await page.locator('.opblock-summary-path').allTextContents();
      const normalized = paths.map((p) => p.replace(/\u200b/g, '').trim());
      expect(normalized).toContain('/v2/team-members');
      expect(normalized).toContain('/v1/team_members/{team_member_id}');
      expect(normalized).toHaveLength(24); // the 18 of the spec and 6 extensions
      expect(await page.locator('.info .title').textContent()).toContain('hourbook external API');

      const shot = join(mkdtempSync(join(tmpdir(), 'hourbook-docs-')), 'docs.png');
      await page.screenshot({ path: shot, fullPage: false });
      expect(statSync(shot).size).toBeGreaterThan(10_000);
      console.info(`docs screenshot: ${shot}`);

      expect(offsite).toEqual([]);
      expect(failed).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
