// gpt-review.test.js: what a review of the three GPT sections (block, writer, generate) found,
// each driven as a reader would on tiny GPTs (glayers 1–2, gdim 16, gctx 8 or 16, gsteps 50),
// waiting on state, never on time:
//   - the copied embed code reproduces the view: a writer link's step trains to that step again
//     (the same poems), generation says its model does not travel, and each tag carries only the
//     settings its section uses;
//   - the writer's words follow its numbers (layers, plural) and name no other section;
//   - a refused prompt's message clears once a prompt is accepted;
//   - after training on the reader's text, the typed line follows that text;
//   - the seed refuses what it cannot take, a setting changed mid-run says it is pending.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { openBrowser, downloadBytes } from './harness.js';
import { openPage, q } from './page-helpers.js';

const TINY = { glayers: 1, gdim: 16, gheads: 2, gctx: 8, gsteps: 50 };
let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env.close(); });

const statusOf = (page) => page.locator('#writer [data-role=status]');
const poemsAt = (page, step) => page.$eval(`#writer [data-role=samples] li[data-step="${step}"] .sample-poem`, (el) => el.textContent);
const untilDone = (page) => page.waitForFunction(() => document.querySelector('#writer [data-role=status]')?.dataset.done === 'true', null, { timeout: 120000 });

async function embedCodeOf(page, id, kind = 'widget') {
  await page.click(`#${id} .tool-embed`);
  await page.waitForFunction((sel) => document.querySelector(sel).value.includes('</qkv-lab>'), `#${id} .embed-code`);
  if (kind === 'iframe') {
    await page.check(`#${id} [data-embed-kind=iframe]`);
    await page.waitForFunction((sel) => document.querySelector(sel).value.startsWith('<iframe'), `#${id} .embed-code`);
  }
  return page.inputValue(`#${id} .embed-code`);
}
const iframeUrl = (code) => /<iframe src="([^"]+)"/.exec(code)[1].replace(/&amp;/g, '&');

test('writer: the copied code\'s step trains to that step again on open (the same model), and carries only the writer\'s settings', async () => {
  const page = await openPage(env, { query: q({ section: 'writer', lang: 'en', ...TINY, bdim: 16, bheads: 1 }) });
  await page.locator('#writer').scrollIntoViewIfNeeded();
  await page.waitForSelector('#writer [data-role=samples] li');
  await page.click('#writer [data-role=play]');
  await untilDone(page);
  const poem = await poemsAt(page, 50);
  const code = await embedCodeOf(page, 'writer');
  assert.match(code, /<qkv-lab section="writer" lang="en"[^>]* step="50">/, code);
  assert.doesNotMatch(code, /bdim|bheads|btok/, 'the block\'s settings are not the writer\'s');
  assert.match(code, /glayers=1|gsteps/);
  assert.match(await page.textContent('#writer [data-role=embed-note]'), /trains again from seed \d+ to step 50/);

  // the iframe trains to step 50 in its worker and shows what was shown here
  const frame = await openPage(env, { query: iframeUrl(await embedCodeOf(page, 'writer', 'iframe')).replace(/^[^?]*/, '') });
  await frame.waitForFunction(() => document.querySelector('#writer [data-role=status]')?.dataset.step === '50', null, { timeout: 120000 });
  await frame.waitForSelector('#writer [data-role=samples] li[data-step="50"]');
  assert.equal(await poemsAt(frame, 50), poem, 'the same run from the same seed writes the same poem');
  await frame.waitForFunction(() => /^Trained to step 50, as the link asked/.test(document.querySelector('#writer [data-role=replay]').textContent));
  assert.ok(await frame.isVisible('#writer [data-role=replay]'));
  assert.deepEqual([...page.problems(), ...frame.problems()], []);
  await frame.closeAll();

  // a link asking for more than the schedule trains to its end and says so
  const over = await openPage(env, { query: q({ section: 'writer', lang: 'en', embed: 1, ...TINY, step: 80 }) });
  await over.waitForFunction(() => document.querySelector('#writer [data-role=status]')?.dataset.step === '50', null, { timeout: 120000 });
  await over.waitForSelector('#writer [data-role=replay]:not([hidden])');
  assert.match(await over.textContent('#writer [data-role=replay]'), /asks for step 80, but this run's schedule ends at step 50/);
  await over.closeAll();
  await page.closeAll();
});

test('generate: the copied code says the trained model does not travel, and carries no block settings', async () => {
  const page = await openPage(env, { query: q({ section: 'generate', gmodel: 'writer', lang: 'zh', ...TINY, gctx: 16, bdim: 16 }) });
  await page.locator('#generate').scrollIntoViewIfNeeded();
  await page.waitForSelector('#generate [data-role=distribution] tbody tr');
  await page.click('#generate [data-role=train]');
  await page.waitForFunction(() => /50/.test(document.querySelector('#generate [data-role=writer-step]').textContent), null, { timeout: 120000 });
  await page.click('#generate [data-role=take-model]');
  await page.waitForFunction(() => /50/.test(document.querySelector('#generate [data-role=model]').textContent));
  const code = await embedCodeOf(page, 'generate');
  assert.doesNotMatch(code, /bdim|bheads|btok/);
  assert.match(code, /gctx="16"/);
  assert.doesNotMatch(code, /训练第/, 'the alt names the generation step, not a training step');
  assert.match(await page.textContent('#generate [data-role=embed-note]'), /训练过的模型不会跟着链接走.*保存模型/);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('writer: its words follow the run\'s numbers (one layer, 2 layers; plural) and name no other section', async () => {
  const page = await openPage(env, { query: q({ section: 'writer', lang: 'en', embed: 1, ...TINY }) });
  await page.waitForFunction(() => /^step 0 of 50/.test(document.querySelector('#writer [data-role=status]')?.textContent || ''));
  const intro = await page.textContent('#writer .section-intro');
  assert.match(intro, /^Take one Transformer block/);
  assert.doesNotMatch(intro, /last section|two of/);
  assert.match(await statusOf(page).textContent(), / 1 layer, 2 heads,/);
  // (iframe mode builds the writer alone: a generation section there, if any, names no other either;
  // read at once, not waited for: page.textContent would wait 30 s for an element that is not there)
  assert.doesNotMatch(await page.evaluate(() => document.querySelector('#generate .section-intro')?.textContent ?? ''), /last section/);
  await page.closeAll();
  const zh = await openPage(env, { query: q({ section: 'writer', lang: 'zh', ...TINY, glayers: 2 }) });
  await zh.locator('#writer').scrollIntoViewIfNeeded();
  await zh.waitForFunction(() => /^第 0 \/ 50 步/.test(document.querySelector('#writer [data-role=status]')?.textContent || ''));
  const zhIntro = await zh.textContent('#writer .section-intro');
  assert.match(zhIntro, /^把 2 个 Transformer 块叠起来/);
  assert.doesNotMatch(zhIntro, /上一节|叠两层/);
  assert.match(await statusOf(zh).textContent(), /2 层，2 个头/);
  assert.doesNotMatch(await zh.textContent('#generate .section-intro'), /上一节/);
  // the exported step shows the attention as the page does: each chip's weight as its opacity,
  // and the row of query characters (⏎ first) above the 2 × 2 heads' strips
  await zh.waitForSelector('#writer .attn-head .attn-strip');
  const weights = await zh.$$eval('#writer .attn-strip .w', (els) => els.map((el) => Number(el.style.opacity)));
  const [download] = await Promise.all([zh.waitForEvent('download'), zh.click('#writer .tool-export')]);
  const svg = (await downloadBytes(download)).toString('utf8');
  const faded = new Set((svg.match(/<rect [^>]*opacity="([\d.]+)"/g) || []).map((r) => Number(/opacity="([\d.]+)"/.exec(r)[1])));
  const distinct = new Set(weights.filter((w) => w < 1).map((w) => Number(w.toFixed(2))));
  assert.ok(distinct.size > 1 && [...distinct].every((w) => [...faded].some((f) => Math.abs(f - w) < 0.006)), `weights ${[...distinct]} drawn as ${[...faded]}`);
  assert.equal((svg.match(/>⏎</g) || []).length, 1 + 2 * 2, 'the query row and each head\'s strip begin with ⏎');
  await zh.closeAll();
});

test('generate: a refused beginning\'s message clears once the next beginning is accepted (an empty one too: the start token alone)', async () => {
  const page = await openPage(env, { query: q({ section: 'generate', lang: 'en', embed: 1, ...TINY, gctx: 16 }) });
  await page.waitForSelector('#generate [data-role=distribution] tbody tr');
  const input = '#generate [data-setting=gprompt]';
  const error = '#generate [data-role=prompt-error]';
  const enter = async (text) => { await page.fill(input, text); await page.press(input, 'Enter'); };
  await enter('白日依山尽🙂xyz');
  await page.waitForSelector(`${error}:not([hidden])`);
  assert.match(await page.textContent(error), /not in the vocabulary/);
  await enter('');
  await page.waitForSelector(`${error}[hidden]`, { state: 'attached' });
  await page.waitForFunction(() => document.querySelector('#generate [data-role=cache]').dataset.rows === '1');
  assert.equal(await page.inputValue(input), '', 'what was typed stays');
  assert.ok(await page.isVisible('#generate [data-role=text]'));
  await enter('白日依山尽🙂');
  await page.waitForSelector(`${error}:not([hidden])`);
  await enter('白日');
  await page.waitForSelector(`${error}[hidden]`, { state: 'attached' });
  await page.waitForFunction(() => document.querySelector('#generate [data-role=cache]').dataset.rows === '3');
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('writer: after training on the reader\'s text, the typed line is a line of that text, and the legend says what was held out', async () => {
  const page = await openPage(env, { query: q({ section: 'writer', lang: 'en', embed: 1, ...TINY }) });
  await page.waitForSelector('#writer [data-role=samples] li');
  const text = Array.from({ length: 12 }, (_, i) => `the cat sat on mat ${i % 3}`).join('\n');
  await page.fill('#writer [data-role=own-text]', text);
  await page.click('#writer [data-role=train-own]');
  await page.waitForFunction(() => /not quatrains/.test(document.querySelector('#writer [data-role=share]').textContent));
  await page.waitForFunction(() => document.querySelector('#writer [data-role=line]').value === 'the cat');   // context 8: 7 characters and the start token
  await page.waitForFunction(() => document.querySelectorAll('#writer [data-role=attention] .attn-head').length === 2);
  assert.ok(await page.isHidden('#writer [data-role=line-error]'), 'no refusal of a line the model cannot read');
  assert.match(await page.textContent('#writer .legend-val'), /every 10th line of your text/);
  assert.match(await page.textContent('#writer .sub-title[id$=samples-title]'), /^Samples \(/);
  // a line the reader types for this text stays through a step
  await page.fill('#writer [data-role=line]', 'a mat');
  await page.click('#writer [data-role=step]');
  await page.waitForFunction(() => document.querySelector('#writer [data-role=status]').dataset.step === '1');
  assert.equal(await page.inputValue('#writer [data-role=line]'), 'a mat');
  // back to the quatrains: the quatrain line again (a run with steps asks first)
  await page.click('#writer [data-role=quatrains]');
  await page.click('#writer [data-role=discard]');
  await page.waitForFunction(() => document.querySelector('#writer [data-role=line]').value === '白日依山尽，黄');
  assert.match(await page.textContent('#writer .legend-val'), /every 10th poem/);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('writer: the seed refuses what it cannot take inline, is a themed text box, and a setting changed mid-run says it is pending', async () => {
  const page = await openPage(env, { query: q({ section: 'writer', lang: 'en', embed: 1, ...TINY }), colorScheme: 'dark' });
  await page.waitForSelector('#writer [data-role=samples] li');
  const seed = '#writer [data-setting=gseed]';
  const original = await page.inputValue(seed);
  await page.fill(seed, '-5');
  await page.press(seed, 'Enter');
  await page.waitForFunction(() => /whole number from 0 to 4294967295; still using/.test(document.querySelector('#writer [data-role=seed-msg]').textContent));
  assert.equal(await page.inputValue(seed), original);
  assert.equal(await page.getAttribute(seed, 'aria-invalid'), 'true');
  // dark: the seed box is drawn like the other controls, not light
  const [seedBg, selectBg] = await page.evaluate(() => [document.querySelector('#writer [data-setting=gseed]'), document.querySelector('#writer select[data-setting=glayers]')]
    .map((el) => getComputedStyle(el).backgroundColor));
  assert.equal(seedBg, selectBg);
  await page.fill(seed, '7');
  await page.press(seed, 'Enter');
  await page.waitForFunction(() => document.querySelector('#writer [data-role=seed-msg]').textContent === '');
  // a step, then 2 layers: the select shows 2, and says the run is still 1 layer until "Start over"
  await page.click('#writer [data-role=step]');
  await page.waitForFunction(() => document.querySelector('#writer [data-role=status]').dataset.step === '1');
  assert.ok(await page.isHidden('#writer [data-role=pending]'));
  await page.selectOption('#writer select[data-setting=glayers]', '2');
  await page.waitForSelector('#writer select[data-setting=glayers] + [data-role=pending]:not([hidden])');
  assert.match(await page.textContent('#writer select[data-setting=glayers] + [data-role=pending]'), /this run: 1; applies when you start over/);
  assert.match(await statusOf(page).textContent(), / 1 layer,/);
  // a paused run shows no rate (its last one would be stale)
  assert.match(await statusOf(page).textContent(), / · paused · /);
  await page.click('#writer [data-role=restart]');
  await page.click('#writer [data-role=discard]');
  await page.waitForFunction(() => / 2 layers,/.test(document.querySelector('#writer [data-role=status]').textContent));
  assert.ok(await page.isHidden('#writer select[data-setting=glayers] + [data-role=pending]'));
  // settings the engine refuses (4 layers of width 128 over a context of 64) are not offered:
  // with 4 layers and width 128 chosen, context 64 is greyed out and says why
  await page.click('#writer [data-role=step]');
  await page.waitForFunction(() => document.querySelector('#writer [data-role=status]').dataset.step === '1');
  for (const [key, value] of [['glayers', '4'], ['gdim', '128']]) await page.selectOption(`#writer select[data-setting=${key}]`, value);
  await page.waitForFunction(() => document.querySelector('#writer select[data-setting=gctx] option[value="64"]').disabled);
  assert.match(await page.getAttribute('#writer select[data-setting=gctx] option[value="64"]', 'title'), /^The engine does not accept this: createGPT: one training step \(batch 16 × context 64, 4 layers of width 128/);
  assert.ok(await page.isVisible('#writer [data-role=refused-choices]'));
  assert.match(await statusOf(page).textContent(), /^step 1 of 50 .* 2 layers,/);
  assert.ok(await page.isVisible('#writer select[data-setting=gdim] + [data-role=pending]'), 'the width chosen still says it is not the run\'s');
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('writer: one play control: space does what Start does, before any training too (the run is on the shell\'s ticker), and Step takes one step', async () => {
  // the longest schedule offered: TINY's 50 steps take a fraction of a second on a quiet machine, and a run
  // that has finished before the last Space reads "finished", not "paused"
  const page = await openPage(env, { query: q({ section: 'writer', lang: 'en', ...TINY, gsteps: 2000 }) });
  await page.locator('#writer').scrollIntoViewIfNeeded();
  await page.waitForSelector('#writer [data-role=samples] li');
  const playState = () => page.getAttribute('#writer [data-role=play]', 'data-state');
  const stepOf = async () => Number(await statusOf(page).getAttribute('data-step'));
  assert.ok(await page.isHidden('#writer .stepper .step-play'), 'the stepper has no play of its own');
  assert.ok(await page.isHidden('#writer .stepper .speed'));
  assert.equal(await stepOf(), 0);
  // space on the stage, before any step: the run trains, and Start says Pause
  await page.focus('#writer .stage');
  await page.keyboard.press('Space');
  await page.waitForFunction(() => document.querySelector('#writer [data-role=play]').dataset.state === 'running');
  assert.equal(await page.textContent('#writer [data-role=play]'), 'Pause');
  await page.waitForFunction(() => Number(document.querySelector('#writer [data-role=status]').dataset.step) > 0);
  // space again pauses it, as Pause would
  await page.keyboard.press('Space');
  await page.waitForFunction(() => document.querySelector('#writer [data-role=play]').dataset.state === 'paused');
  await page.waitForFunction(() => / · paused · /.test(document.querySelector('#writer [data-role=status]').textContent));
  const paused = await stepOf();
  await page.click('#writer [data-role=step]');
  await page.waitForFunction((n) => Number(document.querySelector('#writer [data-role=status]').dataset.step) === n + 1, paused);
  assert.equal(await playState(), 'paused');
  // Start, then space: the same control
  await page.click('#writer [data-role=play]');
  await page.waitForFunction(() => !/ · paused · /.test(document.querySelector('#writer [data-role=status]').textContent));
  await page.focus('#writer .stage');
  await page.keyboard.press('Space');
  await page.waitForFunction(() => document.querySelector('#writer [data-role=play]').dataset.state === 'paused');
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('writer: choices the engine would refuse with the other settings are greyed out with its reason (zh and en), and come back when another setting makes room', async () => {
  const page = await openPage(env, { query: q({ section: 'writer', lang: 'en' }) });
  const option = (key, value) => `#writer select[data-setting=${key}] option[value="${value}"]`;
  await page.waitForSelector('#writer select[data-setting=gdim]');
  // the defaults (2 layers, width 64, context 32) over the quatrains: width 128 or context 64 alone is too much work
  await page.waitForFunction((sel) => document.querySelector(sel).disabled, option('gdim', 128));
  assert.ok(await page.$eval(option('gctx', 64), (o) => o.disabled));
  assert.ok(!(await page.$eval(option('gdim', 32), (o) => o.disabled)));
  assert.match(await page.getAttribute(option('gdim', 128), 'title'), /^The engine does not accept this: createGPT: one training step \(batch 16 × context 32, 2 layers of width 128, vocabulary 36\d\d\) would take/);
  const note = '#writer [data-role=refused-choices]';
  assert.ok(await page.isVisible(note));
  assert.equal(await page.getAttribute('#writer select[data-setting=gdim]', 'aria-describedby'), await page.getAttribute(note, 'id'));
  assert.equal(await page.getAttribute('#writer select[data-setting=glr]', 'aria-describedby'), null);
  // a shorter context makes room for width 128
  await page.selectOption('#writer select[data-setting=gctx]', '16');
  await page.waitForFunction((sel) => !document.querySelector(sel).disabled, option('gdim', 128));
  await page.selectOption('#writer select[data-setting=gdim]', '128');
  // now context 32 would be too much with width 128 (that the engine accepts what is offered:
  // tests/gpt-writer-choices.test.js)
  await page.waitForFunction((sel) => document.querySelector(sel).disabled, option('gctx', 32));
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
  // a link to settings the engine refuses (no run): the choices show what would be accepted, in Chinese
  const zh = await openPage(env, { query: q({ section: 'writer', lang: 'zh', glayers: 4, gdim: 128, gctx: 64 }) });
  await zh.waitForFunction((sel) => document.querySelector(sel)?.disabled, option('gdim', 128));
  assert.match(await zh.getAttribute(option('gdim', 128), 'title'), /^引擎不接受：一步训练（一批 16 段、每段 64 个字，4 层、宽 128/);
  assert.ok(!(await zh.$eval(option('gdim', 16), (o) => o.disabled)), 'width 16 fits 4 layers over a context of 64');
  assert.match(await zh.textContent(note), /^灰色的选项不能选/);
  await zh.closeAll();
});

test('block: the input rows say they are random stand-ins for embedding plus position, as they are (rng.randn)', async () => {
  for (const [lang, word] of [['en', /random numbers standing in for embedding \+ position/], ['zh', /随机数，代替 embedding \+ 位置/]]) {
    const page = await openPage(env, { query: q({ section: 'block', lang, embed: 1 }) });
    await page.waitForSelector('#block [data-row="X"]');
    assert.match(await page.textContent('#block [data-row="X"]'), word);
    assert.match(await page.textContent('#block .narration'), lang === 'en' ? /random draws standing in/ : /随机抽的数/);
    await page.closeAll();
  }
});

test('generate on a phone: the top-10 table says it is wider than the page, its caption is whole; the exported SVG shows the chosen layer and head, every cache column, the strike-through, and no scroll hint', async () => {
  const page = await openPage(env, { query: q({ section: 'generate', gmodel: 'writer', lang: 'en', ...TINY, gctx: 16, gtopk: 3, gtopp: 1 }), width: 375, height: 800 });
  await page.locator('#generate').scrollIntoViewIfNeeded();
  await page.waitForSelector('#generate [data-role=distribution] tbody tr');
  await page.waitForSelector('#generate [data-role=dist-scrolls]:not([hidden])');
  assert.match(await page.textContent('#generate [data-role=dist-scrolls]'), /Wider than the page/);
  const caption = await page.$eval('#generate .dist-caption', (el) => { const r = el.getBoundingClientRect(); return { right: r.right, text: el.textContent, width: document.documentElement.clientWidth }; });
  assert.ok(caption.right <= caption.width, `the caption ends at ${caption.right} of ${caption.width} px`);
  assert.match(caption.text, /struck-out ones are cut/);
  const kCols = await page.$$eval('#generate [data-matrix="Kcache"] thead th', (ths) => ths.length);
  const kTexts = await page.$$eval('#generate [data-matrix="Kcache"] tbody td.cell', (tds) => tds.map((td) => td.textContent));
  const cutCells = await page.$$eval('#generate [data-role=distribution] tr.cut td', (tds) => tds.length);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#generate .tool-export')]);
  const svg = (await downloadBytes(download)).toString('utf8');
  assert.ok(kCols >= 8);
  assert.doesNotMatch(svg, /Wider than the page/);
  assert.match(svg, />layer 1</);
  assert.match(svg, />head 1</);
  assert.equal((svg.match(/class="strike"/g) || []).length, cutCells, 'one line through each cut cell');
  // every K cell is drawn inside the picture (nothing clipped away by the phone's scroll box)
  const width = Number(/<svg[^>]* width="([\d.]+)"/.exec(svg)[1]);
  const frame = await page.evaluate(async ({ svg }) => {
    const doc = new DOMParser().parseFromString(svg, 'image/svg+xml');
    const host = document.createElement('div');
    host.style.cssText = 'position:absolute;left:0;top:0';
    host.append(document.importNode(doc.documentElement, true));
    document.body.append(host);
    const el = host.firstChild;
    const box = el.getBoundingClientRect();
    const clips = [...el.querySelectorAll('clipPath rect')].map((r) => r.getBoundingClientRect());
    const out = [...el.querySelectorAll('text')].map((t) => {
      const r = t.getBoundingClientRect();
      const g = t.closest('g[clip-path]');
      const clip = g ? el.querySelector(`${g.getAttribute('clip-path').slice(4, -1)} rect`).getBoundingClientRect() : null;
      return { text: t.textContent, inside: r.right <= box.right + 1 && (!clip || r.right <= clip.right + 1) };
    });
    host.remove();
    return { out, clips: clips.length };
  }, { svg });
  assert.ok(width > 375, `the picture widens to the whole table (${width} px)`);
  const drawn = new Map();
  for (const t of frame.out) if (t.inside) drawn.set(t.text, (drawn.get(t.text) || 0) + 1);
  const missing = kTexts.filter((t) => !drawn.get(t) || !drawn.set(t, drawn.get(t) - 1));
  assert.deepEqual(missing, [], 'every K cache number is in view in the picture');
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('zh: the engine\'s refusals are said in Chinese, numbers grouped; an integer question says the answer must be exact', async () => {
  const page = await openPage(env, { query: q({ section: 'generate', lang: 'zh', embed: 1, quiz: 1, ...TINY, gctx: 16 }) });
  await page.waitForSelector('#generate [data-role=distribution] tbody tr');
  assert.match(await page.textContent('#generate .dist-caption'), /^\d{1,3}(,\d{3})* 个字|词表共 \d{1,3}(,\d{3})+ 个字/);
  await page.fill('#generate [data-setting=gprompt]', '白日依山尽🙂xyz');
  await page.press('#generate [data-setting=gprompt]', 'Enter');
  await page.waitForSelector('#generate [data-role=prompt-error]:not([hidden])');
  const refusal = await page.textContent('#generate [data-role=prompt-error]');
  assert.match(refusal, /^这个开头不能用：开头里有 4 个字不在词表里（词表是从训练文本建的，共 \d{1,3}(,\d{3})+ 个）/);
  assert.doesNotMatch(refusal, /generate:|vocabulary|\d{4}/);
  await page.fill('#generate [data-setting=gprompt]', '白日');
  await page.press('#generate [data-setting=gprompt]', 'Enter');
  await page.waitForSelector('#generate [data-role=prompt-error][hidden]', { state: 'attached' });
  await page.click('#generate .step-forward');
  await page.waitForSelector('#generate .quiz-hint');
  assert.equal(await page.textContent('#generate .quiz-hint'), '填一个数，要完全相同才算对。');
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('the writer\'s loss chart on a phone: drawn in the width it has, so its axis labels keep their size; its legend draws the baselines dashed and dotted, as the chart does; an untrained model\'s heads look almost evenly, at no character "most"', async () => {
  const page = await openPage(env, { query: q({ section: 'writer', lang: 'en', ...TINY }), width: 375, height: 800 });
  await page.locator('#writer').scrollIntoViewIfNeeded();
  await page.waitForSelector('#writer .loss-plot svg .tick');
  // drawn again once the element's width is known (a ResizeObserver's report): wait for that state
  await page.waitForFunction(() => {
    const plot = document.querySelector('#writer .loss-plot');
    return plot.querySelector('svg').viewBox.baseVal.width === Math.min(560, Math.max(280, Math.round(plot.getBoundingClientRect().width)));
  });
  const ticks = await page.$$eval('#writer .loss-plot svg .tick', (els) => els.map((el) => el.getBoundingClientRect().height));
  // 10 px in CSS; a 560-unit picture shrunk into a phone's 300 px drew them about 6 px tall
  assert.ok(ticks.length > 0 && Math.min(...ticks) >= 9, `tick labels ${ticks.map((t) => t.toFixed(1)).join(', ')} px tall`);
  const swatches = await page.$$eval('#writer .legend li .swatch', (els) => els.map((el) => [el.parentElement.className, getComputedStyle(el).backgroundImage]));
  for (const [cls, image] of swatches) {
    if (/legend-(unigram|uniform)/.test(cls)) assert.match(image, /repeating-linear-gradient/, cls);
  }
  // the untrained model's heads share out their attention almost evenly: no head "looks most" at
  // a character then (each title is checked against its strip's weights)
  await page.waitForSelector('#writer .attn-head-title');
  const heads = await page.$$eval('#writer .attn-head', (els) => els.map((el) => ({
    title: el.querySelector('.attn-head-title').textContent,
    weights: el.querySelector('.attn-strip').getAttribute('aria-label').split(': ')[1].split(', ').map((x) => Number(x.split(' ').pop())),
  })));
  assert.ok(heads.length > 0);
  for (const { title, weights } of heads) {
    const even = Math.max(...weights) < 1.5 / weights.length;
    assert.match(title, even ? /almost evenly/ : /looks most at/, `${title}: ${weights}`);
    assert.ok(even, `step 0: ${title}`);
  }
  await page.closeAll();
});
