// training-screenshots.test.js: the training section at desktop (1280 px) and phone (375 px) widths, in
// Chinese and English, light and dark, into tests/artifacts/training-*.png for a person to look
// at, with the loss chart's hover readout showing; and checks that nothing overflows the phone's
// width and no number reads NaN.
// Run after ./build.sh.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openBrowser, ARTIFACTS } from './harness.js';
import { openTraining, readState, badNumbers } from './training-helpers.js';

let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env?.close(); });

const CASES = [
  { name: 'desktop-zh', width: 1280, lang: 'zh' },
  { name: 'desktop-en', width: 1280, lang: 'en' },
  { name: 'phone-zh', width: 375, lang: 'zh' },
  { name: 'phone-en', width: 375, lang: 'en' },
  { name: 'desktop-en-dark', width: 1280, lang: 'en', colorScheme: 'dark' },
  { name: 'phone-zh-dark', width: 375, lang: 'zh', colorScheme: 'dark' },
];

for (const c of CASES) {
  test(`screenshot ${c.name}`, async () => {
    const { page, section } = await openTraining(env, {
      query: 'step=119', lang: c.lang, width: c.width, height: 900, colorScheme: c.colorScheme || 'light', reducedMotion: 'reduce',
    });
    await section.locator('button[data-role="step"]').click();  // step 120: a batch, flashed rows
    const s = await readState(section);
    assert.equal(s.step, 120);
    assert.deepEqual(badNumbers(s.text), []);
    // the pointer over the loss chart: its hover readout shows in the screenshot
    const canvas = section.locator('canvas[data-chart="loss"]');
    await canvas.scrollIntoViewIfNeeded();
    const box = await canvas.boundingBox();
    await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.5);
    await section.locator('.tr-loss-card [data-role="readout"]').waitFor({ state: 'visible', timeout: 60000 });
    // nothing wider than the viewport (a phone must not scroll sideways)
    const overflow = await section.evaluate((el) => {
      const limit = document.documentElement.clientWidth;
      return [...el.querySelectorAll('*')].filter((n) => n.getBoundingClientRect().right > limit + 1)
        .map((n) => `${n.tagName.toLowerCase()}.${n.className}`).slice(0, 5);
    });
    assert.deepEqual(overflow, [], `${c.name}: elements past the right edge`);
    await page.evaluate(() => document.fonts.ready);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    // the section alone (harness.screenshot() takes the whole page)
    await section.screenshot({ path: path.join(ARTIFACTS, `training-${c.name}.png`) });
    assert.deepEqual(page.problems(), []);
    await page.closeAll();
  });
}
