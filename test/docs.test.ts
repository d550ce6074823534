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

  it("lets the service's own pages call the REST API across origins, and no one else", async () => {
    const port = new URL(env.url).port;
    const preflight = (origin: string) =>
      send(env.url, 'OPTIONS', '/api/external/v2/team-members', {
        host: env.alpha.host,
        headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key,idempotency-key' },
      });
    for (const origin of [`http://localhost:${port}`, `http://demo.localhost:${port}`]) {
      const res = await preflight(origin);
      expect(res.status, origin).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe(origin);
      expect(res.headers['access-control-allow-headers']).toMatch(/X-Api-Key.*Idempotency-Key/);
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    }
    for (const origin of ['https://evil.example', 'http://localhost.evil.example', 'null']) {
      const res = await preflight(origin);
      expect(res.headers['access-control-allow-origin'], origin).toBeUndefined();
    }
    const call = await send(env.url, 'GET', '/api/external/v2/team-members', { host: env.alpha.host, key: env.alpha.key, headers: { origin: `http://localhost:${port}`, accept: 'application/json' } });
    expect(call.status).toBe(200);
    expect(call.headers['access-control-allow-origin']).toBe(`http://localhost:${port}`);
    expect(call.headers['access-control-expose-headers']).toContain('Idempotent-Replayed');
  });

  const launch = () =>
    chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });

  it.skipIf(!hasChromium)('renders the operations in a real browser', async () => {
    const browser = await launch();
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

  /**
   * Opens /docs at `origin`, authorizes with `key`, runs "Try it out" on the v2 team member list and
   * returns the request the page sent and the answer it showed.
   */
  async function tryTeamMembers(origin: string, key: string) {
    const browser = await launch();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 1400 } });
      const sent: { url: string; accept: string | undefined }[] = [];
      page.on('request', (req) => {
        if (req.url().includes('/team-members')) sent.push({ url: req.url(), accept: req.headers().accept });
      });
      await page.goto(`${origin}/docs/`);
      const op = page.locator('#operations-Team_members-listTeamMembersV2');
      await op.locator('.opblock-summary').click();
      await page.locator('button.authorize').first().click();
      await page.locator('.modal-ux input[type=text]').fill(key);
      await page.locator('.modal-ux button.authorize').click();
      await page.locator('.modal-ux button.btn-done').click();
      await op.locator('button.try-out__btn').click();
      await op.locator('button.execute').click();
      const status = op.locator('.live-responses-table tbody .response-col_status').first();
      await status.waitFor();
      const shot = join(mkdtempSync(join(tmpdir(), 'hourbook-docs-try-')), 'try.png');
      await op.screenshot({ path: shot });
      console.info(`docs "Try it out" screenshot: ${shot}`);
      return { sent, status: (await status.textContent())?.trim(), body: await op.locator('.live-responses-table tbody .microlight').first().textContent() };
    } finally {
      await browser.close();
    }
  }

  it.skipIf(!hasChromium)('"Try it out" works on a workspace host: same-origin, Accept: application/json', async () => {
    const port = new URL(env.url).port;
    const result = await tryTeamMembers(`http://alpha.localhost:${port}`, env.alpha.key);
    expect(result.sent).toEqual([{ url: `http://alpha.localhost:${port}/api/external/v2/team-members`, accept: 'application/json' }]);
    expect(result.status).toBe('200');
    expect(result.body).toContain(env.alpha.ownerEmail);
  }, 60_000);

  it.skipIf(!hasChromium)('"Try it out" works from the bare host the demo prints, against the demo workspace', async () => {
    const port = new URL(env.url).port;
    const demo = env.workspace('demo');
    const result = await tryTeamMembers(`http://localhost:${port}`, demo.key);
    expect(result.sent).toEqual([{ url: `http://demo.localhost:${port}/api/external/v2/team-members`, accept: 'application/json' }]);
    expect(result.status).toBe('200');
    expect(result.body).toContain(demo.ownerEmail);
  }, 60_000);
});
