// page-regressions.test.js: the twelve defects that a full review of the sections from roles to
// symmetry and of the data flow found, one test each, used as a reader would: in zh and en, at
// 1280 and 375 px, by mouse, keyboard and touch, in iframe mode. Each test is named after the
// defect it keeps fixed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, frames } from './harness.js';
import { openPage, row, position, ARTICLE, goToStep, goToLast, q } from './page-helpers.js';
import { openBlog, waitForWidget } from './widget-helpers.js';

let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env.close(); });



test('the learnable section says whom the pulled query favours, and why, instead of claiming 我 looks at itself', async () => {
  const page = await openPage(env, { query: q({ seed: 123, sentence: '我 开 汽车 很 快', pull: 10 }) });
  const verdict = await page.textContent('#learnable .verdict');
  assert.match(verdict, /does not make “我” look at itself most/);
  assert.match(verdict, /“快” gets 0\.749/);
  assert.match(verdict, /“我” only 0\.165/);
  assert.match(verdict, /length as well as its direction/);
  assert.match(verdict, /\|k_快\| = \d\.\d{3} against \|k_我\| = \d\.\d{3}/);
  assert.match(await page.textContent('#learnable .narration'), /largest share goes to “快”: 0\.749/);
  const titles = await page.$$eval('#learnable .card h3', (els) => els.map((e) => e.textContent));
  assert.ok(titles.every((t) => !/article/.test(t)), `a card claims the article's numbers: ${titles}`);
  // the same in Chinese
  await page.click('.lang-btn[data-lang="zh"]');
  assert.match(await page.textContent('#learnable .verdict'), /并没有让“我”最关注自己.*键的长度/);
  await page.closeAll();

  // the article's setting: 我 does look at itself, and the scaled card is the article's, at 5 only
  const article = await openPage(env);
  assert.match(await article.textContent('#learnable .verdict'), /“我” now looks at itself most: 0\.873 unscaled, 0\.695 scaled/);
  assert.match(await article.textContent('#learnable .card:last-child h3'), /the article’s numbers/);
  await article.click('#learnable .step-forward');
  assert.doesNotMatch(await article.textContent('#learnable .card:last-child h3'), /article/);
  await article.click('#learnable .step-first');
  assert.match(await article.textContent('#learnable .verdict'), /Factor 0: the query is all zeros.*0\.333 to each/);
  // seed 42 with another sentence: no article label, and the verdict still follows the numbers
  await article.selectOption('#embedding .sentence-select', '一只 狗 在 叫');
  await article.click('#learnable .step-forward');
  assert.equal(await article.getAttribute('#learnable .verdict', 'data-verdict'), 'other');
  assert.match(await article.textContent('#learnable .verdict'), /does not make “一只” look at itself most: “在” gets/);
  assert.deepEqual(article.problems(), []);
  await article.closeAll();
});

/** Types into a table cell as a reader does: click, select all, type, Enter. */
async function typeInto(page, selector, text) {
  await page.click(selector);
  await page.keyboard.press('Control+A');
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
}

/** The roles section's links, left (need → book) and right (book → result), as drawn: computed stroke widths. */
function linkWidths(page) {
  return page.$$eval('#roles svg.picture', (svgs) => {
    const svg = svgs.find((el) => el.getClientRects().length > 0);
    return [...svg.querySelectorAll('.link')].map((l) => parseFloat(getComputedStyle(l).strokeWidth));
  });
}

test('the roles section draws the weighting: each book\'s links as wide as its share', async () => {
  const page = await openPage(env);
  const widths = async (step) => {
    await goToStep(page, 'roles', step);
    return linkWidths(page);
  };
  const [need1, , need2, , need3] = await widths(1);   // compare: all links alike
  assert.equal(new Set([need1, need2, need3]).size, 1);
  const softmax = await widths(2);
  const shares = [softmax[0], softmax[2], softmax[4]];   // need → book 1, 2, 3
  assert.ok(shares[0] > shares[2] && shares[2] > shares[1], `softmax step: ${softmax}`);
  const value = await widths(3);
  assert.ok(value[1] > value[5] && value[5] > value[3], `value step: ${value}`);   // book → result
  await page.closeAll();
});

test('the roles section\'s picture keeps its text readable on a phone (12 px or more, zh and en)', async () => {
  for (const [locale, width] of [['en-US', 375], ['zh-CN', 375], ['en-US', 1280]]) {
    const page = await openPage(env, { locale, width, height: 800 });
    const sizes = await page.$$eval('#roles svg.picture', (svgs) => {
      const svg = svgs.find((el) => el.getClientRects().length > 0);
      const scale = svg.getScreenCTM().a;   // viewBox units → CSS pixels
      return [...svg.querySelectorAll('text')].map((t) => parseFloat(getComputedStyle(t).fontSize) * scale);
    });
    assert.ok(sizes.length >= 6);
    const smallest = Math.min(...sizes);
    assert.ok(smallest >= 12, `${locale} ${width}px: text drawn at ${smallest.toFixed(1)} px`);
    // and nothing sticks out of the section
    const overflow = await page.$eval('#roles .stage', (el) => el.scrollWidth - el.clientWidth);
    assert.ok(overflow <= 1, `${locale} ${width}px: the picture is ${overflow}px too wide`);
    await page.closeAll();
  }
});

test('an edited X is no longer called a look-up in the embedding section, and position vectors keep every edit', async () => {
  const page = await openPage(env);
  const x00 = '#projections [data-matrix="X"] td[data-i="0"][data-j="0"]';
  await typeInto(page, x00, '1000');
  await typeInto(page, '#projections [data-matrix="W_Q"] td[data-i="1"][data-j="2"]', '0.5');
  // embedding: the edited row is marked and the narration no longer says the look-up made it
  assert.equal(await page.textContent('#embedding [data-matrix="X"] td[data-i="0"][data-j="0"]'), '1000.000');
  assert.ok(await page.$eval('#embedding [data-matrix="X"] td[data-i="0"][data-j="0"]', (td) => td.classList.contains('edited')));
  await goToStep(page, 'embedding', 0);
  const narration = await page.textContent('#embedding .narration');
  assert.match(narration, /edited by hand/);
  assert.doesNotMatch(narration, /which becomes row 0 of X/);
  assert.match(await page.textContent('#embedding .edit-note'), /X\[我\]\[0\] = 1000\.000/);
  await page.click('#embedding .step-forward');   // row 1 was not edited: the look-up holds there
  assert.match(await page.textContent('#embedding .narration'), /which becomes row 1 of X/);
  // position vectors on: every edit stays, Undo stays available, nothing is lost without a word
  await page.check('#embedding .switch input');
  assert.equal(await page.textContent(x00), '1000.000');
  assert.equal(await page.textContent('#projections [data-matrix="W_Q"] td[data-i="1"][data-j="2"]'), '0.500');
  assert.equal(await page.isEnabled('#projections button:has-text("Undo edits")'), true);
  await page.uncheck('#embedding .switch input');
  assert.equal(await page.textContent(x00), '1000.000');
  // a new sentence makes a new X: the X edit goes, and the page says so where the reader is
  await page.selectOption('#embedding .sentence-select', '猫 很 可爱');
  assert.match(await page.textContent('#embedding .edit-note'), /Your edits of X were cleared: a new sentence makes a new X/);
  assert.equal(await page.textContent('#projections [data-matrix="W_Q"] td[data-i="1"][data-j="2"]'), '0.500');
  // a new seed draws new weights: the W edit goes, with a word in the projections section
  await page.fill('#projections .seed-input', '7');
  await page.press('#projections .seed-input', 'Enter');
  assert.match(await page.textContent('#projections .edit-note'), /Your edits of W_Q were cleared: a new seed draws new weights/);
  assert.equal(await page.isEnabled('#projections button:has-text("Undo edits")'), false);
  // in Chinese too
  await page.click('.lang-btn[data-lang="zh"]');
  assert.match(await page.textContent('#projections .edit-note'), /你对 W_Q 的编辑已清除/);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('the softmax section says softmax(S / √d_k) while √d_k is on, and stays complete when the sentence grows', async () => {
  const page = await openPage(env);
  await page.check('#softmax .scale-switch');
  for (const lang of ['zh', 'en']) {
    await page.click(`.lang-btn[data-lang="${lang}"]`);
    for (const id of ['softmax', 'mixing']) {
      assert.equal(await page.textContent(`#${id} [data-matrix="A"] caption`), 'A = softmax(S / √d_k)', `${id} in ${lang}`);
    }
  }
  await page.uncheck('#softmax .scale-switch');
  assert.equal(await page.textContent('#softmax [data-matrix="A"] caption'), 'A = softmax(S)');
  // the softmax section complete (the reader steps to its last step); a 4-word sentence keeps it complete
  await goToLast(page, 'softmax');
  assert.equal(await position(page, 'softmax'), 'step 4 of 4');
  await page.selectOption('#embedding .sentence-select', '我 养了 一只 兔');
  assert.equal(await position(page, 'softmax'), 'step 5 of 5');
  assert.equal((await row(page, 'softmax', 'A', 3)).includes('·'), false, 'the last row of A is still pending');
  assert.equal(await page.$$eval('#softmax .card.pending', (els) => els.length), 0);
  // a stepper that is not at its end keeps its place
  await goToStep(page, 'scores', 3);
  await page.selectOption('#embedding .sentence-select', '我 开 汽车 很 快');
  assert.equal(await position(page, 'scores'), 'step 4 of 27');
  await page.closeAll();
});

test('the scores section\'s refusal, on the Chinese page, is explained in Chinese next to the library\'s own words', async () => {
  for (const sentence of ['我 love 猫', '我 养了 一只 兔']) {   // n = d_k (shapes fit) and n ≠ d_k
    const page = await openPage(env, { locale: 'zh-CN', query: q({ sentence }) });
    const box = await page.textContent('#scores .error-box');
    assert.match(box, /matmul: A is 4×3 but B is 4×3; A's columns must equal B's rows/);
    assert.match(box, /意思是：A 是 4×3，B 是 4×3；A 的列数必须等于 B 的行数/);
    assert.equal(await page.getAttribute('#scores .error-box code', 'lang'), 'en');
    await page.click('.lang-btn[data-lang="en"]');
    assert.doesNotMatch(await page.textContent('#scores .error-box'), /意思/);
    await page.closeAll();
  }
});

test('hover readouts and highlights go away when the pointer leaves (the scores section\'s dot product, the symmetry section\'s mirror)', async () => {
  const page = await openPage(env);
  const cell = (id, i, j) => `#${id} [data-matrix="S"] td[data-i="${i}"][data-j="${j}"]`;
  const highlighted = (id) => page.$$eval(`#${id} [data-matrix="S"] td.hl-cell`, (tds) => tds.map((td) => `${td.dataset.i},${td.dataset.j}`));
  await page.hover(cell('scores', 1, 0));
  assert.match(await page.textContent('#scores .dot'), /S\[love\]\[我\].*= 0\.110/);
  await page.mouse.move(5, 5);   // away, over the page's header
  assert.doesNotMatch(await page.textContent('#scores .dot'), /0\.110/);
  assert.match(await page.textContent('#scores .dot'), /Hover over a cell/);
  assert.deepEqual(await highlighted('scores'), []);
  // at a step, leaving puts back the step's own cell
  await goToStep(page, 'scores', 3);   // S[我][love]
  await page.hover(cell('scores', 2, 2));
  assert.match(await page.textContent('#scores .dot'), /S\[猫\]\[猫\]/);
  await page.mouse.move(5, 5);
  assert.match(await page.textContent('#scores .dot'), /S\[我\]\[love\]/);
  assert.deepEqual(await highlighted('scores'), ['0,1']);
  // by keyboard: Tab away from a focused cell
  await page.focus(cell('scores', 2, 1));
  assert.match(await page.textContent('#scores .dot'), /S\[猫\]\[love\]/);
  await page.focus('#softmax .stage');
  assert.match(await page.textContent('#scores .dot'), /S\[我\]\[love\]/);
  // symmetry: the mirrored pair follows the pointer, then returns to the step's pair
  await page.hover(cell('symmetry', 0, 2));
  assert.deepEqual(await highlighted('symmetry'), ['0,2']);
  await page.mouse.move(5, 5);
  assert.deepEqual(await highlighted('symmetry'), ['0,1']);
  await page.closeAll();
});

test('the widget walkthrough\'s arrow sits between its inputs and its results at every step, phone and desktop', async () => {
  for (const width of [375, 1280]) {
    const page = await openBlog(env, { name: 'plain-post.html', width, height: 900 });
    await waitForWidget(page, 'first');
    for (let step = 2; step <= 5; step++) {
      await page.click('#first .step-forward');
      const boxes = await page.evaluate(() => {
        const root = document.getElementById('first').shadowRoot;
        const box = (el) => { const r = el.getBoundingClientRect(); return { left: r.left, right: r.right, top: r.top, bottom: r.bottom }; };
        return {
          inputs: box(root.querySelector('.walk-inputs')), results: box(root.querySelector('.walk-results')),
          arrow: box(root.querySelector('.walk-arrow')), glyph: root.querySelector('.walk-arrow').textContent,
          tables: [...root.querySelectorAll('.walk-flow table')].map(box),
        };
      });
      const { inputs, results, arrow, glyph, tables } = boxes;
      const where = `${width}px, step ${step}`;
      if (glyph === '→') {
        assert.ok(arrow.left >= inputs.right - 1 && arrow.right <= results.left + 1, `${where}: → is not between them`);
        assert.ok(results.top < inputs.bottom, `${where}: → points at results on another line`);
      } else {
        assert.equal(glyph, '↓', where);
        assert.ok(arrow.top >= inputs.bottom - 1 && arrow.bottom <= results.top + 1, `${where}: ↓ is not between them`);
      }
      const overlaps = tables.filter((t) => arrow.left < t.right && arrow.right > t.left && arrow.top < t.bottom && arrow.bottom > t.top);
      assert.equal(overlaps.length, 0, `${where}: the arrow overlaps a table`);
    }
    await page.closeAll();
  }
});

test('captions and shape lines use the names a reader knows (Kᵀ, not Kt; no nameless "mix")', async () => {
  const INTERNAL = /^(Kt|mix|scores|weights|output)\b/;
  for (const locale of ['en-US', 'zh-CN']) {
    const page = await openPage(env, { locale });
    const shapes = await page.$$eval('.qkv-section:not([data-section^="train"]) .matrix-shape', (els) => els.map((e) => e.textContent));
    assert.ok(shapes.length > 10);
    for (const text of shapes) assert.doesNotMatch(text, INTERNAL, `${locale}: ${text}`);
    assert.match(await page.textContent('#scores [data-matrix="Kt"] .matrix-shape'), /^Kᵀ[:：] ?3×3$/);
    // the review covered the sections from roles to symmetry and the data flow; the training sections have their own tests
    const captions = await page.$$eval('.qkv-section:not([data-section^="train"]) table.matrix caption', (els) => els.map((e) => e.textContent.trim()));
    assert.ok(captions.every(Boolean), `an empty caption: ${JSON.stringify(captions)}`);
    assert.match(await page.textContent('#mixing [data-matrix="mix"] caption'), /O\[我\] = Σⱼ A\[我\]\[j\] · V\[j\]/);
    assert.match(await page.textContent('#mixing [data-matrix="mix"] .matrix-shape'), locale === 'en-US' ? /^terms of O\[我\]: 4×3$/ : /^O\[我\] 的各项：4×3$/);
    assert.match(await page.getAttribute('#scores [data-matrix="Kt"] .csv-btn', 'aria-label'), /Kᵀ/);
    await page.closeAll();
  }
  // the widget's walkthrough: S, A, O as on the page
  const blog = await openBlog(env, { name: 'plain-post.html' });
  await waitForWidget(blog, 'first');
  for (let k = 0; k < 4; k++) await blog.click('#first .step-forward');
  const shapes = await blog.evaluate(() => [...document.getElementById('first').shadowRoot.querySelectorAll('.matrix-shape')].map((e) => e.textContent));
  assert.deepEqual(shapes.sort(), ['A: 3×3', 'O: 3×3', 'V: 3×3']);
  await blog.closeAll();
});

test('iframe mode says when ?section= (or any other parameter) fell back', async () => {
  for (const [query, expected] of [
    [q({ embed: 1, section: 'bogus', lang: 'en' }), /“bogus” is not a section here; showing “Self-attention, from X to the output” instead\./],
    [q({ embed: 1, section: 'bogus', lang: 'zh' }), /“bogus”不是这里的一节，改为显示“自注意力：从 X 到输出”。/],
    [q({ embed: 1, section: 'softmax', seed: 'x', lang: 'en' }), /fell back to their defaults: seed\./],
  ]) {
    const page = await openPage(env, { query });
    await page.waitForFunction(() => document.documentElement.dataset.embedSection);
    const notice = page.locator('.embed-notice');
    assert.equal(await notice.isVisible(), true, query);
    assert.match(await notice.textContent(), expected);
    await page.closeAll();
  }
  // a valid embed says nothing
  for (const query of [q({ embed: 1, section: 'walkthrough' }), q({ embed: 1 }), q({ embed: 1, section: 'scores' })]) {
    const page = await openPage(env, { query });
    await page.waitForFunction(() => document.documentElement.dataset.embedSection);
    assert.equal(await page.locator('.embed-notice').isVisible(), false, query);
    await page.closeAll();
  }
});

test('Enter in an edited cell keeps focus on the cell; a new sentence or seed does not stop a playing section', async () => {
  const page = await openPage(env);
  const cell = '#projections [data-matrix="W_Q"] td[data-i="2"][data-j="1"]';
  await typeInto(page, cell, '0.25');
  const focused = () => page.evaluate(() => {
    const el = document.activeElement;
    return el && el.matches('td.cell') ? `${el.closest('[data-matrix]').dataset.matrix}[${el.dataset.i}][${el.dataset.j}]` : el.tagName;
  });
  assert.equal(await focused(), 'W_Q[2][1]');
  assert.equal(await page.textContent(cell), '0.250');
  // the next number replaces the selected one; Escape keeps focus too; a refusal as well
  await page.keyboard.type('0.5');
  await page.keyboard.press('Enter');
  assert.equal(await page.textContent(cell), '0.500');
  await page.keyboard.type('abc');
  await page.keyboard.press('Enter');
  assert.equal(await page.textContent(cell), '0.500');
  assert.equal(await focused(), 'W_Q[2][1]');
  await page.keyboard.type('9');
  await page.keyboard.press('Escape');
  assert.equal(await page.textContent(cell), '0.500');
  assert.equal(await focused(), 'W_Q[2][1]');

  // playing through new data: the projections section near the end of a 4-word sentence, then a 3-word one
  // (its step no longer exists) and a new seed (it does)
  const playing = (id) => page.getAttribute(`#${id} .step-play`, 'aria-pressed');
  const index = (id) => page.$eval(`#${id} .step-position`, (el) => Number(/\d+/.exec(el.textContent)[0]));
  await page.selectOption('#embedding .sentence-select', '我 养了 一只 兔');
  await page.focus('#projections .stage');
  for (let k = 0; k < 28; k++) await page.keyboard.press('ArrowRight');
  assert.equal(await position(page, 'projections'), 'step 29 of 37');
  // at half speed (1.8 s a step) it plays for 14 s before it ends and stops itself: time for the
  // clicks below on a busy machine (at step 33 and full speed it had 3.6 s)
  await page.selectOption('#projections .step-speed', '0.5');
  await page.click('#projections .step-play');
  await page.click('#mixing .step-play');
  await page.selectOption('#embedding .sentence-select', '猫 很 可爱');
  assert.equal(await playing('projections'), 'true', 'the projections section stopped when the sentence changed');
  assert.ok((await index('projections')) < 28);
  const at = await index('projections');
  await page.waitForFunction((at) => Number(/\d+/.exec(document.querySelector('#projections .step-position').textContent)[0]) > at, at);
  await page.fill('#projections .seed-input', '11');
  await page.press('#projections .seed-input', 'Enter');
  assert.equal(await playing('projections'), 'true', 'the projections section stopped when the seed changed');
  const after = await index('projections');
  await page.waitForFunction((at) => Number(/\d+/.exec(document.querySelector('#projections .step-position').textContent)[0]) > at, after);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});
