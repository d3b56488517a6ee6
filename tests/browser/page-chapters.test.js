// page-chapters.test.js: the sections "Why divide by √d_k", "Multi-head attention" and
// "Positional encoding" used as a reader would, in the served page: each control's value goes
// into the URL and comes back from it; the numbers shown are the ones the API gives in Node; the
// permutation demonstration holds on the page (without positions the reordered sentence's
// outputs are the same rows, with them they are not); a link with bad values falls back; and the
// three are available as <qkv-lab section="…"> widgets and in iframe mode.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser } from './harness.js';
import { openPage, goToLast } from './page-helpers.js';
import { openBlog, waitForWidget, widget } from './widget-helpers.js';
import { load } from '../../web/qkv-lab.js';
import { draws, scalingModel } from '../../web/page/models/scaling.js';
import { computeSnapshot } from '../../web/page/models/attention.js';
import { headWeights } from '../../web/page/models/heads-positions.js';

let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env.close(); });

const qkv = await load();
const fmt = (x) => { const t = x.toFixed(3); return t === '-0.000' ? '0.000' : t; };
const search = (page) => page.evaluate(() => location.search);

/** The texts of every cell of matrix `name` in section `id`, row by row. */
function table(page, id, name) {
  return page.$$eval(`#${id} [data-matrix="${name}"] tbody tr`, (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
}

test('√d_k: the slider goes into the URL, the numbers are the API\'s, and a link brings them back', async () => {
  const page = await openPage(env);
  // the spread table and the bars are filled in from the section's last step (it opens at its first)
  await goToLast(page, 'scaling');
  const at64 = scalingModel(qkv, draws(qkv, 42), 64);
  assert.deepEqual(await table(page, 'scaling', 'spread'), [[fmt(at64.raw.mean), fmt(at64.raw.std)], [fmt(at64.scaled.mean), fmt(at64.scaled.std)]]);
  // the slider, by keyboard: End is d_k = 512
  await page.focus('#scaling .sdk-slider');
  await page.keyboard.press('End');
  await page.waitForFunction(() => location.search.includes('sdk=512'));
  const at512 = scalingModel(qkv, draws(qkv, 42), 512);
  assert.deepEqual((await table(page, 'scaling', 'spread'))[0], [fmt(at512.raw.mean), fmt(at512.raw.std)]);
  assert.match(await page.getAttribute('#scaling .sdk-slider', 'aria-valuetext'), /d_k = 512/);
  const bars = await page.$$eval('#scaling .card.raw .bar-value', (els) => els.map((el) => el.textContent));
  assert.deepEqual(bars, at512.row.unscaled.first.weights.map(fmt));
  assert.match(await page.textContent('#scaling .card.raw'), new RegExp(`${at512.row.unscaled.collapsed} of the 32`));
  const narration = await page.textContent('#scaling .narration');
  assert.match(narration, new RegExp(fmt(at512.row.unscaled.mean.jacobian).replace('.', '\\.')));
  // a link reproduces it
  const again = await openPage(env, { query: await search(page) });
  await goToLast(again, 'scaling');
  assert.equal(await again.inputValue('#scaling .sdk-slider'), await page.inputValue('#scaling .sdk-slider'));
  assert.deepEqual(await table(again, 'scaling', 'spread'), await table(page, 'scaling', 'spread'));
  // another seed draws other vectors: the section follows the page's seed
  const seeded = await openPage(env, { query: '?seed=7&sdk=16' });
  await goToLast(seeded, 'scaling');
  const at16 = scalingModel(qkv, draws(qkv, 7), 16);
  assert.deepEqual((await table(seeded, 'scaling', 'spread'))[1], [fmt(at16.scaled.mean), fmt(at16.scaled.std)]);
  for (const p of [page, again, seeded]) assert.deepEqual(p.problems(), []);
  await page.closeAll();
  await again.closeAll();
  await seeded.closeAll();
});

test('multi-head: the reader picks the heads (URL), the heads and W_O are the API\'s, the data flow follows', async () => {
  const page = await openPage(env);
  const snap = computeSnapshot(qkv, { seed: 42, sentence: '我 love 猫', scale: false, pos: false });
  const W = headWeights(qkv, 42);
  for (const H of [4, 1, 3]) {
    await page.check(`#multihead .heads-choice input[value="${H}"]`);
    await page.waitForFunction((H) => new URLSearchParams(location.search).get('heads') === (H === 2 ? null : String(H)), H);
    // concat and Y are filled in from the last step on (a new head count shows it; ▶| as a reader would)
    await goToLast(page, 'multihead');
    const expected = qkv.multiHeadAttention(snap.X, W, { heads: H });
    assert.deepEqual(await table(page, 'multihead', 'concat'), expected.concat.toArray().map((r) => r.map(fmt)), `H = ${H}: concat`);
    assert.deepEqual(await table(page, 'multihead', 'Y'), expected.output.toArray().map((r) => r.map(fmt)), `H = ${H}: Y`);
    const cards = await page.$$eval('#multihead .mh-head', (els) => els.length);
    assert.equal(cards, H);
    // each head's heat table holds its weights
    const last = await page.$$eval(`#multihead [data-matrix="A${H - 1}"] tbody tr`, (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    assert.deepEqual(last, expected.heads[H - 1].weights.toArray().map((r) => r.map(fmt)));
    // the data flow's heads stage shows this H
    const shape = await page.textContent('#flow .flow-stage[data-stage="heads"] .shape');
    assert.equal(shape, `${H} × [3, ${12 / H}] → [3, 12] → [3, 4]`);
    assert.match(await page.textContent('#multihead .mh-params'), /192/);
  }
  const again = await openPage(env, { query: await search(page) });
  assert.equal(await again.isChecked('#multihead .heads-choice input[value="3"]'), true);
  await goToLast(again, 'multihead');
  assert.doesNotMatch((await table(again, 'multihead', 'Y')).flat().join(' '), /·/);
  assert.deepEqual(await table(again, 'multihead', 'Y'), await table(page, 'multihead', 'Y'));
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
  await again.closeAll();
});

test('positions: on the page, without positions the reordered outputs are the same rows; with PE they are not', async () => {
  for (const query of ['', `?${new URLSearchParams({ sentence: '我 开 汽车 很 快', seed: 7, scale: 1 })}`]) {
    const page = await openPage(env, { query });
    // the reordered outputs are filled in from the section's last step (it opens at its first)
    await goToLast(page, 'positions');
    const rows = async (name) => {
      const words = await page.$$eval(`#positions [data-matrix="${name}"] tbody th`, (ths) => ths.map((th) => th.textContent));
      const cells = await table(page, 'positions', name);
      return Object.fromEntries(words.map((w, i) => [w, cells[i].join(' ')]));
    };
    const plain = await rows('O_plain'), plainRe = await rows('O_plain_re');
    assert.doesNotMatch(Object.values(plain).join(' '), /·/, `${query}: the outputs are shown`);
    assert.deepEqual(plainRe, plain, `${query}: without positions, word for word the same output`);
    const pos = await rows('O_pos'), posRe = await rows('O_pos_re');
    assert.notDeepEqual(posRe, pos, `${query}: with positions the outputs must change`);
    assert.match(await page.textContent('#positions .pe-gap-plain'), /0\.000000/);
    // the reordered sentence really is another order
    const titles = [await page.textContent('#positions .pe-original'), await page.textContent('#positions .pe-reordered')];
    assert.notEqual(titles[0].split(': ')[1], titles[1].split(': ')[1]);
    assert.deepEqual(page.problems(), []);
    await page.closeAll();
  }
});

test('positions: the table\'s width goes into the URL; PE(p)·PE(p+k) reads the same down each column', async () => {
  const page = await openPage(env);
  await page.selectOption('#positions .ped-select', '16');
  await page.waitForFunction(() => location.search.includes('ped=16'));
  assert.equal(await page.getAttribute('#positions canvas.pe-table', 'width'), '16');
  assert.equal(await page.getAttribute('#positions canvas.pe-table', 'height'), '32');
  assert.match(await page.getAttribute('#positions canvas.pe-table', 'aria-label'), /32 rows.*16 columns/);
  const offsets = await table(page, 'positions', 'offsets');
  for (let k = 0; k < offsets[0].length; k++) {
    const column = new Set(offsets.map((row) => row[k]));
    assert.equal(column.size, 1, `offset column ${k}: ${[...column]}`);
  }
  assert.equal(offsets[0][0], '8.000');   // |PE(p)|² = d/2
  const again = await openPage(env, { query: await search(page) });
  assert.equal(await again.inputValue('#positions .ped-select'), '16');
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
  await again.closeAll();
});

test('a link with bad values for the new settings falls back to their defaults and says so', async () => {
  const page = await openPage(env, { query: '?sdk=17&heads=5&ped=%3Cscript%3E' });
  const notice = await page.textContent('.notice');
  for (const name of ['sdk', 'heads', 'ped']) assert.match(notice, new RegExp(name));
  assert.match(await page.getAttribute('#scaling .sdk-slider', 'aria-valuetext'), /d_k = 64/);
  assert.equal(await page.isChecked('#multihead .heads-choice input[value="2"]'), true);
  assert.equal(await page.inputValue('#positions .ped-select'), '64');
  assert.equal(await page.$$eval('script', (s) => s.filter((el) => el.textContent.includes('<script>')).length), 0);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('the three sections as <qkv-lab section="…"> widgets in a blog post, their controls working inside the shadow root', async () => {
  for (const [section, lang] of [['scaling', 'en'], ['multihead', 'zh'], ['positions', 'en']]) {
    const blog = await openBlog(env, {
      name: 'plain-post.html',
      transform: (html) => html.replace('<qkv-lab id="first" lang="en">', `<qkv-lab id="first" section="${section}" lang="${lang}">`),
    });
    await waitForWidget(blog, 'first');
    const seen = await widget(blog, 'first');
    assert.equal(seen.section, section);
    assert.equal(seen.notice, '');
    assert.equal(seen.overflowing, false, `${section}: wider than its column`);
    const control = { scaling: '.sdk-slider', multihead: '.heads-choice input[value="4"]', positions: '.ped-select' }[section];
    const before = seen.text;
    await blog.evaluate(([control]) => {
      const el = document.getElementById('first').shadowRoot.querySelector(control);
      if (el.type === 'radio') el.click();
      else {
        el.value = el.tagName === 'SELECT' ? '8' : '0';
        el.dispatchEvent(new Event(el.tagName === 'SELECT' ? 'change' : 'input', { bubbles: true }));
      }
    }, [control]);
    await blog.waitForFunction((before) => document.getElementById('first').shadowRoot.querySelector('.qkv').innerText !== before, before);
    assert.deepEqual(blog.problems(), [], section);
    await blog.closeAll();
  }
});

test('iframe mode shows each of the three alone', async () => {
  for (const section of ['scaling', 'multihead', 'positions']) {
    const page = await openPage(env, { query: `?embed=1&section=${section}&lang=zh` });
    const shown = await page.$$eval('section[data-section]', (els) => els.filter((el) => el.getClientRects().length > 0).map((el) => el.dataset.section));
    assert.deepEqual(shown, [section]);
    assert.deepEqual(page.problems(), []);
    await page.closeAll();
  }
});

/** What widget #id's shadow root shows for the three chapters' settings. */
function chapterState(page, id) {
  return page.evaluate((id) => {
    const root = document.getElementById(id).shadowRoot;
    const slider = root.querySelector('.sdk-slider');
    const table = root.querySelector('canvas.pe-table');
    return {
      sdk: slider ? slider.getAttribute('aria-valuetext') : null,
      heads: root.querySelectorAll('.mh-head').length,
      checked: root.querySelector('.heads-choice input:checked')?.value ?? null,
      ped: table ? table.getAttribute('width') : null,
      notice: root.querySelector('.widget-notice').textContent,
    };
  }, id);
}

test('the ES-module widget (qkv-lab/widget) shows the three, with their settings as attributes and properties', async () => {
  const page = await openBlog(env, { name: 'esm-post.html' });
  // (the widgets' ids are not the sections' own, which their shadow roots hold)
  for (const id of ['w-scaling', 'w-multihead', 'w-positions']) {
    await page.locator(`#${id}`).scrollIntoViewIfNeeded();
    await waitForWidget(page, id);
  }
  assert.match((await chapterState(page, 'w-scaling')).sdk, /d_k = 512/);
  assert.deepEqual(await chapterState(page, 'w-multihead'), { sdk: null, heads: 4, checked: '4', ped: null, notice: '' });
  assert.equal((await chapterState(page, 'w-positions')).ped, '16');
  // the numbers are the API's: the last head's weights at H = 4
  const snap = computeSnapshot(qkv, { seed: 42, sentence: '我 love 猫', scale: false, pos: false });
  const expected = qkv.multiHeadAttention(snap.X, headWeights(qkv, 42), { heads: 4 });
  const last = await page.evaluate(() => [...document.getElementById('w-multihead').shadowRoot.querySelectorAll('[data-matrix="A3"] tbody tr')]
    .map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
  assert.deepEqual(last, expected.heads[3].weights.toArray().map((r) => r.map(fmt)));
  // a property sets the attribute and redraws; an invalid value falls back with a notice. The
  // setting reaches the section the way every setting does (context → snapshot → section): the
  // host builds nothing again, so the section's element stays the one it was
  await page.evaluate(() => {
    for (const id of ['w-scaling', 'w-multihead', 'w-positions']) document.getElementById(id).shadowRoot.querySelector('section').dataset.probe = id;
  });
  const sameSections = () => page.evaluate(() => ['w-scaling', 'w-multihead', 'w-positions']
    .every((id) => document.getElementById(id).shadowRoot.querySelector('section').dataset.probe === id));
  await page.evaluate(() => { document.getElementById('w-multihead').heads = 3; });
  await page.waitForFunction(() => document.getElementById('w-multihead').shadowRoot.querySelectorAll('.mh-head').length === 3);
  assert.equal(await page.getAttribute('#w-multihead', 'heads'), '3');
  await page.evaluate(() => { document.getElementById('w-positions').setAttribute('ped', '100'); });
  await page.waitForFunction(() => /ped/.test(document.getElementById('w-positions').shadowRoot.querySelector('.widget-notice').textContent));
  assert.equal((await chapterState(page, 'w-positions')).ped, '64');
  assert.equal(await page.evaluate(() => document.getElementById('w-positions').ped), 64);
  await page.evaluate(() => { document.getElementById('w-scaling').sdk = 16; });
  await page.waitForFunction(() => /d_k = 16\b/.test(document.getElementById('w-scaling').shadowRoot.querySelector('.sdk-slider').getAttribute('aria-valuetext')));
  assert.equal(await sameSections(), true, 'sdk, heads and ped changed without building a section again');
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('the classic widget script: sdk, heads and ped attributes, and a bad one refused with a notice', async () => {
  const blog = await openBlog(env, {
    name: 'plain-post.html',
    transform: (html) => html.replace('<qkv-lab id="first" lang="en">', '<qkv-lab id="first" section="multihead" heads="1" lang="en">')
      .replace('<qkv-lab id="second" section="softmax" lang="zh">', '<qkv-lab id="second" section="scaling" sdk="13.5" lang="zh">'),
  });
  await waitForWidget(blog, 'first');
  assert.deepEqual(await chapterState(blog, 'first'), { sdk: null, heads: 1, checked: '1', ped: null, notice: '' });
  await blog.locator('#second').scrollIntoViewIfNeeded();
  await waitForWidget(blog, 'second');
  const second = await chapterState(blog, 'second');
  assert.match(second.notice, /sdk/);
  assert.match(second.sdk, /d_k = 64/);
  assert.deepEqual(blog.problems(), []);
  await blog.closeAll();
});
