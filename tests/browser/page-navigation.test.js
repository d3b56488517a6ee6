// page-navigation.test.js: finding one's way in the long page: the table of contents, the bar that
// keeps the contents menu and the language switch in reach, and deep links (#id, ?section=id),
// at 1280 and 375 px, by mouse and by keyboard. Every wait is on state (the scroll has settled,
// the URL has changed), never on the clock.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, frames } from './harness.js';
import { openPage, landedOn } from './page-helpers.js';
import { SECTION_IDS } from '../../web/page/sections/index.js';

let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env.close(); });

for (const [width, kind] of [[1280, 'desktop'], [375, 'phone']]) {
  test(`${kind}: the contents list every section and jump to it; the bar stays in reach`, async () => {
    const page = await openPage(env, { width, height: 800 });
    const toc = await page.$$eval('nav.toc a', (as) => as.map((a) => [a.getAttribute('href'), a.textContent]));
    assert.deepEqual(toc.map(([href]) => href), SECTION_IDS.map((id) => `#${id}`));
    const titles = await page.$$eval('.qkv-section .section-title', (hs) => hs.map((h) => h.textContent));
    assert.deepEqual(toc.map(([, text]) => text), titles.map((t, k) => `${k + 1}. ${t}`));
    // a jump from the contents under the title
    await page.click('nav.toc a[href="#softmax"]');
    await landedOn(page, 'softmax');
    assert.match(page.url(), /section=softmax/);
    assert.equal(await page.evaluate(() => document.activeElement.closest('.qkv-section')?.id), 'softmax');
    assert.equal(await page.getAttribute('.toc-menu a[href="#softmax"]', 'aria-current'), 'location');
    // far down the page, the bar is still on screen, and its menu jumps back up
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    const bar = await page.$eval('.page-bar', (el) => el.getBoundingClientRect().toJSON());
    assert.ok(bar.top >= 0 && bar.bottom <= 120, `the bar is off screen: ${JSON.stringify(bar)}`);
    assert.equal(await page.isVisible('.page-bar .lang-btn[data-lang="zh"]'), true);
    await page.click('.toc-menu summary');
    await page.click('.toc-menu a[href="#scores"]');
    assert.equal(await page.$eval('.toc-menu', (d) => d.open), false, 'the menu stays open after a jump');
    await landedOn(page, 'scores');
    assert.match(page.url(), /section=scores/);
    // the language switch, used from the middle of the page: the reader stays where they were
    const before = await page.evaluate(() => document.getElementById('scores').getBoundingClientRect().top);
    await page.click('.page-bar .lang-btn[data-lang="zh"]');
    assert.match(await page.textContent('#scores .section-title'), /为什么/);
    assert.match(await page.textContent('.toc-menu a[href="#scores"]'), /^4\. 为什么是 Q×Kᵀ/);
    // where the reader is once the switch has settled: the page holds the section for 12 frames
    // while sections redraw (web/page/shell/main.js), each frame's shift put back on the next
    await frames(page, 13);
    const after = await page.evaluate(() => document.getElementById('scores').getBoundingClientRect().top);
    assert.ok(Math.abs(after - before) < 1, `switching the language moved the page by ${after - before}px`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
    assert.ok(overflow <= 1, `the page is ${overflow}px wider than the screen`);
    assert.deepEqual(page.problems(), []);
    await page.closeAll();
  });
}

test('the contents menu by keyboard: open, move, Escape closes it and gives focus back', async () => {
  const page = await openPage(env, { width: 375, height: 800 });
  await page.focus('.toc-menu summary');
  await page.keyboard.press('Enter');
  assert.equal(await page.$eval('.toc-menu', (d) => d.open), true);
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('href')), '#roles');
  await page.keyboard.press('Escape');
  assert.equal(await page.$eval('.toc-menu', (d) => d.open), false);
  assert.equal(await page.evaluate(() => document.activeElement.tagName), 'SUMMARY');
  // and a jump by Enter on an entry
  await page.keyboard.press('Enter');
  for (let k = 0; k < 8; k++) await page.keyboard.press('Tab');   // 1 … 8: the eighth entry
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('href')), '#symmetry');
  await page.keyboard.press('Enter');
  await landedOn(page, 'symmetry');
  assert.equal(await page.evaluate(() => document.activeElement.closest('.qkv-section')?.id), 'symmetry');
  await page.closeAll();
});

test('deep links: #id and ?section=id open the page at that section; every section has its own #link', async () => {
  for (const [query, id] of [['#mixing', 'mixing'], ['?section=learnable', 'learnable'], ['?lang=zh#flow', 'flow']]) {
    const page = await openPage(env, { query, width: 1280, height: 800 });
    await landedOn(page, id);
    assert.match(page.url(), new RegExp(`section=${id}`));
    await page.closeAll();
  }
  const page = await openPage(env, { width: 1280, height: 800 });
  const links = await page.$$eval('.qkv-section .section-link', (as) => as.map((a) => [a.closest('.qkv-section').id, a.getAttribute('href'), a.getAttribute('aria-label')]));
  assert.deepEqual(links.map(([id, href]) => href === `#${id}`), SECTION_IDS.map(() => true));
  assert.match(links[3][2], /^Link to this section: 4\. Why Q×Kᵀ/);
  // a text names another section by its title, as a link that goes there (never "Section 2")
  const ref = page.locator('#positions .section-intro a[data-section-ref="embedding"]');
  assert.equal(await ref.textContent(), await page.textContent('#embedding .section-title'));
  await ref.click();
  await landedOn(page, 'embedding');
  await page.click('#embedding .section-link');
  await page.waitForFunction(() => location.hash === '#embedding');
  await landedOn(page, 'embedding');
  assert.match(page.url(), /section=embedding/);
  await page.closeAll();
});

test('a jump lands on its section while the page grows around it, and lets go once the reader scrolls', async () => {
  const page = await openPage(env, { width: 1280, height: 800 });
  // from the end of the page, a jump up to the projections section; while the smooth scroll is under way, a
  // section between the target and the screen grows (as the training sections do when their model
  // is built): the browser's scroll anchoring then moves the page, which cancels a smooth scroll
  await page.evaluate(() => scrollTo(0, document.documentElement.scrollHeight));
  await frames(page, 2);
  await page.click('.toc-menu summary');
  await page.click('.toc-menu a[href="#projections"]');
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => {
    const grow = (px) => document.getElementById('symmetry').append(Object.assign(document.createElement('div'), { style: `height:${px}px` }));
    grow(1500);
    requestAnimationFrame(() => { grow(300); done(); });
  })));
  await landedOn(page, 'projections');
  // once in place, the page growing above it keeps the section where it is
  await page.evaluate(() => document.getElementById('roles').append(Object.assign(document.createElement('div'), { style: 'height:400px' })));
  await landedOn(page, 'projections');
  // and a scroll of the reader's own (here a script's, as a scrollbar drag fires no input event) is kept
  const y = await page.evaluate(() => { scrollTo(0, 200); return scrollY; });
  await frames(page, 10);
  assert.equal(await page.evaluate(() => scrollY), y);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('the training run, built when its section is first seen, does not move the page below it when it arrives', async () => {
  const page = await openPage(env, { width: 1280, height: 800 });
  // down to the data-flow section with the training section's last 20 px still on screen (under
  // the bar): the training section comes into view, builds its run and grows by hundreds of
  // pixels above what the reader looks at. (Without overflow-anchor: none on the pending section,
  // the browser anchors in that strip, and the data flow moved down by 172 px.)
  const before = await page.evaluate(() => {
    scrollTo(0, scrollY + document.getElementById('training').getBoundingClientRect().bottom - 20);
    return document.getElementById('flow').getBoundingClientRect().top;
  });
  await page.waitForFunction(() => {
    const training = document.getElementById('training');
    return training.querySelectorAll('.heat-row').length > 0 &&
      ![...document.querySelectorAll('.qkv-pending')].some((el) => el.contains(training) || training.contains(el));
  }, null, { timeout: 60000 });
  await frames(page, 3);
  const after = await page.evaluate(() => document.getElementById('flow').getBoundingClientRect().top);
  assert.ok(Math.abs(after - before) < 1, `the data-flow section moved by ${after - before}px when the training run arrived`);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('iframe mode shows neither the bar nor the contents', async () => {
  const page = await openPage(env, { query: '?embed=1&section=scores' });
  await page.waitForFunction(() => document.documentElement.dataset.embedSection === 'scores');
  assert.equal(await page.isVisible('.page-bar'), false);
  assert.equal(await page.isVisible('nav.toc'), false);
  assert.equal(await page.isVisible('#scores .section-title'), true);
  await page.closeAll();
});
