// gpt-sections.test.js: the three GPT sections (block, writer, generate) driven as a reader
// would, on tiny GPTs only (glayers=1, gdim=16, gctx=8 or 16), waiting on state, never on time:
//   - block: stepping changes what is shown, and its numbers equal the API's (the same
//     computeBlock in Node over the same WASM);
//   - writer: bad text is refused inline with the engine's message and the textarea keeps it;
//     training produces generated text; a finished run is not thrown away without asking; a
//     saved model loads and generates the same poems;
//   - writer: the stepper walks the column of samples (a reader on an old one stays there);
//   - writer under a CSP that refuses blob: workers (page and classic widget): it trains on the
//     page's thread, in chunks, with the same controls and a notice; with worker-src blob:, in
//     its worker; from file:// and in iframe mode, in its worker given the page's WebAssembly;
//   - generate: the KV cache grows a row per token, and the distribution shows what top-k cut.
// A check of the block or the writer alone opens that section in iframe mode, where it is the one
// built; generation on the writer's model and the widgets use the page. Their axe audits, drawn
// and stepped, are page-a11y's, in its four configurations of the whole page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openBrowser, newPage, ROOT } from './harness.js';
import { openPage, q, holdWorkerMessages } from './page-helpers.js';
import { newBlogPage, waitForWidget, STRICT_CSP } from './widget-helpers.js';
import { load } from '../../web/qkv-lab.js';
import { computeBlock, rowOf } from '../../web/page/gpt/block-model.js';
import { fmt } from '../../web/page/shell/dom.js';

const END = 50;   // the schedule the writer runs to (gsteps)
const TINY = { glayers: 1, gdim: 16, gheads: 2, gctx: 8, gsteps: 50 };
let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env.close(); });

const cells = (page, section, matrix) => page.$$eval(`#${section} [data-matrix="${matrix}"] tbody td.cell`, (tds) => tds.map((td) => td.textContent));
const stageOf = (page) => page.getAttribute('#block', 'data-stage');
const visibleRows = (page) => page.$$eval('#block .block-row', (rows) => rows.filter((r) => !r.hidden).map((r) => r.dataset.row));
const status = (page) => page.locator('#writer [data-role=status]');

test('block: stepping walks the token through the block, and every number shown is the API\'s', async () => {
  const page = await openPage(env, { query: q({ embed: 1, section: 'block', lang: 'en', bdim: 8, bheads: 2, btok: 3 }) });
  await page.waitForSelector('#block [data-matrix="ln1"] td.cell', { state: 'attached' });
  assert.equal(await stageOf(page), 'input');
  assert.deepEqual(await visibleRows(page), ['X']);
  // btok 3 is the 4th character, 山, counted from 1 as a reader counts
  assert.match(await page.textContent('#block .narration'), /^The input is 5 characters, one row of 8 numbers each\. .* We follow character 4, “山”\./);
  assert.equal(await page.$eval('#block select[data-setting=btok]', (el) => el.selectedOptions[0].textContent), '4: 山');
  const qkv = await load({ gpt: true });
  const snap = computeBlock(qkv, { d: 8, heads: 2, token: 3, seed: 42 });
  const texts = (m) => Array.from(m.data, (v) => fmt(v));
  assert.deepEqual(await cells(page, 'block', 'Xblock'), texts(snap.X));
  const seen = [];
  for (let k = 0; k < 11; k++) {
    const before = await page.textContent('#block .narration');
    await page.click('#block .step-forward');
    await page.waitForFunction((b) => document.querySelector('#block .narration').textContent !== b, before);
    seen.push([await stageOf(page), await visibleRows(page)]);
    assert.doesNotMatch(await page.textContent('#block .narration'), /\{\w+\}/, 'every placeholder filled');
  }
  assert.deepEqual(seen.map(([s]) => s), ['stats1', 'normalise1', 'affine1', 'attention', 'residual1', 'ln2', 'expand', 'gelu', 'contract', 'residual2', 'parts']);
  assert.ok(seen.every(([, rows], i) => i === 0 || rows.join() !== seen[i - 1][1].join()), 'each stage shows other rows');
  // the rows, as transformerBlock computes them
  const t = snap.token;
  for (const [name, m] of [['x', snap.X], ['hat1', snap.hat1], ['ln1', snap.trace.ln1], ['attn', snap.trace.attention.output],
    ['resid1', snap.trace.resid1], ['ln2', snap.trace.ln2], ['hidden', snap.trace.hidden], ['gelu', snap.trace.gelu],
    ['mlp', snap.trace.mlp], ['out', snap.trace.output]]) {
    assert.deepEqual(await cells(page, 'block', name), texts(rowOf(m, t)), name);
  }
  assert.equal(snap.trace.hidden.cols, 32, 'the FFN is 4d wide');
  const stats = await page.textContent('#block [data-row="stats1"] .block-stats');
  assert.ok(stats.includes(`μ = ${fmt(snap.ln1.mean)}`) && stats.includes(`σ² = ${fmt(snap.ln1.variance)}`), stats);
  // the keyboard steps it too: back one with ←, from the stage
  await page.focus('#block .stage');
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(() => document.querySelector('#block').dataset.stage === 'residual2');
  // the parameter table follows the width
  assert.match(await page.textContent('#block .block-parts tr.total'), /12·8² \+ 13·8\s*872/);
  await page.selectOption('#block select[data-setting="bdim"]', '16');
  await page.waitForFunction(() => document.querySelector('#block .block-parts tr.total').textContent.includes('3,280'));
  assert.match(page.url(), /bdim=16/);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('writer: refused text stays typed with the engine\'s message; training writes; a finished run is kept unless the reader says; a saved model loads and writes the same', async () => {
  const page = await openPage(env, { query: q({ embed: 1, section: 'writer', lang: 'en', ...TINY }) });
  await page.locator('#writer').scrollIntoViewIfNeeded();   // the run starts when the section is seen
  await page.waitForSelector('#writer [data-role=samples] li');   // step 0: a sample at once
  // bad text: too few lines
  const bad = '春眠不觉晓\n处处闻啼鸟\n夜来风雨声';
  await page.fill('#writer [data-role=own-text]', bad);
  await page.click('#writer [data-role=train-own]');
  await page.waitForSelector('#writer [data-role=own-error]:not([hidden])');
  assert.match(await page.textContent('#writer [data-role=own-error]'), /createGPT: the text has 3 non-empty lines; it needs at least 10/);
  assert.equal(await page.inputValue('#writer [data-role=own-text]'), bad);
  assert.equal(await status(page).getAttribute('data-step'), '0', 'the quatrain run is still there');

  // train to the end of the schedule (of a tiny GPT)
  await page.click('#writer [data-role=play]');
  await page.waitForFunction(() => document.querySelector('#writer [data-role=status]').dataset.done === 'true', null, { timeout: 120000 });
  const samples = await page.$$eval('#writer [data-role=samples] li', (lis) => lis.map((li) => [Number(li.dataset.step), li.querySelector('.sample-poem').textContent]));
  assert.equal(samples[0][0], END, 'newest first');
  assert.equal(samples.length, END / 25 + 1, 'a sample at step 0 and every 25 steps');
  assert.ok(samples.every(([, poem]) => poem.length > 0));
  assert.ok((await page.textContent('#writer [data-role=share]')).startsWith(`Step ${END}: of 8 poems`));
  // the attention of the typed line: one strip per head (1 layer × 2 heads)
  await page.fill('#writer [data-role=line]', '白日依山尽');
  await page.waitForFunction(() => document.querySelectorAll('#writer [data-role=attention] .attn-head').length === 2);
  await page.hover('#writer .attn-chars button:nth-child(3)');
  await page.waitForFunction(() => document.querySelector('#writer .attn-chars button:nth-child(3)').getAttribute('aria-pressed') === 'true');
  assert.equal(await page.locator('#writer [data-role=attention] .attn-head').first().locator('.attn-strip > span').count(), 3);

  // starting over asks first; keeping it keeps it
  await page.click('#writer [data-role=restart]');
  await page.waitForSelector('#writer [data-role=ask]:not([hidden])');
  await page.click('#writer [data-role=keep]');
  assert.equal(await status(page).getAttribute('data-step'), String(END));

  // save, then load the file: the loaded model writes the same poems at the last step
  const finalPoem = samples[0][1];
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#writer [data-role=save]')]);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'qkv-gpt-')), 'model.qkvgpt');
  await download.saveAs(file);
  assert.ok(fs.statSync(file).size > 60000);
  await page.setInputFiles('#writer [data-role=load]', file);   // saved: no question
  await page.waitForFunction(() => document.querySelector('#writer [data-role=status]').textContent.startsWith('loaded from a file'));
  await page.waitForFunction(() => document.querySelectorAll('#writer [data-role=samples] li').length === 1);
  assert.equal(await page.textContent('#writer [data-role=samples] li .sample-poem'), finalPoem);
  assert.ok(await page.isDisabled('#writer [data-role=play]'), 'a file has no text to train on');
  // bytes that are not a model: the engine's message, inline
  const junk = path.join(path.dirname(file), 'junk.qkvgpt');
  fs.writeFileSync(junk, 'not a model');
  await page.setInputFiles('#writer [data-role=load]', junk);
  await page.waitForSelector('#writer [data-role=error]:not([hidden])');
  assert.match(await page.textContent('#writer [data-role=error]'), /loadGPT: these 11 bytes are not a qkv-lab GPT file/);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('writer: Pause then Start before the worker has answered the pause, or after its answer came and before it was drawn, keeps the run going; a schedule the menu does not list shows in it', async () => {
  // a schedule the menu does not list (it offers 50, 100, 300, …): the menu shows it, not a blank
  const page = await openPage(env, { query: q({ embed: 1, section: 'writer', lang: 'en', ...TINY, gsteps: 1200 }), init: holdWorkerMessages });
  await page.locator('#writer').scrollIntoViewIfNeeded();
  await page.waitForSelector('#writer [data-role=samples] li');
  assert.equal(await page.inputValue('#writer select[data-setting=gsteps]'), '1200');
  assert.deepEqual(await page.$$eval('#writer select[data-setting=gsteps] option', (os) => os.map((o) => o.textContent)), ['50', '100', '300', '600', '1000', '1200', '2000']);
  await page.click('#writer [data-role=play]');
  await page.waitForFunction(() => Number(document.querySelector('#writer [data-role=status]').dataset.step) >= 3);
  // both clicks in one task: the worker's answer to the pause can only arrive after the Start
  const at = await page.evaluate(() => {
    const play = document.querySelector('#writer [data-role=play]');
    play.click();   // Pause
    play.click();   // Start
    return Number(document.querySelector('#writer [data-role=status]').dataset.step);
  });
  // it trains on (the old code stopped for good here: the Start was lost)
  await page.waitForFunction((n) => Number(document.querySelector('#writer [data-role=status]').dataset.step) >= n + 20, at, { timeout: 60000 });
  // the order CI once met (the run's reports held, so it is the same every time): Pause; its
  // answer reaches the page, and before the page has drawn it the reader presses Start. The
  // writer's clock follows the run, so the drawn answer must not stop it again.
  const drawnStep = () => page.evaluate(() => Number(document.querySelector('#writer [data-role=status]').dataset.step));
  await page.evaluate(() => window.__holdTypes.add('progress'));
  await page.waitForFunction((drawn) => window.__held.some((m) => m.data.step > drawn), await drawnStep());
  await page.click('#writer [data-role=play]');   // Pause
  await page.waitForFunction(() => window.__held.some((m) => m.data.running === false));
  const paused = await page.evaluate(() => {
    const answer = window.__held.find((m) => m.data.running === false).data;
    window.__release();   // the reports up to the Pause's answer (the Start's answer will be held)
    document.querySelector('#writer [data-role=play]').click();   // Start, in the same task
    return answer.step;
  });
  // the snapshot with the Pause's answer is drawn (its step is past what was drawn before)
  await page.waitForFunction((n) => Number(document.querySelector('#writer [data-role=status]').dataset.step) === n, paused);
  assert.equal(await page.getAttribute('#writer [data-role=play]', 'data-state'), 'running', 'the drawn Pause answer did not stop the clock');
  await page.evaluate(() => { window.__holdTypes.clear(); window.__release(); });
  await page.waitForFunction((n) => Number(document.querySelector('#writer [data-role=status]').dataset.step) >= n + 20, paused, { timeout: 60000 });
  assert.equal(await page.getAttribute('#writer [data-role=play]', 'data-state'), 'running');
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('writer: the stepper walks the column of samples, each step showing that sample\'s poem and share; a reader on an older sample is not pulled to new ones', async () => {
  const LAST = 150;   // samples at steps 0, 25, …, 150
  const N = LAST / 25 + 1;
  const page = await openPage(env, { query: q({ embed: 1, section: 'writer', lang: 'en', ...TINY, gsteps: LAST }) });
  await page.locator('#writer').scrollIntoViewIfNeeded();
  await page.waitForSelector('#writer [data-role=samples] li');
  // what the stepper and the column show, read at one moment
  const shown = () => page.evaluate(() => {
    const w = document.querySelector('#writer');
    const current = [...w.querySelectorAll('[data-role=samples] li.current')];
    return {
      position: w.querySelector('.step-position').textContent, count: w.querySelectorAll('[data-role=samples] li').length,
      current: current.map((li) => Number(li.dataset.step)), poem: current[0]?.querySelector('.sample-poem').textContent,
      narration: w.querySelector('.narration').textContent, share: w.querySelector('[data-role=share]').textContent,
    };
  });
  assert.equal((await shown()).position, 'sample 1 of 1');
  // while it trains, a reader on the newest sample follows the new ones
  await page.click('#writer [data-role=play]');
  await page.waitForFunction(() => document.querySelectorAll('#writer [data-role=samples] li').length >= 2, null, { timeout: 120000 });
  await page.click('#writer [data-role=play]');   // Pause
  await page.waitForFunction(() => document.querySelector('#writer [data-role=play]').dataset.state === 'paused');
  let now = await shown();
  assert.equal(now.position, `sample ${now.count} of ${now.count}`, 'on the newest sample');
  assert.deepEqual(now.current, [25 * (now.count - 1)]);
  // back to the first sample: it stays there while the run goes on to the end
  await page.click('#writer .step-first');
  await page.waitForFunction(() => document.querySelector('#writer .step-position').textContent.startsWith('sample 1 of'));
  const before = (await shown()).count;
  assert.ok(before < N, `paused with ${before} of the ${N} samples`);
  await page.click('#writer [data-role=play]');
  await page.waitForFunction(() => document.querySelector('#writer [data-role=status]').dataset.done === 'true', null, { timeout: 120000 });
  await page.waitForFunction((n) => document.querySelectorAll('#writer [data-role=samples] li').length === n, N);
  now = await shown();
  assert.equal(now.position, `sample 1 of ${N}`, 'not pulled to the new samples');
  assert.deepEqual(now.current, [0]);
  // each step forward: the next sample, its poem in the narration, its share
  const poems = await page.$$eval('#writer [data-role=samples] li', (lis) => Object.fromEntries(lis.map((li) => [li.dataset.step, li.querySelector('.sample-poem').textContent])));
  for (let k = 0; k < N; k++) {
    if (k > 0) {
      await page.click('#writer .step-forward');
      await page.waitForFunction(([k, n]) => document.querySelector('#writer .step-position').textContent === `sample ${k} of ${n}`, [k + 1, N]);
    }
    now = await shown();
    const step = 25 * k;
    assert.deepEqual(now.current, [step], `sample ${k} highlighted`);
    assert.equal(now.poem, poems[step]);
    assert.ok(now.narration.startsWith(`At step ${step}, seed 0 wrote “${poems[step]}”. `), now.narration);
    assert.match(now.share, new RegExp(`^Step ${step}: of 8 poems written at temperature 0\\.8, \\d+ have`));
    // all eight poems of this sample, each by its lines (ending at ，or 。), the well-formed ones as many as the share says
    const eight = await page.$$eval('#writer [data-role=poems] li', (lis) => lis.map((li) => ({
      good: li.dataset.good, lines: [...li.querySelectorAll('.poem-line')].map((l) => l.textContent) })));
    assert.equal(eight.length, 8);
    assert.equal(eight[0].lines.join(''), poems[step]);
    assert.ok(eight.every((p) => p.lines.slice(0, -1).every((l) => /[，。]$/.test(l))), 'a line ends at its punctuation');
    assert.equal(String(eight.filter((p) => p.good === 'true').length), /, (\d+) have/.exec(now.share)[1]);
  }
  // one play control: the stepper walks the samples, Start trains; a finished run shows no rate
  assert.ok(await page.isHidden('#writer .stepper .step-play'));
  assert.match(await status(page).textContent(), / · finished · /);
  assert.doesNotMatch(await status(page).textContent(), /steps\/s/);
  assert.ok(await page.isDisabled('#writer .step-forward'), 'the newest sample is the last step');
  // the keyboard: ← from the stage goes back one sample
  await page.focus('#writer .stage');
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction((n) => document.querySelector('#writer .step-position').textContent === `sample ${n - 1} of ${n}`, N);
  assert.deepEqual((await shown()).current, [LAST - 25]);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('generate (the writer\'s model): the prefill matrix, then the K and V caches grow one row per token; top-k cuts visibly', async () => {
  // the section alone (iframe mode): on the page the poem would play itself when seen, and this
  // test steps it; without a writer section beside it, generation trains the run itself (below)
  const page = await openPage(env, { query: q({ embed: 1, section: 'generate', lang: 'en', gmodel: 'writer', ...TINY, gctx: 16, gtopk: 3, gtopp: 1 }) });
  await page.locator('#generate').scrollIntoViewIfNeeded();
  await page.waitForSelector('#generate [data-role=distribution] tbody tr');
  const rows = () => page.getAttribute('#generate [data-role=cache]', 'data-rows');
  assert.equal(await rows(), '7', 'the prompt 白日依山尽， and the start token');
  assert.equal((await cells(page, 'generate', 'prefill')).length, 49);
  assert.equal((await cells(page, 'generate', 'Kcache')).length, 7 * 8);
  const kept = await page.$$eval('#generate [data-role=distribution] tbody tr', (trs) => trs.map((tr) => !tr.classList.contains('cut')));
  assert.deepEqual(kept, [true, true, true, false, false, false, false, false, false, false], 'top-k 3 keeps 3 of the 10 shown');
  const chosen = await page.$$eval('#generate [data-role=distribution] tr.chosen', (trs) => trs.length);
  assert.equal(chosen, 1);
  for (let k = 1; k <= 3; k++) {
    await page.click('#generate .step-forward');
    await page.waitForFunction((n) => document.querySelector('#generate [data-role=cache]').dataset.rows === String(n), 7 + k);
    assert.equal((await cells(page, 'generate', 'Vcache')).length, (7 + k) * 8);
    assert.equal(await page.locator('#generate [data-role=attention-row] .bar-row').count(), 7 + k);
  }
  // generation runs to the end token or until the context (16) is full, and its last step says which
  const endNote = () => page.textContent('#generate [data-role=text-end]');
  let k = 3;
  while ((await endNote()) === '' && k < 16) {
    k++;
    await page.click('#generate .step-forward');
    await page.waitForFunction((n) => document.querySelector('#generate [data-role=cache]').dataset.rows === String(n), 7 + k);
  }
  assert.match(await endNote(), /^(The model wrote the end token|All 16 positions of the context are used)/);
  // the last character is drawn from a cache of 15 rows: with it the text fills all 16 positions
  if (/All 16/.test(await endNote())) assert.equal(7 + k, 15, 'cut only when the context is full');
  // without a writer section (a widget, an iframe) generation trains the run itself, then takes it
  await page.click('#generate [data-role=train]');
  await page.waitForFunction(() => /step 50 /.test(document.querySelector('#generate [data-role=writer-step]').textContent), null, { timeout: 120000 });
  await page.click('#generate [data-role=take-model]');
  await page.waitForFunction(() => /at step 50 /.test(document.querySelector('#generate [data-role=model]').textContent));
  await page.click('#generate .step-first');   // the new model's prefill
  await page.waitForFunction(() => document.querySelector('#generate [data-role=cache]').dataset.rows === '7');
  await page.click('#generate [data-role=measure]');
  await page.waitForFunction(() => /ms per character with the cache/.test(document.querySelector('#generate [data-role=cost]').textContent));
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('from file:// the single file trains the writer in its worker (a blob: URL, given the page\'s compiled WebAssembly) with nothing leaving the machine, in iframe mode too; its file picker loads the pretrained poet', async () => {
  for (const query of [q({ lang: 'zh', ...TINY }), q({ embed: 1, section: 'writer', lang: 'en', ...TINY })]) {
    const page = await openPage(env, { file: true, query });
    await page.locator('#writer').scrollIntoViewIfNeeded();
    await page.waitForSelector('#writer [data-role=samples] li');
    await page.click('#writer [data-role=step]');
    await page.waitForFunction(() => document.querySelector('#writer [data-role=status]').dataset.step === '1');
    assert.equal(await page.getAttribute('#writer [data-role=thread]', 'data-thread'), 'worker', query);
    if (query.includes('embed')) {
      // the single file carries no model (loadPretrained() refuses there): the package's file, picked
      // beside it, loads into the writer and writes (docs/pretrained.md, "The single-file page")
      await page.setInputFiles('#writer [data-role=load]', path.join(ROOT, 'web', 'pretrained', 'tang-poet.qkvgpt'));
      await page.waitForSelector('#writer [data-role=ask]:not([hidden])');   // the step above is in no file: it asks
      await page.click('#writer [data-role=discard]');
      await page.waitForFunction(() => /^loaded from a file: trained 3000 steps · 4 layers, 4 heads, width 128, context 72/
        .test(document.querySelector('#writer [data-role=status]').textContent), null, { timeout: 120000 });
      await page.waitForFunction(() => document.querySelectorAll('#writer [data-role=samples] li').length === 1, null, { timeout: 120000 });
      assert.match(await page.textContent('#writer [data-role=samples] li .sample-poem'), /^\p{Script=Han}/u);
    }
    assert.deepEqual(page.problems(), []);
    await page.closeAll();
  }
});

// The README's widget policy leaves blob: out (no worker-src, so script-src applies)
const NO_BLOB_WORKERS = STRICT_CSP;
// the browser's own report of the refused worker, which it prints as a console error
const REFUSED_WORKER = /^console error: Creating a worker from 'blob:[^']+' violates the following Content Security Policy directive/;

/** The served page (index.html) under a Content-Security-Policy header. */
const openUnder = (policy, query, options = {}) => openPage(env, { ...options, query, csp: policy });

test('under a CSP that refuses blob: workers the writer trains on the page\'s own thread, says why, and keeps its controls', async () => {
  const LONG = 300;   // long enough that Pause lands before the end (then a Step adds exactly one)
  const page = await openUnder(NO_BLOB_WORKERS, q({ embed: 1, section: 'writer', lang: 'en', ...TINY, gsteps: LONG }));
  await page.locator('#writer').scrollIntoViewIfNeeded();
  await page.waitForSelector('#writer [data-role=samples] li');   // step 0's sample, computed here
  const notice = page.locator('#writer [data-role=thread]');
  assert.equal(await notice.getAttribute('data-thread'), 'page');
  assert.ok(await notice.isVisible());
  assert.match(await notice.textContent(), /^This page's Content-Security-Policy does not let it start a background thread \(its worker-src leaves out blob:\), so the model trains on the page's own thread/);
  // …on smaller batches than a worker's (gpt/local-run.js PAGE_BATCH), which it says
  assert.match(await notice.textContent(), / Here each step learns from 4 windows of text instead of the 16 a background thread takes, so that a step, which cannot be split, stays short/);
  const stepOf = async () => Number(await status(page).getAttribute('data-step'));
  // Step: one step
  await page.click('#writer [data-role=step]');
  await page.waitForFunction(() => document.querySelector('#writer [data-role=status]').dataset.step === '1');
  assert.match(await status(page).textContent(), /^step 1 of 300 · last batch loss \d+\.\d+/);
  // Start, then Pause once it has moved on
  await page.click('#writer [data-role=play]');
  await page.waitForFunction(() => Number(document.querySelector('#writer [data-role=status]').dataset.step) >= 5);
  await page.click('#writer [data-role=play]');   // now "Pause"
  await page.waitForFunction(() => document.querySelector('#writer [data-role=play]').dataset.state === 'paused');
  // the button turns at once; the status is drawn in a frame, which the run's chunks on this
  // thread can delay: read the step once the status says the run paused
  await page.waitForFunction(() => / · paused · /.test(document.querySelector('#writer [data-role=status]').textContent));
  const paused = await stepOf();
  assert.ok(paused >= 5 && paused < LONG, `paused at ${paused}`);
  await page.click('#writer [data-role=step]');
  await page.waitForFunction((n) => document.querySelector('#writer [data-role=status]').dataset.step === String(n), paused + 1);
  // Start again, to the end of the schedule: the samples, the losses and the evaluation at the end
  await page.click('#writer [data-role=play]');
  await page.waitForFunction(() => document.querySelector('#writer [data-role=status]').dataset.done === 'true', null, { timeout: 120000 });
  assert.equal(await stepOf(), LONG);
  const steps = await page.$$eval('#writer [data-role=samples] li', (lis) => lis.map((li) => Number(li.dataset.step)));
  assert.deepEqual(steps, Array.from({ length: LONG / 25 + 1 }, (_, i) => LONG - 25 * i), 'a sample every 25 steps, newest first');
  // evaluations at steps 100, 200 and 300, each in pieces, the steps after it waiting for it
  const label = () => page.getAttribute('#writer svg[role=img]', 'aria-label');
  await page.waitForFunction(() => /^Loss curve: step 300; last validation loss \d+\.\d+/.test(document.querySelector('#writer svg[role=img]').getAttribute('aria-label')), null, { timeout: 120000 });
  assert.match(await label(), /unigram \d+\.\d+; ln V = \d+\.\d+$/);
  await page.waitForFunction(() => document.querySelectorAll('#writer svg[role=img] circle.val').length === 3);
  assert.ok(await page.isHidden('#writer [data-role=error]'), 'no step was taken inside an evaluation (gpt.evaluation() would have refused it)');
  // the notice's readout is filled from the run's reports (its value is the benchmark's business)
  assert.doesNotMatch(await notice.textContent(), /NaN|undefined|null|\{/, 'the notice has a value left unfilled');
  assert.ok((await page.textContent('#writer [data-role=share]')).startsWith(`Step ${LONG}: of 8 poems`));
  // the only problem is the browser's own report of the worker it refused
  const problems = page.problems();
  assert.ok(problems.length >= 1 && problems.every((p) => REFUSED_WORKER.test(p)), problems.join('\n'));
  await page.closeAll();
});

test('a browser that cannot make the worker at all: the writer trains on the page\'s thread and names the browser\'s reason (zh)', async () => {
  const page = await newPage(env);
  await page.addInitScript(() => { window.Worker = function Worker() { throw new TypeError('workers are switched off here'); }; });
  await page.goto(env.url('index.html' + q({ section: 'writer', lang: 'zh', ...TINY })));
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
  await page.locator('#writer').scrollIntoViewIfNeeded();
  await page.waitForSelector('#writer [data-role=samples] li');
  assert.equal(await page.getAttribute('#writer [data-role=thread]', 'data-thread'), 'page');
  assert.match(await page.textContent('#writer [data-role=thread]'), /^后台线程（Web Worker）没能启动（workers are switched off here），所以模型改在页面自己的线程上训练/);
  await page.click('#writer [data-role=step]');
  await page.waitForFunction(() => document.querySelector('#writer [data-role=status]').dataset.step === '1');
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('with a worker-src that lets blob: workers, the writer trains in its worker and shows no notice', async () => {
  const page = await openUnder(`${NO_BLOB_WORKERS}; worker-src 'self' blob:`, q({ section: 'writer', lang: 'zh', ...TINY }));
  await page.locator('#writer').scrollIntoViewIfNeeded();
  await page.waitForSelector('#writer [data-role=samples] li');
  await page.click('#writer [data-role=step]');
  await page.waitForFunction(() => document.querySelector('#writer [data-role=status]').dataset.step === '1');
  assert.equal(await page.getAttribute('#writer [data-role=thread]', 'data-thread'), 'worker');
  assert.ok(await page.isHidden('#writer [data-role=thread]'));
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('the writer widget under the README\'s policy (no blob: workers) trains on the page\'s thread in its shadow root, and says so', async () => {
  const attrs = Object.entries(TINY).map(([k, v]) => `${k}="${v}"`).join(' ');
  const page = await newBlogPage(env, { csp: STRICT_CSP, transform: (html) => html
    .replace('<qkv-lab id="first" lang="zh" seed="42">', `<qkv-lab id="first" section="writer" lang="en" ${attrs}>`) });
  await page.goto(env.url('fixtures/blog-post.html'));
  await waitForWidget(page, 'first', 60000);
  const root = () => page.locator('#first');
  await root().locator('[data-role=samples] li').first().waitFor({ timeout: 60000 });
  assert.equal(await root().locator('[data-role=thread]').getAttribute('data-thread'), 'page');
  assert.match(await root().locator('[data-role=thread]').textContent(), /Content-Security-Policy does not let it start a background thread/);
  await root().locator('[data-role=step]').click();
  await page.waitForFunction(() => document.getElementById('first').shadowRoot.querySelector('[data-role=status]').dataset.step === '1');
  await root().locator('[data-role=play]').click();
  await page.waitForFunction(() => Number(document.getElementById('first').shadowRoot.querySelector('[data-role=status]').dataset.step) >= 5, null, { timeout: 60000 });
  // removed, the widget frees its GPT; then writer and generation widgets inserted and removed,
  // drawn or not yet (a late policy violation must not start a run in a removed widget), leave
  // the WebAssembly heap where it was
  const heap = () => page.evaluate(() => window.QkvLab.load().then((lab) => lab.heapUsed()));
  await page.evaluate(() => document.getElementById('first').remove());
  const baseline = await heap();
  for (let cycle = 0; cycle < 1; cycle++) {
    for (const section of ['writer', 'generate']) {
      for (const drawn of [true, false]) {
        await page.evaluate(({ section, attrs }) => {
          const el = document.createElement('qkv-lab');
          el.id = 'cycled';
          el.setAttribute('section', section);
          el.setAttribute('lang', 'en');
          for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
          document.querySelector('article').prepend(el);
          el.scrollIntoView();
        }, { section, attrs: TINY });
        if (drawn) {
          const ready = section === 'writer' ? '[data-role=samples] li' : '[data-role=distribution] tbody tr';
          await page.waitForFunction((sel) => document.getElementById('cycled')?.shadowRoot?.querySelector(sel), ready, { timeout: 60000 });
        }
        await page.evaluate(() => document.getElementById('cycled').remove());
      }
    }
  }
  // a violation the browser reports after the widget is gone: a worker that never starts (its
  // commands still queued), the widget removed, then the report; nothing may run the queued create
  await page.evaluate(() => {
    window.workersMade = 0;
    window.Worker = function Worker() { window.workersMade++; return { postMessage() {}, terminate() {} }; };
    const el = document.createElement('qkv-lab');
    el.id = 'late';
    el.setAttribute('section', 'writer');
    document.querySelector('article').prepend(el);
    el.scrollIntoView();
  });
  await page.waitForFunction(() => window.workersMade > 0, null, { timeout: 60000 });
  await page.evaluate(() => new Promise((resolve) => {
    document.getElementById('late').remove();
    document.dispatchEvent(new SecurityPolicyViolationEvent('securitypolicyviolation', {
      blockedURI: 'blob:late', effectiveDirective: 'worker-src', violatedDirective: 'worker-src', originalPolicy: '', disposition: 'enforce', statusCode: 200 }));
    setTimeout(resolve, 0);   // a replayed create would have run by now: its steps are microtasks
  }));
  assert.ok(await heap() <= baseline, `the heap is at ${await heap()} bytes, from ${baseline}`);
  // and no policy listener is left on the document by the removed widgets
  const cdp = await page.context().newCDPSession(page);
  const { result } = await cdp.send('Runtime.evaluate', { expression: 'document' });
  const { listeners } = await cdp.send('DOMDebugger.getEventListeners', { objectId: result.objectId });
  assert.deepEqual(listeners.filter((l) => l.type === 'securitypolicyviolation'), []);
  const problems = page.problems();
  assert.ok(problems.length >= 1 && problems.every((p) => REFUSED_WORKER.test(p)), problems.join('\n'));
  await page.closeAll();
});

test('widgets: a block and a generation widget fetch qkv-lab-widget-gpt.js once, on demand, and work in their shadow roots', async () => {
  const page = await newBlogPage(env, { transform: (html) => html
    .replace('<qkv-lab id="first" lang="zh" seed="42">', '<qkv-lab id="first" section="block" lang="en">')
    .replace('</article>', '<qkv-lab id="gen" section="generate" gmodel="writer" lang="zh"></qkv-lab></article>') });
  const seen = [];
  page.on('request', (r) => seen.push(r.url()));
  await page.goto(env.url('fixtures/blog-post.html'));
  await waitForWidget(page, 'first', 60000);
  const inFirst = (sel) => page.evaluate((sel) => document.getElementById('first').shadowRoot.querySelector(sel)?.textContent ?? null, sel);
  await page.waitForFunction(() => document.getElementById('first').shadowRoot.querySelector('section[data-section="block"]'));
  const before = await inFirst('.narration');
  await page.evaluate(() => document.getElementById('first').shadowRoot.querySelector('.step-forward').click());
  await page.waitForFunction((b) => document.getElementById('first').shadowRoot.querySelector('.narration').textContent !== b, before);
  await page.locator('#gen').scrollIntoViewIfNeeded();
  await waitForWidget(page, 'gen', 60000);
  await page.locator('#gen').scrollIntoViewIfNeeded();   // the widgets above have grown: in view again, it starts
  await page.waitForFunction(() => document.getElementById('gen').shadowRoot.querySelector('[data-role=cache]')?.dataset.rows === '7', null, { timeout: 120000 });
  // its advice names what works in a widget: its own training button (no other widget's model reaches it)
  const advice = await page.evaluate(() => document.getElementById('gen').shadowRoot.querySelector('[data-role=model]').textContent);
  assert.match(advice, /按“在后台接着训练它”训练一会儿，再按“用写诗那一节此刻的模型”/);
  assert.deepEqual(seen.filter((u) => /qkv-lab-widget-gpt\.js/.test(u)), [`${env.server.url}/dist/qkv-lab-widget-gpt.js`]);
  assert.ok(!seen.some((u) => /qkv-lab-widget-training\.js/.test(u)), 'the training add-on is not needed');
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

