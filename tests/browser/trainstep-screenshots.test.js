// trainstep-screenshots.test.js: the one-step walkthrough at every one of its eight stages, at
// desktop (1280 px) and phone (375 px) widths, in Chinese and English, into
// tests/artifacts/trainstep-<case>-<n>-<stage>.png for a person to look at; at each stage nothing
// is wider than the phone's screen and no number reads NaN. In iframe mode, where it is the only
// section (a load of under a second, and smaller paints; its place in the page is
// training-review's and page-a11y's). Run after ./build.sh.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openBrowser, newPage, ARTIFACTS } from './harness.js';
import { badNumbers } from './training-helpers.js';

const STAGES = ['lookup', 'positions', 'attention', 'predict', 'loss', 'backward', 'update', 'after'];
const CASES = [
  { name: 'desktop-zh', width: 1280, lang: 'zh' },
  { name: 'desktop-en', width: 1280, lang: 'en' },
  { name: 'phone-zh', width: 375, lang: 'zh' },
  { name: 'phone-en', width: 375, lang: 'en', colorScheme: 'dark' },
];

let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env?.close(); });

for (const c of CASES) {
  test(`walkthrough screenshots, every stage: ${c.name}`, async () => {
    const page = await newPage(env, { width: c.width, height: 900, colorScheme: c.colorScheme || 'light', reducedMotion: 'reduce' });
    // a run part-way through training: step 0 and now differ
    await page.goto(env.url(`index.html?embed=1&section=trainstep&lang=${c.lang}&step=120`));
    await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
    const section = page.locator('section[data-section="trainstep"]');
    await section.scrollIntoViewIfNeeded();
    await page.waitForSelector('section[data-section="trainstep"][data-state="ready"]', { timeout: 60000 });
    await page.evaluate(() => document.fonts.ready);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    for (const [i, stage] of STAGES.entries()) {
      await section.locator(`.ts-flow button[data-stage="${stage}"]`).click();
      const overflow = await section.evaluate((el) => {
        const limit = document.documentElement.clientWidth;
        // a wide table scrolls inside its own box: only what sticks out of the page counts
        return [...el.querySelectorAll('*')].filter((n) => !n.closest('.matrix-scroll') && n.getBoundingClientRect().right > limit + 1)
          .map((n) => `${n.tagName.toLowerCase()}.${n.className}`).slice(0, 5);
      });
      assert.deepEqual(overflow, [], `${c.name} ${stage}: elements past the right edge`);
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth), true, `${c.name} ${stage}: the page scrolls sideways`);
      assert.deepEqual(badNumbers(await section.evaluate((el) => el.innerText)), [], `${c.name} ${stage}`);
      await section.screenshot({ path: path.join(ARTIFACTS, `trainstep-${c.name}-${i + 1}-${stage}.png`) });
    }
    assert.deepEqual(page.problems(), []);
    await page.closeAll();
  });
}
