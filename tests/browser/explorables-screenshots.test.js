// explorables-screenshots.test.js: a picture of every explorable interaction, at 1280
// and 375 px, in zh and en, written to tests/artifacts/explorables-<lang>-<width>-<name>.png for a
// person to look at. What a picture cannot show by itself is checked here: each one is drawn
// (non-empty) and nothing in it sticks out sideways (no horizontal overflow in the part shown).
import { test, before, after } from 'node:test';
import path from 'node:path';
import { openBrowser, ARTIFACTS } from './harness.js';
import { openPage, screenshotShots } from './page-helpers.js';
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

/** [name, query, selector, prepare(page)] */
const SHOTS = [
  ['roles-weighting', '', '#roles .stage', async (page) => { for (let k = 0; k < 3; k++) await page.click('#roles .step-forward'); }],
  ['embedding-edited', '', '#embedding', async (page) => typeInto(page, '#projections [data-matrix="X"] td[data-i="0"][data-j="0"]', '1000')],
  ['projections-dk4', '?dk=4', '#projections', async (page) => page.click('#projections .step-forward')],
  ['scores-dot-geometry', '', '#scores .dot-geometry', async (page) => {
    await page.click('#scores .geo-preset[data-preset="right"]');
    await page.focus('#scores .tip[data-vector="b"]');
    await page.keyboard.press('ArrowRight');
  }],
  ['scores-kq', '?kq=1', '#scores .stage', async (page) => { for (let k = 0; k < 4; k++) await page.click('#scores .step-forward'); }],
  ['softmax-whole', '?temp=0.2&scale=1', '#softmax .softmax-whole', async () => {}],
  ['learnable-verdict', `?${new URLSearchParams({ seed: 123, sentence: '我 开 汽车 很 快', pull: 10 })}`, '#learnable .stage', async () => {}],
  ['symmetry-shared', '?qk=1', '#symmetry .stage', async () => {}],
  ['flow-prediction', '', '#flow .stage', async (page) => page.focus('#flow .flow-stage[data-stage="P"]')],
  ['code-panel', '?scale=1', '#softmax .code-panel', async (page) => page.evaluate(() => {
    for (const d of document.querySelectorAll('#softmax .code-panel, #softmax .code-panel details')) d.open = true;
  })],
  ['embed-notice', '?embed=1&section=bogus', '#app', async () => {}],
];

for (const lang of ['en', 'zh']) {
  for (const width of [1280, 375]) {
    test(`screenshots of the explorable interactions: ${lang}, ${width}px`, async () => {
      await screenshotShots(env, SHOTS, { prefix: 'explorables', lang, width });
      // the bar and its contents menu, far down the page (a picture of the window)
      const page = await openPage(env, { query: `?lang=${lang}`, width, height: 800 });
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight / 2));
      await page.click('.toc-menu summary');
      await page.screenshot({ path: path.join(ARTIFACTS, `explorables-${lang}-${width}-navigation.png`) });
      await page.closeAll();
      // the widget's walkthrough at its last step
      const blog = await openBlog(env, { name: 'plain-post.html', width, height: 900, transform: (html) => html.replace('<qkv-lab id="first" lang="en">', `<qkv-lab id="first" lang="${lang}">`) });
      await waitForWidget(blog, 'first');
      for (let k = 0; k < 4; k++) await blog.click('#first .step-forward');
      await blog.locator('#first').screenshot({ path: path.join(ARTIFACTS, `explorables-${lang}-${width}-widget-walkthrough.png`) });
      await blog.closeAll();
    });
  }
}
