// page-screenshots.test.js: the demo page's screenshot pass, one load of the page per language
// and width (en and zh, 1280 and 375 px). On each load, first the whole page as it opens: it is
// no wider than the window, and a picture of it (tests/artifacts/page-<lang>-<desktop|phone>.png:
// the window; its full length with QKV_FULL_PAGE_SCREENSHOTS=1). Then pictures of the sections
// "Why divide by √d_k", "Multi-head attention", "Positional encoding" and the data flow's heads
// stage, each at the settings of its shot, set with the page's own controls on that same load, as
// a reader changes them: tests/artifacts/chapters-<lang>-<width>-<name>.png. What a picture
// cannot show by itself is checked (page-helpers.js, checkShot): each one is drawn (not empty),
// its canvases hold pixels of more than one colour, nothing sticks out sideways, no console
// problem. Last, the page in the dark scheme: no wider than the window, and its picture.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, pageScreenshot } from './harness.js';
import { openPage, screenshotShotsInOneLoad, goToLast, goToStep } from './page-helpers.js';

let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env.close(); });

/**
 * [name, settings, selector, prepare(page)]: settings are URL settings (sdk, heads, ped,
 * sentence), set in place before the shot. Every section opens at its first step: the pictures of
 * a whole section are taken at its last step (where every part is filled in), with ▶| as a reader would.
 */
const SHOTS = [
  ['scaling', {}, '#scaling', (page) => goToLast(page, 'scaling')],
  ['multihead', {}, '#multihead', (page) => goToLast(page, 'multihead')],
  ['positions', {}, '#positions', (page) => goToLast(page, 'positions')],
  ['scaling-dk512', { sdk: 512 }, '#scaling .stage', (page) => goToLast(page, 'scaling')],
  ['scaling-dk4-raw-histogram', { sdk: 4 }, '#scaling .scaling-hist', (page) => goToStep(page, 'scaling', 1)],
  ['multihead-4-heads-head2', { heads: 4 }, '#multihead .stage', (page) => goToStep(page, 'multihead', 3)],
  ['flow-heads', { heads: 3 }, '#flow .stage', async (page) => page.focus('#flow .flow-stage[data-stage="heads"]')],
  ['positions-table-128', { ped: 128 }, '#positions .pe-picture', (page) => goToLast(page, 'positions')],
  ['positions-offsets', { ped: 16 }, '#positions .pe-offsets', (page) => goToLast(page, 'positions')],
  ['positions-problem', { sentence: '我 爱 猫' }, '#positions .pe-problem', (page) => goToLast(page, 'positions')],
];

/** The whole page is no wider than the window (wide tables scroll in their own box). */
async function noWiderThanTheWindow(page, label) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `${label}: the page is ${overflow}px wider than the screen`);
}

for (const lang of ['en', 'zh']) {
  for (const [width, kind] of [[1280, 'desktop'], [375, 'phone']]) {
    test(`screenshots, one load: the page and the chapters' sections, ${lang}, ${width}px`, async () => {
      const page = await screenshotShotsInOneLoad(env, SHOTS, {
        prefix: 'chapters', lang, width,
        onLoad: async (opened) => {
          await noWiderThanTheWindow(opened, `${lang} ${kind}`);
          await pageScreenshot(opened, `page-${lang}-${kind}`);
        },
      });
      await page.closeAll();
    });
  }
}

test('screenshots: the page in the dark scheme (en, desktop)', async () => {
  const dark = await openPage(env, { colorScheme: 'dark', width: 1280, height: 800 });
  await noWiderThanTheWindow(dark, 'en dark desktop');
  await pageScreenshot(dark, 'page-en-desktop-dark');
  assert.deepEqual(dark.problems(), []);
  await dark.closeAll();
});
