import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { expect } from 'vitest';

export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);
/** Said once by every browser test file when it skips. */
export const NO_CHROMIUM = `skipping the browser tests: no Chromium at ${CHROMIUM} (apt-get install chromium)`;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844 };

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** axe-core's serious and critical findings on the page as it is now (WCAG 2.1 A and AA rules). */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.addScriptTag({ content: axeSource });
  // A string: this file is type-checked for Node, where `window` and `document` do not exist.
  const violations = (await page.evaluate(`axe
    .run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } })
    .then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })))`)) as AxeViolation[];
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** How far the page reaches past the viewport's width (0: no sideways scrolling). */
export const overflowX = (page: Page) => page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth') as Promise<number>;

/** Where screenshots go: `test-results/screenshots/`, or `SCREENSHOTS_DIR` (e.g. a directory outside the repo). */
export const SCREENSHOTS = process.env.SCREENSHOTS_DIR ?? join(process.cwd(), 'test-results', 'screenshots');

/**
 * Saves the page at desktop and phone width (full page) for a person to look at, into `dir`
 * (default test-results/screenshots), the desktop at `desktop` (default DESKTOP).
 */
export async function screenshots(page: Page, name: string, opts: { dir?: string; desktop?: { width: number; height: number } } = {}): Promise<void> {
  const dir = opts.dir ?? SCREENSHOTS;
  mkdirSync(dir, { recursive: true });
  const viewport = page.viewportSize();
  for (const [label, size] of [
    ['desktop', opts.desktop ?? DESKTOP],
    ['phone', PHONE],
  ] as const) {
    await page.setViewportSize(size);
    await page.waitForTimeout(50);
    // A full-page capture waits for Chromium to paint a frame; with two test files, Chromium and an
    // `npm ci` (the ship test) on two cores, that once took over Playwright's default 30 s.
    await page.screenshot({ path: join(dir, `${name}-${label}.png`), fullPage: true, timeout: 90_000 });
  }
  if (viewport) await page.setViewportSize(viewport);
}

/** The password `signInByLink` sets. */
export const TEST_PASSWORD = 'a long password for tests';

/**
 * A new browser context (en-US, desktop, downloads allowed) signed in through a set-password link
 * (the password `TEST_PASSWORD`), on the timesheet; confirm() dialogs are answered yes.
 */
export async function signInByLink(browser: Browser, link: string): Promise<Page> {
  const context = await browser.newContext({ viewport: DESKTOP, locale: 'en-US', bypassCSP: true, acceptDownloads: true });
  const page = await context.newPage();
  page.on('dialog', (d) => void d.accept());
  await page.goto(link);
  await page.getByLabel('New password').fill(TEST_PASSWORD);
  await page.getByLabel('Repeat the password').fill(TEST_PASSWORD);
  await page.getByRole('button', { name: 'Save password and sign in' }).click();
  await page.getByRole('heading', { name: 'Timesheet' }).waitFor();
  return page;
}

/**
 * Answers the app's "Confirm with your password" dialog, which a call a session alone may not make
 * opens (web/src/ui/confirm-password.tsx), and waits for it to close.
 */
export async function confirmWithPassword(page: Page, password = TEST_PASSWORD): Promise<void> {
  const dialog = page.getByRole('dialog', { name: 'Confirm with your password' });
  await dialog.getByLabel('Your password').fill(password);
  await dialog.getByRole('button', { name: 'Confirm' }).click();
  await dialog.waitFor({ state: 'detached' });
}

/** Left and right edges on the page, in CSS pixels. */
export interface Edges {
  left: number;
  right: number;
}

/**
 * Where the text of an element (one text node, as a paragraph of `white-space: pre-line` is) is
 * drawn: the element's box, and the edges of each named span of its text (`[from, to)`, offsets
 * in its text), as the browser laid them out: to check in which direction a line was set.
 */
export function textEdges<K extends string>(element: Locator, spans: Record<K, [number, number]>): Promise<{ box: Edges } & Record<K, Edges>> {
  return element.evaluate((el, ranges) => {
    const edges = (r: DOMRect) => ({ left: r.left, right: r.right });
    const out: Record<string, Edges> = { box: edges(el.getBoundingClientRect()) };
    for (const [name, [from, to]] of Object.entries(ranges)) {
      const range = document.createRange();
      range.setStart(el.firstChild!, from);
      range.setEnd(el.firstChild!, to);
      out[name] = edges(range.getBoundingClientRect());
    }
    return out;
  }, spans as Record<string, [number, number]>) as Promise<{ box: Edges } & Record<K, Edges>>;
}

/** A link of the main navigation. */
export const nav = (page: Page, name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();

/**
 * Waits for two frames after a change of viewport: ResizeObserver callbacks (the reports' chart
 * takes its column's width from one) run between layout and paint, so a check made at once could
 * still see the page laid out for the old width.
 */
const settled = (page: Page) => page.evaluate(() => new Promise<void>((done) => requestAnimationFrame(() => requestAnimationFrame(() => done()))));

/**
 * What every page of the browser tests must pass: no serious accessibility finding at desktop or
 * phone width, nothing wider than a 390 px phone; then it is photographed (see `screenshots`).
 */
export async function checkPage(page: Page, name: string, opts: { dir?: string; desktop?: { width: number; height: number } } = {}): Promise<void> {
  await page.waitForLoadState('networkidle');
  const violations = await seriousViolations(page);
  expect(violations, `${name}: ${JSON.stringify(violations, null, 1)}`).toEqual([]);
  await page.setViewportSize(PHONE);
  await settled(page);
  const wide = await page.evaluate(`[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > ${PHONE.width + 1}).map((e) => e.tagName + '.' + e.className).slice(0, 8)`);
  expect(await overflowX(page), `${name} scrolls sideways at 390 px: ${JSON.stringify(wide)}`).toBeLessThanOrEqual(0);
  expect(await seriousViolations(page), `${name} (phone)`).toEqual([]);
  await page.setViewportSize(DESKTOP);
  await screenshots(page, name, opts);
}
