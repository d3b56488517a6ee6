// harness.js: what every browser test shares: a local server for web/, Debian's Chromium driven
// by playwright-core, and a page wrapper that records console errors, page errors and every
// request that would leave the machine (tools/browser.mjs, which the page's benchmark uses too);
// waiting on the page's state, and screenshots, which go to tests/artifacts/ (git-ignored).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export { ROOT, CHROMIUM, openBrowser, newPage } from '../../tools/browser.mjs';
import { ROOT } from '../../tools/browser.mjs';

export const ARTIFACTS = path.join(ROOT, 'tests', 'artifacts');

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
