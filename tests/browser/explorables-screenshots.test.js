// explorables-screenshots.test.js: a picture of every explorable interaction, at 1280
// and 375 px, in zh and en, written to tests/artifacts/explorables-<lang>-<width>-<name>.png for a
// person to look at. What a picture cannot show by itself is checked (page-helpers.js, checkShot):
// each one is drawn (non-empty), its canvases hold more than one colour, nothing in it sticks out
// sideways (no horizontal overflow in the part shown), no console problem.
// One load of the page per language and width: the contents menu first (as the page opens), then
// each interaction at the settings of its shot, set with the page's own controls on that load as
// a reader changes them (page-helpers.js puts back what an earlier shot changed). iframe mode's
// notice needs a query no control sets: a load of its own. Then the widget's walkthrough.
import { test, before, after } from 'node:test';
import path from 'node:path';
import { openBrowser, ARTIFACTS } from './harness.js';
import { screenshotShots, screenshotShotsInOneLoad, goToStep } from './page-helpers.js';
import { openBlog, waitForWidget } from './widget-helpers.js';

let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env.close(); });

async function typeInto(page, selector, text) {
  await page.click(selector);
  await page.keyboard.press('Control+A');
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
}

/**
 * [name, settings, selector, prepare(page)], in an order where no shot's prepare leaves something
 * a later shot shows (the edited cell comes last: an edit is not a URL setting to put back).
 */
const SHOTS = [
  ['roles-weighting', {}, '#roles .stage', async (page) => { for (let k = 0; k < 3; k++) await page.click('#roles .step-forward'); }],
  ['projections-dk4', { dk: 4 }, '#projections', async (page) => page.click('#projections .step-forward')],
  ['scores-kq', { kq: true }, '#scores .stage', async (page) => { for (let k = 0; k < 4; k++) await page.click('#scores .step-forward'); }],
  ['scores-dot-geometry', {}, '#scores .dot-geometry', async (page) => {
    await page.click('#scores .geo-preset[data-preset="right"]');
    await page.focus('#scores .tip[data-vector="b"]');
    await page.keyboard.press('ArrowRight');
  }],
  ['softmax-whole', { temp: 0.2, scale: true }, '#softmax .softmax-whole', async () => {}],
  ['learnable-verdict', { seed: 123, sentence: '我 开 汽车 很 快', pull: 10 }, '#learnable .stage', async () => {}],
  ['symmetry-shared', { qk: true }, '#symmetry .stage', async () => {}],
  ['flow-prediction', {}, '#flow .stage', async (page) => page.focus('#flow .flow-stage[data-stage="P"]')],
  ['code-panel', { scale: true }, '#softmax .code-panel', async (page) => page.evaluate(() => {
    for (const d of document.querySelectorAll('#softmax .code-panel, #softmax .code-panel details')) d.open = true;
  })],
  ['embedding-edited', {}, '#embedding', async (page) => {
    await goToStep(page, 'projections', 0);   // where a fresh load opens it
    await typeInto(page, '#projections [data-matrix="X"] td[data-i="0"][data-j="0"]', '1000');
  }],
];

/** [name, query, selector, prepare(page)]: a load of its own each. */
const SHOTS_OF_THEIR_OWN = [
  ['embed-notice', '?embed=1&section=bogus', '#app', async () => {}],
];

for (const lang of ['en', 'zh']) {
  for (const width of [1280, 375]) {
    test(`screenshots of the explorable interactions, one load: ${lang}, ${width}px`, async () => {
      const page = await screenshotShotsInOneLoad(env, SHOTS, {
        prefix: 'explorables', lang, width,
        // the bar and its contents menu, far down the page (a picture of the window), then closed
        onLoad: async (opened) => {
          await opened.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight / 2));
          await opened.click('.toc-menu summary');
          await opened.screenshot({ path: path.join(ARTIFACTS, `explorables-${lang}-${width}-navigation.png`) });
          await opened.click('.toc-menu summary');
        },
      });
      await page.closeAll();
      await screenshotShots(env, SHOTS_OF_THEIR_OWN, { prefix: 'explorables', lang, width });
      // the widget's walkthrough at its last step
      const blog = await openBlog(env, { name: 'plain-post.html', width, height: 900, transform: (html) => html.replace('<qkv-lab id="first" lang="en">', `<qkv-lab id="first" lang="${lang}">`) });
      await waitForWidget(blog, 'first');
      for (let k = 0; k < 4; k++) await blog.click('#first .step-forward');
      await blog.locator('#first').screenshot({ path: path.join(ARTIFACTS, `explorables-${lang}-${width}-widget-walkthrough.png`) });
      await blog.closeAll();
    });
  }
}
