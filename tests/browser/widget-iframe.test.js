// iframe mode (web/page/shell/embed.js): ?embed=1&section=… shows one section without the page's
// chrome and posts its height, and the documented host snippet sizes the iframe to fit.
// First on a small page shaped like qkv-lab's (embed.js alone), then on the real page, served
// and as the single file, once main.js calls applyEmbedMode.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openBrowser, screenshot, ROOT } from './harness.js';
import { newBlogPage } from './widget-helpers.js';
import { openPage, row, ARTICLE } from './page-helpers.js';

const MAIN = fs.readFileSync(path.join(ROOT, 'web/page/shell/main.js'), 'utf8');

let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env.close(); });

/** The host fixture with its iframe pointed at src; resolves once the frame has loaded. */
async function openHost(src, options = {}) {
  const page = await newBlogPage(env, options);
  await page.goto(env.url('fixtures/embed-host.html'));
  await page.evaluate((src) => new Promise((resolve) => {
    const frame = document.getElementById('frame');
    frame.addEventListener('load', resolve, { once: true });
    frame.src = src;
  }), src);
  return { page, frame: await (await page.$('#frame')).contentFrame() };
}

/** What is visible inside the frame: sections, chrome, and heights. */
function inside(frame) {
  return frame.evaluate(() => {
    const visible = (el) => Boolean(el) && el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
    const root = document.getElementById('app');
    return {
      sections: [...document.querySelectorAll('section[data-section], .qkv-section')].filter(visible).map((el) => el.dataset.section),
      header: visible(document.querySelector('header')),
      footer: visible(document.querySelector('footer')),
      contentHeight: Math.ceil(root.getBoundingClientRect().bottom + scrollY),
      embedSection: document.documentElement.dataset.embedSection || null,
    };
  });
}

const frameHeight = (page) => page.evaluate(() => document.getElementById('frame').clientHeight);

test('embed.js on a page shaped like qkv-lab\'s: one section, no chrome, the iframe fits it', async () => {
  const { page, frame } = await openHost('/fixtures/embed-frame.html?embed=1&section=b');
  await frame.waitForSelector('body[data-ready="true"]');
  const seen = await inside(frame);
  assert.deepEqual(seen.sections, ['b']);
  assert.equal(seen.header, false);
  assert.equal(seen.footer, false);
  assert.equal(seen.embedSection, 'b');
  await page.waitForFunction((h) => Math.abs(document.getElementById('frame').clientHeight - h) <= 1, seen.contentHeight);
  // the content grows: the iframe follows
  await frame.evaluate(() => { for (let k = 0; k < 30; k++) document.getElementById('b-text').append(document.createElement('br'), 'more text'); });
  const grown = (await inside(frame)).contentHeight;
  assert.ok(grown > seen.contentHeight + 300);
  await page.waitForFunction((h) => Math.abs(document.getElementById('frame').clientHeight - h) <= 1, grown);
  // show() switches the section; destroy() gives the whole page back
  await frame.evaluate(() => window.embed.show('c'));
  assert.deepEqual((await inside(frame)).sections, ['c']);
  await frame.evaluate(() => window.embed.destroy());
  const restored = await inside(frame);
  assert.deepEqual(restored.sections, ['a', 'b', 'c']);
  assert.equal(restored.header, true);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('without ?embed=1 embed.js does nothing', async () => {
  const { page, frame } = await openHost('/fixtures/embed-frame.html?section=b');
  await frame.waitForSelector('body[data-ready="true"]');
  const seen = await inside(frame);
  assert.deepEqual(seen.sections, ['a', 'b', 'c']);
  assert.equal(seen.header, true);
  assert.equal(await frame.evaluate(() => window.embed.active), false);
  assert.equal(await frameHeight(page), 200, 'no height message: the iframe keeps its own height');
  await page.closeAll();
});

for (const [label, src, section, check] of [
  ['served page, softmax in English', '/index.html?embed=1&section=softmax&lang=en', 'softmax', /0\.313/],
  ['single file, scores in Chinese', '/dist/qkv-lab.html?embed=1&section=scores&lang=zh', 'scores', /0\.149.*-0\.041.*0\.194/s],
  ['served page, no section: the walkthrough', '/index.html?embed=1&lang=en', 'walkthrough', /Self-attention, from X to the output/],
]) {
  test(`iframe mode, ${label}: a single section, sized to fit`, async () => {
    const { page, frame } = await openHost(src, { width: 900 });
    await frame.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
    await frame.waitForFunction(() => document.documentElement.dataset.embedSection);
    const seen = await inside(frame);
    assert.deepEqual(seen.sections, [section]);
    assert.equal(seen.header, false);
    assert.equal(seen.footer, false);
    assert.match(await frame.evaluate(() => document.getElementById('app').innerText), check);
    await page.waitForFunction((h) => Math.abs(document.getElementById('frame').clientHeight - h) <= 2, seen.contentHeight);
    assert.equal(await page.evaluate(() => scrollY), 0, 'the embedded page must not scroll its host');
    await screenshot(page, `widget-iframe-${section}`);
    assert.deepEqual(page.problems(), []);
    await page.closeAll();
  });
}

// An iframe shows one section, so it builds that one alone (a post with three iframes built the
// whole page three times); a link inside it to another section (a data-flow stage, a "see" link)
// builds that section then, and shows it in its place.
test('iframe mode builds only the section it shows; a link to another builds and shows that one', async () => {
  const page = await openPage(env, { query: '?embed=1&section=flow&lang=en' });
  const built = () => page.$$eval('.qkv-section', (els) => els.map((el) => [el.id, el.getClientRects().length > 0]));
  const shown = (id) => page.waitForFunction((id) => document.documentElement.dataset.embedSection === id, id);
  assert.deepEqual(await built(), [['flow', true]]);
  await page.click('#flow .flow-stage[data-stage="S"]');
  await shown('scores');
  assert.deepEqual(await built(), [['flow', false], ['scores', true]]);
  assert.deepEqual(await row(page, 'scores', 'Q', 0), ARTICLE.Q0);
  // the positions section, then its link to the embedding section: each built once
  await page.evaluate(() => document.querySelector('#flow .flow-stage[data-stage="PE"]').click());
  await shown('positions');
  await page.click('#positions a[data-section-ref="embedding"]');
  await shown('embedding');
  assert.deepEqual(await built(), [['flow', false], ['scores', false], ['positions', false], ['embedding', true]]);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});
