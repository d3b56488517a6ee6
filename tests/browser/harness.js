// harness.js: what every browser test shares: a local server for web/, Debian's Chromium driven
// by playwright-core, and a page wrapper that records console errors, page errors and every
// request that would leave the machine. Screenshots go to tests/artifacts/ (git-ignored).
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startServer } from '../../tools/serve.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const ARTIFACTS = path.join(ROOT, 'tests', 'artifacts');
export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

export const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/**
 * Serves web/ (or root) on a free port and launches Chromium, or connects to the one the run
 * shares (QKV_BROWSER_WS, set by tests/run-all.sh: shared-browser.mjs). Call close() when done: it
 * closes this file's contexts and, for a browser of its own, the browser.
 */
export async function openBrowser({ headers, root = path.join(ROOT, 'web') } = {}) {
  const server = await startServer({ root, port: 0, headers });
  const shared = process.env.QKV_BROWSER_WS;
  const browser = shared ? await chromium.connect(shared)
    : await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
  return {
    server,
    browser,
    url: (p = '') => `${server.url}/${p}`,
    fileUrl: (p) => pathToFileURL(path.join(ROOT, 'web', p)).href,
    async close() {
      await browser.close();
      await server.close();
    },
  };
}

/**
 * A new page that records problems: `problems()` lists console errors, uncaught page errors,
 * and requests to anything but our server, file:, data: or blob:.
 */
export async function newPage(env, { width = 1280, height = 900, locale = 'en-US', colorScheme = 'light', reducedMotion = 'no-preference' } = {}) {
  const context = await env.browser.newContext({ viewport: { width, height }, locale, colorScheme, reducedMotion });
  const page = await context.newPage();
  const problems = [];
  const allowed = (u) => u.startsWith(env.server.url) || /^(data|blob|file|about):/.test(u);
  page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`); });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('request', (req) => { if (!allowed(req.url())) problems.push(`request left the machine: ${req.url()}`); });
  await context.route('**/*', (route) => (allowed(route.request().url()) ? route.continue() : route.abort()));
  page.problems = () => problems.slice();
  page.closeAll = () => context.close();
  return page;
}

/**
 * Waits on state, never on the clock: the network is idle (no request in flight) and the page
 * has painted two more frames, so whatever the last action scheduled for the next frame has run.
 * Use it before a check that something did NOT happen (no console error, no further step).
 */
export async function settle(page) {
  await page.waitForLoadState('networkidle');
  await frames(page, 2);
}

/** Resolves after the page has run `n` more animation frames (in the page, or in a frame). */
export function frames(target, n = 2) {
  return target.evaluate((count) => new Promise((resolve) => {
    const tick = (k) => (k === 0 ? resolve() : requestAnimationFrame(() => tick(k - 1)));
    tick(count);
  }), n);
}

export async function screenshot(page, name) {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/**
 * A picture of the whole demo page for a person to look at: the window (the page's top) by default;
 * the full length with QKV_FULL_PAGE_SCREENSHOTS=1 (five full-length pictures of the page took
 * most of a minute of the suite, and nothing reads them but a person).
 */
export async function pageScreenshot(page, name) {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: process.env.QKV_FULL_PAGE_SCREENSHOTS === '1' });
  return file;
}

/**
 * The bytes of a Playwright download. download.path() works only where the test launched the
 * browser itself; connected to the shared browser (run-all.sh, QKV_BROWSER_WS) it throws, so the
 * file is saved to a temporary path and read back, which works both ways.
 */
export async function downloadBytes(download) {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'qkv-download-'));
  try {
    const file = path.join(dir, 'file');
    await download.saveAs(file);
    return await fs.promises.readFile(file);
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}
