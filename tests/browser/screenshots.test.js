// screenshots.test.js: the demo page's screenshot pass, one load of the page per language and
// width (en and zh, 1280 and 375 px), for a person to look at in tests/artifacts/. On each load:
// - the page as it opens: no wider than the window, and a picture of it
//   (page-<lang>-<desktop|phone>.png: the window; its full length with QKV_FULL_PAGE_SCREENSHOTS=1),
//   then the bar's contents menu, far down the page (explorables-<lang>-<width>-navigation.png);
// - the sections "Why divide by √d_k", "Multi-head attention", "Positional encoding" and the data
//   flow's heads stage at the settings of each shot (chapters-<lang>-<width>-<name>.png);
// - a question and its feedback, the exercises turned on with the page's switch
//   (quiz-<lang>-<width>-<name>.png);
// - every explorable interaction (explorables-<lang>-<width>-<name>.png).
// Each shot's settings are set with the page's own controls on that load, as a reader changes
// them, and a setting an earlier shot changed is put back first (page-helpers.js); each shot puts
// its steppers where its picture needs them. The edited cell comes last: an edit is not a setting
// to put back. What a picture cannot show by itself is checked (page-helpers.js, checkShot): each
// one is drawn (not empty), its canvases hold pixels of more than one colour, nothing sticks out
// sideways, no console problem. Then, per language and width, iframe mode's notice (a query no
// control sets: a load of its own) and the widget's walkthrough; last, the page in the dark scheme.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { openBrowser, pageScreenshot, ARTIFACTS } from './harness.js';
import { openPage, screenshotShots, screenshotShotsInOneLoad, goToLast, goToStep, quizOf, feedback, forwardToQuestion } from './page-helpers.js';
import { openBlog, waitForWidget } from './widget-helpers.js';

let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env.close(); });

/**
 * [name, settings, selector, prepare(page), prefix]: settings are URL settings (sdk, heads, ped,
 * sentence, quiz, …), set in place before the shot. The pictures of a whole section are taken at
 * its last step (where every part is filled in), with ▶| as a reader would.
 */
const CHAPTERS = [
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
].map((shot) => [...shot, 'chapters']);

const QUIZ = [
  ['softmax-question', { quiz: true }, '#softmax', async () => {}],
  ['scores-feedback', { quiz: true }, '#scores', async (page) => {
    await forwardToQuestion(page, 'scores');
    await page.check(`${quizOf('scores')} [data-role=quiz-choice] >> nth=1`);
    await page.click(`${quizOf('scores')} [data-role=quiz-check]`);
    await page.waitForSelector(`${feedback('scores')}[data-result]`);
  }],
].map((shot) => [...shot, 'quiz']);

async function typeInto(page, selector, text) {
  await page.click(selector);
  await page.keyboard.press('Control+A');
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
}

const EXPLORABLES = [
  ['roles-weighting', {}, '#roles .stage', (page) => goToStep(page, 'roles', 3)],
  ['projections-dk4', { dk: 4 }, '#projections', (page) => goToStep(page, 'projections', 1)],
  ['scores-kq', { kq: true }, '#scores .stage', (page) => goToStep(page, 'scores', 4)],
  ['scores-dot-geometry', {}, '#scores .dot-geometry', async (page) => {
    await page.click('#scores .geo-preset[data-preset="right"]');
    await page.focus('#scores .tip[data-vector="b"]');
    await page.keyboard.press('ArrowRight');
  }],
  ['softmax-whole', { temp: 0.2, scale: true }, '#softmax .softmax-whole', async () => {}],
  ['learnable-verdict', { seed: 123, sentence: '我 开 汽车 很 快', pull: 10 }, '#learnable .stage', async () => {}],
  ['symmetry-shared', { qk: true }, '#symmetry .stage', async () => {}],
  ['flow-prediction', {}, '#flow .stage', async (page) => {
    // the pointer, where the last click left it, would preview the stage it ends up over (a
    // hover wins over the focus) once the picture scrolls: out of the way, at the window's corner
    const { width, height } = page.viewportSize();
    await page.mouse.move(width - 1, height - 1);
    await page.focus('#flow .flow-stage[data-stage="P"]');
  }],
  ['code-panel', { scale: true }, '#softmax .code-panel', async (page) => page.evaluate(() => {
    for (const d of document.querySelectorAll('#softmax .code-panel, #softmax .code-panel details')) d.open = true;
  })],
  ['embedding-edited', {}, '#embedding', async (page) => {
    await goToStep(page, 'projections', 0);   // where a fresh load opens it
    await typeInto(page, '#projections [data-matrix="X"] td[data-i="0"][data-j="0"]', '1000');
  }],
].map((shot) => [...shot, 'explorables']);

/** [name, query, selector, prepare(page)]: a load of its own each. */
const SHOTS_OF_THEIR_OWN = [
  ['embed-notice', '?embed=1&section=bogus', '#app', async () => {}],
];

/** The whole page is no wider than the window (wide tables scroll in their own box). */
async function noWiderThanTheWindow(page, label) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `${label}: the page is ${overflow}px wider than the screen`);
}

for (const lang of ['en', 'zh']) {
  for (const [width, kind] of [[1280, 'desktop'], [375, 'phone']]) {
    test(`screenshots, one load: the page, the chapters' sections, a question and its feedback, the explorable interactions, ${lang}, ${width}px`, async () => {
      const page = await screenshotShotsInOneLoad(env, [...CHAPTERS, ...QUIZ, ...EXPLORABLES], {
        prefix: 'page', lang, width,
        onLoad: async (opened) => {
          await noWiderThanTheWindow(opened, `${lang} ${kind}`);
          await pageScreenshot(opened, `page-${lang}-${kind}`);
          // the bar and its contents menu, far down the page (a picture of the window), then closed
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

test('screenshots: the page in the dark scheme (en, desktop)', async () => {
  const dark = await openPage(env, { colorScheme: 'dark', width: 1280, height: 800 });
  await noWiderThanTheWindow(dark, 'en dark desktop');
  await pageScreenshot(dark, 'page-en-desktop-dark');
  assert.deepEqual(dark.problems(), []);
  await dark.closeAll();
});
