// The demo page used as a reader would: stepping forward and back (buttons and keys), hovering
// a score cell, editing cells (good and bad input), the scale and Q = K switches, the language
// switch and URL round trip, a hostile URL, and reduced motion.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, frames } from './harness.js';
import { openPage, row, position, ARTICLE, goToLast } from './page-helpers.js';
import { SECTION_IDS } from '../../web/page/sections/index.js';

let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env.close(); });

// every stepped section (the training section has its own controls: training-*.test.js; so has
// the writer, whose stepper walks the samples its run has written, one before it starts:
// gpt-sections.test.js trains it; stepping its samples is not tested yet; and so has fine-tuning,
// whose samples are its run's: finetune-section.test.js runs it)
const SECTIONS = SECTION_IDS.filter((id) => id !== 'training' && id !== 'writer' && id !== 'finetune');

test('every section steps forward and back, with buttons and with the keyboard', async () => {
  const page = await openPage(env);
  for (const id of SECTIONS) {
    // a section with data of its own (the training walkthrough) computes it once seen: step it
    // when it has arrived, not while it says "not ready"
    await page.$eval(`#${id}`, (el) => el.scrollIntoView());
    await page.waitForFunction((id) => !document.getElementById(id).classList.contains('qkv-pending'), id, { timeout: 60000 });
    // generation opens on the pretrained poet, which it loads once seen (data-writing: loading,
    // then who writes): its steps are the poem's once the poet is there
    await page.waitForFunction((id) => !['loading', 'waiting'].includes(document.getElementById(id).dataset.writing), id, { timeout: 120000 });
    // …and then writes it by itself (section-shell.js playsOnOpen): the reader takes over with ⏸
    await page.waitForFunction((id) => document.getElementById(id).dataset.opening !== 'armed', id, { timeout: 60000 });
    if (await page.getAttribute(`#${id} .step-play`, 'aria-pressed') === 'true') {
      await page.click(`#${id} .step-play`);
      assert.equal(await page.getAttribute(`#${id} .step-play`, 'aria-pressed'), 'false', `${id}: ⏸ stops the play it started by itself`);
    }
    const start = await position(page, id);
    const narration = await page.textContent(`#${id} .narration`);
    const atEnd = await page.$eval(`#${id} .step-forward`, (b) => b.disabled);
    if (atEnd) {
      await page.click(`#${id} .step-back`);
      assert.notEqual(await position(page, id), start, `${id}: back`);
      await page.click(`#${id} .step-forward`);
    } else {
      await page.click(`#${id} .step-forward`);
      assert.notEqual(await position(page, id), start, `${id}: forward`);
      assert.notEqual(await page.textContent(`#${id} .narration`), narration, `${id}: narration`);
      await page.click(`#${id} .step-back`);
    }
    assert.equal(await position(page, id), start, `${id}: back where it started`);
    // keys while the stage has focus
    await page.focus(`#${id} .stage`);
    await page.keyboard.press(atEnd ? 'ArrowLeft' : 'ArrowRight');
    assert.notEqual(await position(page, id), start, `${id}: arrow key`);
    await page.keyboard.press(atEnd ? 'ArrowRight' : 'ArrowLeft');
    assert.equal(await position(page, id), start, `${id}: arrow key back`);
  }
  // space plays; the projections animation advances on its own, space again pauses
  await page.focus('#projections .stage');
  await page.keyboard.press(' ');
  await page.waitForFunction(() => document.querySelector('#projections .step-position').textContent !== 'step 1 of 28');
  // while playing, the button shows pause as drawn bars, not ⏸, which common font sets lack (an empty box)
  const glyph = await page.$eval('#projections .step-play', (b) => ({ pressed: b.getAttribute('aria-pressed'), text: b.innerText.trim(), bars: b.querySelectorAll('svg.pause-glyph rect').length, shown: getComputedStyle(b.querySelector('svg.pause-glyph')).display }));
  assert.deepEqual(glyph, { pressed: 'true', text: '', bars: 2, shown: 'inline' });
  await page.keyboard.press(' ');
  assert.notEqual(await position(page, 'projections'), 'step 1 of 28');
  assert.equal(await page.getAttribute('#projections .step-play', 'aria-pressed'), 'false');
  assert.match(await page.getAttribute('#projections .narration', 'aria-live'), /polite/);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('hovering or focusing a score cell writes out its dot product', async () => {
  const page = await openPage(env);
  await page.hover('#scores [data-matrix="S"] td[data-i="0"][data-j="1"]');
  const text = await page.textContent('#scores .dot');
  assert.match(text, /S\[我\]\[love\]/);
  assert.ok(text.includes('0.149×(-0.169) + (-0.041)×(-0.304) + 0.194×0.094 = 0.006'), text);
  await page.focus('#scores [data-matrix="S"] td[data-i="2"][data-j="2"]');
  assert.match(await page.textContent('#scores .dot'), /S\[猫\]\[猫\].*= -0\.290/);
  await page.closeAll();
});

async function typeInto(page, selector, text) {
  await page.click(selector);
  await page.keyboard.press('Control+A');
  if (text === '') await page.keyboard.press('Delete'); else await page.keyboard.type(text);
  await page.keyboard.press('Enter');
}

test('editing a cell recomputes downstream; bad input is refused with a message', async () => {
  const page = await openPage(env);
  const cell = '#projections [data-matrix="X"] td[data-i="0"][data-j="0"]';
  await typeInto(page, cell, '2');
  assert.equal(await page.textContent(cell), '2.000');
  assert.deepEqual(await row(page, 'scores', 'Q', 0), ['0.298', '-0.083', '0.389']);
  await goToLast(page, 'softmax');   // A is filled in from the last step (every section opens at its first)
  const edited = await row(page, 'softmax', 'A', 0);
  assert.doesNotMatch(edited.join(' '), /·/);
  assert.notDeepEqual(edited, ARTICLE.A0);
  for (const bad of ['abc', '', '1e309', '<b>x</b>']) {
    await typeInto(page, cell, bad);
    assert.equal(await page.textContent(cell), '2.000', `after ${JSON.stringify(bad)}`);
    const message = await page.textContent('#projections [data-matrix="X"] .matrix-message');
    assert.match(message, /X\[我\]\[0\]/, `message for ${JSON.stringify(bad)}`);
    assert.match(message, /2\.000/);
  }
  assert.equal(await page.$$eval('#app b', (els) => els.length), 0);
  assert.deepEqual(await row(page, 'scores', 'Q', 0), ['0.298', '-0.083', '0.389']);
  assert.ok(!/NaN|Infinity/.test(await page.innerText('#app')));
  // a weight cell too, then undo
  await typeInto(page, '#projections [data-matrix="W_Q"] td[data-i="0"][data-j="0"]', '0');
  assert.equal((await row(page, 'scores', 'Q', 0))[0], '0.000');
  await page.click('#projections button:has-text("Undo edits")');
  assert.deepEqual(await row(page, 'scores', 'Q', 0), ARTICLE.Q0);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('the √d_k switch changes the weights and goes into the URL', async () => {
  const page = await openPage(env);
  await goToLast(page, 'softmax');   // A is filled in from the last step (every section opens at its first)
  await page.check('#softmax .scale-switch');
  assert.deepEqual(await row(page, 'softmax', 'A', 0), ['0.322', '0.335', '0.343']);
  assert.deepEqual(await row(page, 'softmax', 'S', 0), ARTICLE.S0);   // scores stay raw
  assert.match(page.url(), /scale=1/);
  await page.uncheck('#softmax .scale-switch');
  assert.deepEqual(await row(page, 'softmax', 'A', 0), ARTICLE.A0);
  await page.closeAll();
});

test('the Q = K = X switch makes the score table symmetric', async () => {
  const page = await openPage(env, { query: '?sentence=%E6%88%91+%E5%85%BB%E4%BA%86+%E4%B8%80%E5%8F%AA+%E5%85%94' });
  const table = () => page.$$eval('#symmetry [data-matrix="S"] tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
  const symmetric = (m) => m.every((r, i) => r.every((x, j) => x === m[j][i]));
  assert.equal(symmetric(await table()), false);
  await page.check('#symmetry .qk-switch');
  const after = await table();
  assert.equal(after.length, 4);
  assert.equal(symmetric(after), true);
  assert.match(page.url(), /qk=1/);
  assert.match(await page.textContent('#symmetry .narration'), /equal/);
  await page.closeAll();
});

test('the language switch and the URL state round-trip', async () => {
  const page = await openPage(env, { locale: 'en-US', query: '?seed=7' });
  assert.equal(await page.inputValue('#projections .seed-input'), '7');
  await page.click('.lang-btn[data-lang="zh"]');
  assert.match(await page.textContent('h1'), /注意力/);
  assert.match(await page.textContent('#softmax .section-title'), /softmax/);
  assert.match(page.url(), /lang=zh/);
  await page.check('#softmax .scale-switch');
  await page.selectOption('#embedding .sentence-select', '猫 很 可爱');
  const url = page.url();
  const reopened = await openPage(env, { locale: 'en-US', query: url.slice(url.indexOf('?')) });
  assert.match(await reopened.textContent('h1'), /注意力/);
  assert.equal(await reopened.inputValue('#projections .seed-input'), '7');
  assert.equal(await reopened.isChecked('#softmax .scale-switch'), true);
  assert.equal(await reopened.inputValue('#embedding .sentence-select'), '猫 很 可爱');
  assert.deepEqual(await reopened.$$eval('#softmax [data-matrix="A"] tbody th', (ths) => ths.map((t) => t.textContent)), ['猫', '很', '可爱']);
  // the same row of weights in both pages
  assert.deepEqual(await row(reopened, 'softmax', 'A', 1), await row(page, 'softmax', 'A', 1));
  // the seed changed in the page is in the URL too
  await reopened.fill('#projections .seed-input', '42');
  await reopened.press('#projections .seed-input', 'Enter');
  assert.ok(!/seed=/.test(reopened.url()));
  assert.deepEqual([...page.problems(), ...reopened.problems()], []);
  await page.closeAll();
  await reopened.closeAll();
});

test('a hostile URL falls back to the defaults with a short notice and injects nothing', async () => {
  const page = await openPage(env, { locale: 'en-US',
    query: '?seed=99999999999999999999&sentence=%3Cscript%3Ealert(1)%3C%2Fscript%3E&lang=%3Cimg%20src%3Dx%3E&scale=yes&section=%22%3E%3Csvg' });
  let dialogs = 0;
  page.on('dialog', (d) => { dialogs += 1; d.dismiss(); });
  const notice = await page.textContent('.notice');
  for (const name of ['seed', 'sentence', 'lang', 'scale', 'section']) assert.match(notice, new RegExp(name));
  await goToLast(page, 'softmax');   // A is filled in from the last step (every section opens at its first)
  assert.deepEqual(await row(page, 'softmax', 'A', 0), ARTICLE.A0);
  assert.equal(await page.$$eval('#app script, #app img', (els) => els.length), 0);
  assert.ok(!(await page.innerText('#app')).includes('<script>'));
  assert.equal(dialogs, 0);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('with prefers-reduced-motion, play jumps to the last step', async () => {
  const page = await openPage(env, { reducedMotion: 'reduce' });
  await page.click('#projections .step-play');
  assert.equal(await position(page, 'projections'), 'step 28 of 28');
  await page.closeAll();
});

test('the data-flow stages show live shapes and jump to their section', async () => {
  const page = await openPage(env, { query: '?sentence=%E6%88%91+%E5%85%BB%E4%BA%86+%E4%B8%80%E5%8F%AA+%E5%85%94' });
  const shapes = await page.$$eval('#flow .flow-stage .shape', (els) => els.map((e) => e.textContent));
  // ids, the sine positions, X, Q/K/V, S, A, O, then the heads (2 by default: d_k = 12 / 2)
  assert.deepEqual(shapes.slice(0, 8), ['[4]', '[4, 4]', '[4, 4]', '[4, 3]', '[4, 4]', '[4, 4]', '[4, 3]', '2 × [4, 6] → [4, 12] → [4, 4]']);
  await page.click('#flow .flow-stage:has-text("Q, K, V")');
  await page.waitForFunction(() => /section=projections/.test(location.search));
  // the smooth scroll passes other sections: once it has ended (the section's top is in place),
  // the scroll observer must not have overwritten the jump
  await page.waitForFunction(() => {
    const el = document.getElementById('projections');
    const offset = el.getBoundingClientRect().top - parseFloat(getComputedStyle(el).scrollMarginTop || '0');
    const still = window.__lastScrollY === scrollY;
    window.__lastScrollY = scrollY;
    return still && Math.abs(offset) < 2;
  });
  await frames(page, 2);
  assert.match(page.url(), /section=projections/);
  assert.equal(await page.evaluate(() => document.activeElement.closest('.qkv-section')?.id), 'projections');
  await page.closeAll();
});

test('state is written by the reader, never by drawing: the learnable section writes pull when its stepper moves, not on load or new numbers', async () => {
  const page = await openPage(env);
  const pull = () => page.evaluate(() => new URLSearchParams(location.search).get('pull'));
  assert.equal(await pull(), null, 'opening the page wrote pull');
  // new numbers (a 4-word sentence) redraw the learnable section but are not the reader moving its stepper
  await page.selectOption('#embedding .sentence-select', '我 养了 一只 兔');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('sentence') === '我 养了 一只 兔');
  assert.equal(await pull(), null, 'new numbers wrote pull');
  await page.click('#learnable .step-forward');
  assert.equal(await pull(), '5.5');
  assert.match(await page.textContent('#learnable .narration'), /Factor 5\.5/);
  await page.click('#learnable .step-first');
  assert.equal(await pull(), '0');
  await page.closeAll();
});
