// generate-poet.test.js: the generation section on the shipped pretrained poet, one shared page
// load per check, waiting on state:
//   - a form-locked poem has the form, and an acrostic starts its lines with its characters
//     (read from the page, checked with poemForm and web/poetry/metrics.js in Node);
//   - the rhyme marks are the metrics module's: the marked characters are rhyme(poem).ends, with
//     their finals; a line found in the page's training poems is marked with its source;
//   - at a step the acrostic decided, the page says what the model wanted and what was required;
//   - an acrostic of the wrong length, or with a character outside the vocabulary, is refused
//     with a message in the page's language (zh and en);
//   - the section draws in zh and en at 375 and 1280 px, light and dark, without sideways scroll
//     (on the same two loads; screenshots in tests/artifacts/generate-poet-*.png);
//   - from file:// (no model in the single file) it says so and writes with the writer's model;
//   - once the poet's whole training text has arrived (web/pretrained/tang-poet-train.bin), a
//     seven-character line found in it is marked with its source poem, and the note says what
//     was checked; without it (a widget, the single file, a failed request) the note says the
//     page's quatrains were; an adapter's note says its own fine-tuning text is not checked;
//   - on the page the poem writes itself once when its line is first on screen, to its last
//     character; not in iframe mode, not under reduced motion, not at a link's step.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openBrowser, ARTIFACTS, frames } from './harness.js';
import { openPage, q } from './page-helpers.js';
import { newPage } from '../../tools/browser.mjs';
import { load } from '../../web/qkv-lab.js';
import { poemForm } from '../../web/poem-forms.js';
import { rhyme } from '../../web/poetry/metrics.js';

let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env.close(); });

const poetReady = (page) => page.waitForFunction(() => document.querySelector('#generate')?.dataset.writing === 'poet'
  && document.querySelector('#generate [data-role=poem]'), null, { timeout: 120000 });
const poemOf = (page) => page.textContent('#generate [data-role=poem]');

/** The section as it is, at 375 and 1280 px, light and dark: no sideways scroll; a picture of each (tests/artifacts). */
async function drawsEverywhere(page, lang) {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  for (const width of [375, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    for (const colorScheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme });
      await frames(page, 2);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `${lang} ${width} ${colorScheme}: the page scrolls sideways by ${overflow} px`);
      await page.locator('#generate').screenshot({ path: path.join(ARTIFACTS, `generate-poet-${lang}-${width}-${colorScheme}.png`) });
    }
  }
}

test('the poet writes a 七绝 whose lines start with the acrostic; the rhyme marks are the metrics module\'s; the form\'s say is shown; zh at both widths and schemes', async () => {
  const page = await openPage(env, { query: q({ embed: 1, section: 'generate', lang: 'zh', gform: 'qijue', gacro: '春夏秋冬', gprompt: '' }) });
  await page.locator('#generate').scrollIntoViewIfNeeded();
  await poetReady(page);
  const poem = await poemOf(page);
  assert.equal(poemForm(poem), 'qijue', poem);
  assert.deepEqual(poem.split(/[，。]/u).slice(0, 4).map((l) => Array.from(l)[0]), ['春', '夏', '秋', '冬']);
  // the marked characters: where rhyme() puts the even lines' ends, with its finals
  const marks = await page.$$eval('#generate [data-role=poem] span[data-rhyme-line]', (spans) =>
    spans.map((s) => ({ line: Number(s.dataset.rhymeLine), char: s.textContent, final: s.dataset.final, rhymes: s.classList.contains('rhyme') })));
  const r = rhyme(poem);
  assert.deepEqual(marks.map(({ line, char, final }) => ({ line, char, final })), r.ends.map((e) => ({ line: e.line, char: e.char, final: e.final ?? '' })));
  assert.ok(marks.every((m) => m.rhymes === r.lines24), 'marked as rhyming exactly when lines 2 and 4 rhyme');
  const said = await page.textContent('#generate [data-role=reading-rhyme]');
  assert.ok(said.includes(r.ends[0].char) && said.includes(r.ends[1].char) && said.includes(r.lines24 ? '押韵。' : '不押韵'), said);
  // step 1 is the acrostic's 春: unless the model wanted it anyway, the page says what it wanted
  const note = await page.textContent('#generate [data-role=mask-note]');
  assert.match(note, /^(模型想写“.”（p = [\d.e-]+），藏头要求此处是“春”。|格律允许模型最想写的“春”.*)$/u, note);
  assert.match(await page.textContent('#generate [data-role=model]'), /^模型：预训练的诗人/);
  await drawsEverywhere(page, 'zh');
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('refused acrostics are named in the page\'s language; a 五绝 from the default beginning is a 五绝 and its copied first line is shown with its source; en at both widths and schemes', async () => {
  const page = await openPage(env, { query: q({ embed: 1, section: 'generate', lang: 'en', gform: 'wujue' }) });
  await page.locator('#generate').scrollIntoViewIfNeeded();
  await poetReady(page);
  const poem = await poemOf(page);
  assert.equal(poemForm(poem), 'wujue', poem);
  assert.match(await page.textContent('#generate [data-role=reading-form]'), /五绝/);
  // 白日依山尽 is in the quatrains the page carries: marked, with 登鹳雀楼 as its source
  assert.match(await page.textContent('#generate [data-role=reading-novelty]'), /白日依山尽 \(a line of your beginning\) from “?白日依山尽，黄河入海流。/);
  assert.match(await page.textContent('#generate [data-role=model]'), /^Model: the pretrained poet/);
  await drawsEverywhere(page, 'en');
  const error = '#generate [data-role=prompt-error]';
  const acrostic = async (text) => { await page.fill('#generate [data-setting=gacro]', text); await page.press('#generate [data-setting=gacro]', 'Enter'); };
  await page.fill('#generate [data-setting=gprompt]', '');
  await page.press('#generate [data-setting=gprompt]', 'Enter');
  await acrostic('春夏秋');
  await page.waitForSelector(`${error}:not([hidden])`);
  assert.match(await page.textContent(error), /the acrostic has 3 characters and a 五绝 \(4 × 5\) has 4 lines/);
  await acrostic('春夏秋a');
  await page.waitForFunction(() => /Chinese characters only; these are not: a/.test(document.querySelector('#generate [data-role=prompt-error]').textContent));
  await acrostic('春夏秋冬');
  await page.waitForSelector(`${error}[hidden]`, { state: 'attached' });
  assert.deepEqual((await poemOf(page)).split(/[，。]/u).slice(0, 4).map((l) => Array.from(l)[0]), ['春', '夏', '秋', '冬']);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
  const zh = await openPage(env, { query: q({ embed: 1, section: 'generate', lang: 'zh', gform: 'wujue', gprompt: '', gacro: '春夏秋' }) });
  await zh.locator('#generate').scrollIntoViewIfNeeded();
  await zh.waitForSelector(`${error}:not([hidden])`, { timeout: 120000 });
  assert.match(await zh.textContent(error), /^这个开头不能用：藏头有 3 个字，五绝有 4 行：一行一个字$/);
  await zh.closeAll();
});

test('the poet\'s lines are checked against its whole training text once it arrives: a seven-character line is marked with its source poem; the note says what was checked', async () => {
  const page = await openPage(env, { query: q({ embed: 1, section: 'generate', lang: 'en', gform: 'qijue', gprompt: '洛阳亲友如相问，' }) });
  await page.locator('#generate').scrollIntoViewIfNeeded();
  await poetReady(page);
  await page.waitForSelector('#generate [data-role=checked][data-checked=poet]', { timeout: 120000 });
  assert.match(await page.textContent('#generate [data-role=checked]'), /^Checked against the poet's whole training text: 34,485 poems of all four forms \(a file served beside the page, 2\.\d MB compressed\)/);
  // the prompt's line is in the poet's training text (王昌龄's 芙蓉楼送辛渐), not in the quatrains the page carries
  assert.match(await page.textContent('#generate [data-role=reading-novelty]'),
    /洛阳亲友如相问 \(a line of your beginning\) from “?寒雨连天夜入湖，平明送客楚山孤。洛阳亲友如相问，一片冰心在玉壶。/);
  assert.ok(await page.$('#generate [data-role=poem] span.copied'), 'the copied line is marked in the poem');
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
  // where the text cannot be had (here: its request fails) the note says the quatrains the page carries were checked
  const without = await newPage(env);
  await without.route('**/tang-poet-train.bin', (route) => route.abort());
  await without.goto(env.url(`index.html${q({ embed: 1, section: 'generate', lang: 'en', gform: 'qijue', gprompt: '洛阳亲友如相问，' })}`));
  await without.locator('#generate').scrollIntoViewIfNeeded();
  await poetReady(without);
  await without.waitForSelector('#generate [data-role=checked][data-checked=poetSample]', { timeout: 120000 });
  assert.match(await without.textContent('#generate [data-role=checked]'), /^Checked against the 3,710 五绝 the page carries/);
  assert.match(await without.textContent('#generate [data-role=reading-novelty]'), /^Novelty: none of its 4 lines occurs verbatim/);
  await without.closeAll();
  // an adapter on the poet (a file: 0 steps of LoRA, made here with the API) is checked against its base's text, and says its own is not
  const qkv = await load({ gpt: true });
  const base = await qkv.loadPretrained();
  const ft = base.finetune({ text: '白日依山尽，黄河入海流。欲穷千里目，更上一层楼。\n'.repeat(40) });
  const adapter = ft.saveAdapter();
  ft.dispose(); base.dispose();
  const withAdapter = await openPage(env, { query: q({ embed: 1, section: 'generate', lang: 'en', gmodel: 'adapter' }) });
  await withAdapter.locator('#generate').scrollIntoViewIfNeeded();
  await withAdapter.setInputFiles('#generate [data-role=adapter-file]', { name: 'test.qkvlora', mimeType: 'application/octet-stream', buffer: Buffer.from(adapter) });
  await withAdapter.waitForSelector('#generate[data-writing=adapter] [data-role=checked][data-checked=adapter]', { timeout: 120000 });
  assert.match(await withAdapter.textContent('#generate [data-role=checked]'), /^Checked against the base poet's whole training text: 34,485 poems .*the adapter's own fine-tuning text is not checked/);
  assert.deepEqual(withAdapter.problems(), []);
  await withAdapter.closeAll();
});

test('on the page the poem writes itself once, character by character, when first seen; not in iframe mode, under reduced motion or at a link\'s step', async () => {
  // the page (not iframe mode), opened at the section: the poem plays by itself from its first step
  const page = await openPage(env, { query: q({ section: 'generate', lang: 'en', gform: 'wujue' }) });
  await page.locator('#generate').scrollIntoViewIfNeeded();
  await poetReady(page);
  await page.waitForFunction(() => document.querySelector('#generate').dataset.opening === 'played', null, { timeout: 60000 });
  // it plays: the pause button is pressed and the step moves on without a click (4× to keep the test short)
  assert.equal(await page.getAttribute('#generate .step-play', 'aria-pressed'), 'true');
  await page.selectOption('#generate .step-speed', '4');
  await page.waitForFunction(() => Number(document.querySelector('#generate').dataset.genStep) >= 2, null, { timeout: 60000 });
  // …to the poem's end, where it stops, the whole poem written in the section's line of text
  await page.waitForFunction(() => document.querySelector('#generate .step-forward').disabled
    && document.querySelector('#generate .step-play').getAttribute('aria-pressed') === 'false', null, { timeout: 120000 });
  const written = (await page.textContent('#generate [data-role=text]')).replaceAll('⏎', '');
  assert.equal(written, (await poemOf(page)).replaceAll('\n', ''));
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
  // where it does not: reduced motion, a link's step, iframe mode (the author's embed code chooses autoplay)
  for (const [options, query] of [[{ reducedMotion: 'reduce' }, { section: 'generate' }], [{}, { section: 'generate', step: 3 }],
    [{}, { embed: 1, section: 'generate' }]]) {
    const other = await openPage(env, { ...options, query: q({ lang: 'en', ...query }) });
    await other.waitForSelector('#generate[data-opening]', { state: 'attached' });
    assert.equal(await other.getAttribute('#generate', 'data-opening'), 'off', JSON.stringify({ options, query }));
    await other.closeAll();
  }
});

test('from file:// (the single-file page carries no model) the section says the poet cannot be loaded and writes with the writer\'s model', async () => {
  const page = await openPage(env, { file: true, query: q({ section: 'generate', lang: 'en', glayers: 1, gdim: 16, gheads: 2, gctx: 16, gsteps: 50 }) });
  await page.locator('#generate').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.querySelector('#generate')?.dataset.writing === 'writer', null, { timeout: 120000 });
  await page.waitForSelector('#generate [data-role=distribution] tbody tr');
  const said = await page.textContent('#generate [data-role=model]');
  assert.match(said, /^The pretrained poet cannot be loaded here: the single-file page \(qkv-lab\.html\) does not carry the model; .*The writer's model writes instead\. Model: untrained/, said);
  assert.equal(await page.$eval('#generate [data-setting=gmodel]', (el) => el.value), 'poet', 'the choice stays the reader\'s');
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});
