// training-review.test.js: what an outside review of the two training sections found in them
// (training, trainstep), one test per finding, named for what it keeps true, used as a reader would.
// Run after ./build.sh.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser } from './harness.js';
import { openTraining, readState, settled, referenceRun, openWalk as openWalkIn, WALK, SECTION as TRAINING } from './training-helpers.js';
import { openPage } from './page-helpers.js';


let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env?.close(); });

const openWalk = (query, options) => openWalkIn(env, query, options);

const vocabOf = (section) => section.locator('datalist option').evaluateAll((os) => os.map((o) => o.value));

test('words that are Object.prototype keys (toString, constructor, valueOf, __proto__) train like any other word, by link and by the editor', async () => {
  const corpus = 'toString constructor\nvalueOf toString';
  const { page, section } = await openTraining(env, { query: `section=training&corpus=${encodeURIComponent(corpus)}` });
  assert.equal((await readState(section)).state, 'paused');
  assert.deepEqual(await vocabOf(section), ['toString', 'constructor', 'valueOf']);
  await section.locator('button[data-role="step"]').click();
  assert.equal((await readState(section)).step, 1);
  // through the editor, with __proto__ among the Chinese words
  await section.locator('[data-role="corpus-summary"]').click();
  await section.locator('textarea[data-role="corpus-text"]').fill('一只 猫 __proto__\n我 养 了 一只 hasOwnProperty');
  await section.locator('button[data-role="corpus-apply"]').click();
  await settled(page);
  assert.deepEqual(await vocabOf(section), ['一只', '猫', '__proto__', '我', '养', '了', 'hasOwnProperty']);
  assert.match(await section.locator('.heatmap').textContent(), /__proto__/);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();

  const walk = await openWalk(`section=trainstep&corpus=${encodeURIComponent('猫 __proto__\nvalueOf toString')}`);
  assert.match(await walk.section.textContent(), /__proto__/);
  assert.deepEqual(walk.page.problems(), []);
  await walk.page.closeAll();
});

test('glosses never nest parentheses: 果 (-ple; 苹果 = apple), 一本 (a; one, for books)', async () => {
  const { page, section } = await openWalk('section=trainstep');
  const text = await section.textContent();
  assert.doesNotMatch(text, /\p{Script=Han} \([^()]*\(/u, "a gloss inside a gloss's parentheses");
  assert.match(text, /果 \(-ple; 苹果 = apple\)/u);
  // the prediction cards: no bar label is cut (the right answer '✓ 苹 ap-' least of all)
  await section.locator('button[data-stage="predict"]').click();
  const cut = await section.locator('.ts-card .bar-label').evaluateAll((ls) => ls.filter((l) => l.scrollWidth > l.clientWidth + 1).map((l) => l.textContent));
  assert.deepEqual(cut, []);
  assert.ok((await section.locator('.ts-card .bar-label').allTextContents()).includes('✓ 苹 ap-'));
  await page.closeAll();
});

/** Labels of the heat maps cut by their column (text wider than the box). */
const cutLabels = (locator) => locator.locator('.heat-word').evaluateAll((ls) => ls.filter((l) => l.scrollWidth > l.clientWidth + 1).map((l) => l.textContent));

test('at 1280 px a table cut by its column says that it scrolls, and no heat-map row label is cut', async () => {
  const { page, section } = await openWalk('section=trainstep', { alone: false });   // the page's column width
  assert.deepEqual(await cutLabels(section), []);
  const figures = await section.locator('.matrix-figure').evaluateAll((fs) => fs.filter((f) => f.getClientRects().length)
    .map((f) => ({ cut: f.querySelector('.matrix-scroll').scrollWidth > f.querySelector('.matrix-scroll').clientWidth + 1,
      hint: f.querySelector('[data-role="matrix-scrolls"]')?.checkVisibility() ? f.querySelector('[data-role="matrix-scrolls"]').textContent : null })));
  assert.ok(figures.some((f) => f.cut), 'the 16-column table is wider than the page at 1280 px');
  for (const f of figures) {
    if (f.cut) assert.match(f.hint ?? '', /scroll sideways for the rest \(\d+ of 16 columns in view\)/);
    else assert.equal(f.hint, null);
  }
  await page.closeAll();
  const training = await openTraining(env);
  assert.deepEqual(await cutLabels(training.section), []);
  await training.page.closeAll();
});

const intro = (section, k) => section.locator('.intro p, header p, p').evaluateAll((ps, text) => ps.map((p) => p.textContent).find((t) => t.includes(text)) ?? '', k);

test('the intro\'s sentence on what a step changes follows the optimizer: SGD names <s>, Adam says its moments move more rows, with the count', async () => {
  const { page, section } = await openTraining(env);
  const sgd = await intro(section, 'Below is a real training run');
  assert.match(sgd, /SGD changes only the rows that sentence used: its words, and <s>/);
  assert.match(sgd, /every other row stays exactly as it was/);
  await page.closeAll();

  const adam = await openTraining(env, { query: 'opt=adam', alone: false });   // the page's language button
  for (let i = 0; i < 3; i++) await adam.section.locator('button[data-role="step"]').click();
  const state = await readState(adam.section);
  assert.equal(state.step, 3);
  const moved = state.updatedAttr.split(/[ ,]+/).filter(Boolean).length;
  const text = await intro(adam.section, 'Below is a real training run');
  assert.doesNotMatch(text, /every other row stays exactly as it was/);
  assert.match(text, /Adam remembers earlier gradients/);
  assert.match(text, new RegExp(`Step 3 changed ${moved} of the table’s 76 rows`));
  await adam.section.page().click('.lang-btn[data-lang="zh"]');
  assert.match(await intro(adam.section, '下面是一次真实的训练'), new RegExp(`第 3 步改了 Embedding 表 76 行里的 ${moved} 行`));
  await adam.page.closeAll();
});

test('the intro\'s gaps are filled with the words the corpus puts there (一只＿在叫: 猫, 狗 and 鸟, not 兔)', async () => {
  const { page, section } = await openTraining(env, { alone: false });   // the page's language button
  const text = await intro(section, 'Nobody tells the model');
  assert.match(text, /“一只＿在叫” \(a ＿ is calling\) with 猫 \(cat\), 狗 \(dog\) and 鸟 \(bird\)/);
  assert.match(text, /“我养了一只＿” \(I keep a ＿\) with 猫 \(cat\), 狗 \(dog\) and 兔 \(rabbit\)/);
  await page.click('.lang-btn[data-lang="zh"]');
  assert.match(await intro(section, '没有人告诉模型'), /“一只＿在叫”填的是猫、狗、鸟/);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('the walkthrough says when its update is not the run\'s real step (Adam: the copy\'s moments start at 0), and only then', async () => {
  const sgd = await openWalk('section=trainstep');
  const sgdText = await sgd.section.locator('.section-intro').textContent();
  assert.match(sgdText, /The update is the step the run would take on this sentence/);
  assert.doesNotMatch(sgdText, /differs from the run’s real step/);
  await sgd.page.closeAll();
  const adam = await openWalk('section=trainstep&opt=adam&batch=4', { alone: false });   // the page's language button
  const text = await adam.section.locator('.section-intro').textContent();
  assert.match(text, /here the walkthrough differs from the run’s real step: the update is taken on a copy whose moments m and v start at 0/);
  assert.match(text, /average the gradients of 4 sentences/);
  assert.doesNotMatch(text, /would take on this sentence/);
  await adam.page.click('.lang-btn[data-lang="zh"]');
  assert.match(await adam.section.locator('.section-intro').textContent(), /和训练真正的那一步不一样/);
  await adam.page.closeAll();
});

test('the look-up says why 6 rows are read, not the article\'s 4: <s> and 果 are inputs too', async () => {
  const { page, section } = await openWalk('section=trainstep');
  assert.equal(await section.locator('.ts-chips .chip').count(), 6);
  assert.match(await section.locator('[data-panel="lookup"]').textContent(),
    /Why 6 rows, when the article’s example reads 4 \(我 爱 吃 苹\)\? .*the boundary <s> is read too \(to guess 我\), and so is 果 \(to guess the end of the sentence, <s>\)/);
  await page.closeAll();
});

test('a link past the schedule\'s end whose run diverges on the way says where it stopped, never "showing step 1500"', async () => {
  const { page, section } = await openTraining(env, { query: 'section=training&step=1000000&batch=64&dim=64&lr=10&opt=adam' });
  const state = await readState(section);
  assert.equal(state.state, 'diverged');
  const notice = await section.locator('[data-role="notice"]').textContent();
  assert.doesNotMatch(notice, /showing step 1500/);
  assert.match(notice, new RegExp(`diverged at step ${state.step + 1} on the way, so it shows step ${state.step}\\.`));
  assert.match(await section.locator('[data-role="error"]').textContent(), new RegExp(`Training diverged \\(step ${state.step + 1}\\)`));
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('a setting the engine refuses for this corpus (dim 64 with batch 32 and 5,120 distinct words) is said inline, the control goes back and the run goes on', async () => {
  const { page, section } = await openTraining(env);
  // 160 sentences of 32 distinct words: one step at batch 32 and dim 64 is more work than one call may take
  const corpus = Array.from({ length: 160 }, (_, i) => Array.from({ length: 32 }, (_, j) => String.fromCodePoint(0x4e00 + i * 32 + j)).join(' ')).join('\n');
  await section.locator('[data-role="corpus-summary"]').click();
  await section.locator('textarea[data-role="corpus-text"]').fill(corpus);
  await section.locator('button[data-role="corpus-apply"]').click();
  await settled(page);
  await section.locator('select[data-role="batch"]').selectOption('32');
  await settled(page);
  await section.locator('button[data-role="step"]').click();
  const before = await readState(section);
  assert.equal(before.step, 1);
  await section.locator('select[data-role="dim"]').selectOption('64');
  const refused = section.locator('[data-role="settings-refused"]');
  await refused.waitFor({ state: 'visible' });
  assert.match(await refused.textContent(), /^Dimension: the engine does not accept this combination, so the run goes on with its settings as they were\. Why: createModel: .*dim 64\) would take .* multiply-adds/);
  const dim = section.locator('select[data-role="dim"]');
  assert.equal(await dim.inputValue(), '16', 'the control shows the run\'s dimension again');
  assert.equal(await dim.getAttribute('aria-invalid'), 'true');
  assert.equal(await dim.getAttribute('aria-describedby'), await refused.getAttribute('id'));
  const after = await readState(section);
  assert.equal(after.step, 1, 'the run went on as it was');
  assert.equal(after.loss, before.loss);
  assert.notEqual(after.state, 'failed');
  await section.locator('button[data-role="step"]').click();
  assert.equal((await readState(section)).step, 2);
  // a setting the engine accepts clears the message
  await dim.selectOption('8');
  await refused.waitFor({ state: 'hidden' });
  assert.equal(await dim.getAttribute('aria-invalid'), null);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('a trained run replaced by a setting change is never lost silently: the page says so and Undo brings it back at its step', async () => {
  const { page, section } = await openTraining(env, { alone: false });   // the page's language button
  for (let i = 0; i < 5; i++) await section.locator('button[data-role="step"]').click();
  const trained = await readState(section);
  assert.equal(trained.step, 5);
  await section.locator('select[data-role="dim"]').selectOption('32');
  const discarded = section.locator('[data-role="discarded"]');
  await discarded.waitFor({ state: 'visible' });
  assert.match(await discarded.textContent(), /training started again from step 0; the run before had reached step 5\. Undo: back to that run/);
  assert.equal((await readState(section)).step, 0);
  await section.locator('button[data-role="undo-run"]').click();
  await page.waitForSelector(`${TRAINING}[data-step="5"]:not([data-state="replaying"])`);
  const back = await readState(section);
  assert.equal(back.loss, trained.loss, 'the same run, at the same step');
  assert.equal(await section.locator('select[data-role="dim"]').inputValue(), '16');
  assert.equal(new URL(page.url()).searchParams.get('dim'), null, 'the link is the old run\'s again');
  assert.equal(await discarded.isVisible(), false, 'the dim-32 run had not trained: nothing to bring back');
  // in Chinese too
  await section.locator('select[data-role="batch"]').selectOption('2');
  await discarded.waitFor({ state: 'visible' });
  await page.click('.lang-btn[data-lang="zh"]');
  assert.match(await discarded.textContent(), /之前那次训练停在第 5 步。 ?撤销：回到那次训练/);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

/** The text of the element an input's aria-describedby names (the first id), or null. */
const describedBy = (locator) => locator.evaluate((el) => {
  const id = (el.getAttribute('aria-describedby') || '').split(' ')[0];
  const target = id && el.getRootNode().getElementById(id);
  return target ? target.textContent : null;
});

test('a refused input says so to assistive technology: aria-invalid, and aria-describedby naming the message', async () => {
  const { page, section } = await openTraining(env);
  const nearest = section.locator('input[data-role="nearest-word"]');
  await nearest.fill('恐龙');
  await nearest.press('Enter');
  await page.waitForFunction(() => document.querySelector('input[data-role="nearest-word"]').getAttribute('aria-invalid') === 'true');
  assert.match(await describedBy(nearest), /恐龙/);
  await nearest.fill('猫');
  await nearest.press('Enter');
  await page.waitForFunction(() => document.querySelector('input[data-role="nearest-word"]').getAttribute('aria-invalid') === 'false');
  assert.equal(await nearest.getAttribute('aria-describedby'), null);
  const analogy = section.locator('input[data-role="analogy-a"]');
  await analogy.fill('toString');
  await analogy.press('Enter');
  await page.waitForFunction(() => document.querySelector('input[data-role="analogy-a"]').getAttribute('aria-invalid') === 'true');
  assert.match(await describedBy(analogy), /toString/);
  await page.closeAll();

  const other = await openPage(env);
  await other.fill('#projections .seed-input', 'abc');
  await other.press('#projections .seed-input', 'Enter');
  await other.waitForFunction(() => document.querySelector('#projections .seed-input').getAttribute('aria-invalid') === 'true');
  assert.ok((await describedBy(other.locator('#projections .seed-input'))).length > 0);
  const cell = '#projections [data-matrix="W_Q"] td[data-i="1"][data-j="2"]';
  await other.click(cell);
  await other.keyboard.press('Control+A');
  await other.keyboard.type('abc');
  await other.keyboard.press('Enter');
  await other.waitForFunction((sel) => document.querySelector(sel).getAttribute('aria-invalid') === 'true', cell);
  assert.match(await describedBy(other.locator(cell)), /“abc” is not a number/);
  await other.click(cell);
  await other.keyboard.press('Control+A');
  await other.keyboard.type('0.5');
  await other.keyboard.press('Enter');
  await other.waitForFunction((sel) => !document.querySelector(sel).hasAttribute('aria-invalid'), cell);
  await other.closeAll();
});

/** Pastes text into the focused editor as a reader does: through the clipboard and Ctrl+V. */
async function pasteInto(page, locator, text) {
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.evaluate((t) => navigator.clipboard.writeText(t), text);
  await locator.focus();
  await page.keyboard.press('Control+V');
}

test('pasting more than a corpus may hold is refused before the text goes in: the editor keeps its text and the page answers at once', async () => {
  const { page, section } = await openTraining(env);
  await section.locator('[data-role="corpus-summary"]').click();
  const editor = section.locator('textarea[data-role="corpus-text"]');
  await editor.fill('一只 猫 在 叫');
  await pasteInto(page, editor, '猫'.repeat(1 << 20));
  const problems = section.locator('[data-role="corpus-problems"]');
  await page.waitForFunction(() => /Not pasted/.test(document.querySelector('[data-role="corpus-problems"]').textContent));
  assert.match(await problems.textContent(), new RegExp(`^Not pasted: .*Too long: ${(1 << 20) + "一只 猫 在 叫".length} characters, at most 20000\\.`));
  assert.equal(await editor.inputValue(), '一只 猫 在 叫', 'the editor keeps what it had');
  assert.equal(await editor.getAttribute('aria-invalid'), 'true');
  // the page answers input: a keystroke echoes in the editor
  await editor.press('End');
  await page.keyboard.type('！');
  assert.equal(await editor.inputValue(), '一只 猫 在 叫！');
  // a paste that fits goes in as before
  await pasteInto(page, editor, '\n一只 狗 在 叫');
  assert.equal(await editor.inputValue(), '一只 猫 在 叫！\n一只 狗 在 叫');
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('the walkthrough\'s update shows every parameter\'s change, dlogits = p − onehot, and what updating E alone buys (computed as in Node)', async () => {
  const { page, section } = await openWalk('section=trainstep');
  // the same numbers in Node: a copy of the run at step 0 steps on the sentence; another copy gets only E's step
  const { model } = await referenceRun(1, 0);
  const tokens = ['我', '爱', '吃', '苹', '果'];
  const { stepped, changes, lossTableOnly } = await nodeUpdate(model, tokens);
  await section.locator('button[data-stage="backward"]').click();
  const p = stepped.before.probs, V = model.vocab.length, last = tokens.length - 1;
  const pTarget = p.data[last * V + model.vocab.indexOf('果')];
  assert.match(await section.locator('[data-role="ts-dlogits"]').textContent(),
    new RegExp(`dlogits = p − onehot\\(the right word\\).*p − 1 = ${(pTarget - 1).toFixed(3)} at the right word, 果`));
  await section.locator('button[data-stage="update"]').click();
  const rows = await section.locator('[data-role="ts-changes"] tbody tr').evaluateAll((trs) => trs.map((tr) => [tr.dataset.parameter, tr.children[1].textContent]));
  assert.deepEqual(rows, changes.map((c) => [c.name, `${c.changed} of ${c.size}`]));
  assert.ok(changes.find((c) => c.name === 'Wout').changed === changes.find((c) => c.name === 'Wout').size, 'W_out changes everywhere');
  await section.locator('button[data-stage="after"]').click();
  const result = section.locator('[data-role="ts-table-only-result"]');
  assert.equal(await result.isVisible(), false);
  await section.locator('[data-role="ts-table-only"]').check();
  const share = ((100 * (stepped.loss - lossTableOnly)) / (stepped.loss - stepped.lossAfter)).toFixed(1);
  assert.equal(await result.textContent(), `E alone: ${stepped.loss.toFixed(3)} → ${lossTableOnly.toFixed(3)}; every parameter: ${stepped.loss.toFixed(3)} → ${stepped.lossAfter.toFixed(3)}. The table’s step alone buys ${share}% of the drop.`);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

let qkvPromise = null;
const qkvLoaded = () => (qkvPromise ||= import('../../web/qkv-lab.js').then((m) => m.load({ model: true })));

/** What step.js computes, done here independently: stepOn on a copy, every parameter's change, E's step alone. */
async function nodeUpdate(model, tokens) {
  const qkv = await qkvLoaded();
  const { PARAMETER_NAMES } = await import('../../web/model.js');
  const { modelOptions, resolveCorpus } = await import('../../web/page/training/settings.js');
  const { createState } = await import('../../web/page/shell/state.js');
  const state = createState({ search: '' });
  const options = modelOptions(state, resolveCorpus(state.get('corpus')).sentences);
  const copy = qkv.createModel(options);
  const only = qkv.createModel(options);
  try {
    for (const name of PARAMETER_NAMES) copy.setParameter(name, model.getParameter(name));
    const before = copy.inspect(tokens);
    const stepped = { ...copy.stepOn(tokens), before };
    const changes = PARAMETER_NAMES.map((name) => {
      const a = model.getParameter(name).data, b = copy.getParameter(name).data;
      return { name, size: a.length, changed: a.reduce((n, x, i) => n + (b[i] !== x ? 1 : 0), 0) };
    });
    for (const name of PARAMETER_NAMES) only.setParameter(name, name === 'embedding' ? copy.getParameter(name) : model.getParameter(name));
    return { stepped, changes, lossTableOnly: only.inspect(tokens).loss };
  } finally {
    copy.dispose();
    only.dispose();
  }
}

test('the car experiment has a reading over time: cos(猫, 汽车) on its corpus beside the default corpus\'s, same settings (checked against Node)', async () => {
  const steps = 300;
  const { page, section } = await openTraining(env, { query: `corpus=car-with-animals&step=${steps}` });
  const reading = section.locator('[data-role="car-reading"]');
  await page.waitForSelector(`${TRAINING} [data-role="car-reading"][data-step="${steps}"]`);
  // the same two runs in Node, cos(猫, 汽车) after every step
  const cosines = async (query) => {
    const { model } = await referenceRun(query, 0);
    const out = [model.similarity('猫', '汽车')];
    for (let i = 0; i < steps; i++) { model.step(); out.push(model.similarity('猫', '汽车')); }
    return out;
  };
  const car = await cosines('corpus=car-with-animals');
  const base = await cosines('');
  const peak = car.reduce((best, v, i) => (v > car[best] ? i : best), 0);
  assert.equal(await reading.locator('[data-role="car-reading-text"]').textContent(),
    `Step ${steps}: cos(猫, 汽车) is ${car[steps].toFixed(3)} on this corpus (solid line; highest ${car[peak].toFixed(3)}, at step ${peak}) and ${base[steps].toFixed(3)} on the default corpus with the same settings (dashed).`);
  assert.equal(await reading.locator('polyline').count(), 2);
  await page.closeAll();
  // on the default corpus there is nothing to set beside it
  const plain = await openTraining(env);
  assert.equal(await plain.section.locator('[data-role="car-reading"]').isVisible(), false);
  await plain.page.closeAll();
});

test('every section opens at its first step (one rule; learnable opens at its link\'s factor, a setting its stepper shows)', async () => {
  const page = await openPage(env);
  const ids = await page.$$eval('section[data-section]', (els) => els.map((e) => e.dataset.section));
  const opened = [];
  for (const id of ids) {
    const section = page.locator(`section[data-section="${id}"]`);
    await section.scrollIntoViewIfNeeded();
    // the on-demand sections (the two training ones) say when they are ready; the others are at once
    if (await section.getAttribute('data-state')) await page.waitForSelector(`section[data-section="${id}"]:not([data-state="loading"]):not([data-state="replaying"])`, { timeout: 60000 });
    const position = section.locator('.step-position');
    if (!(await position.count())) continue;
    const text = await position.first().textContent();
    opened.push(id);
    if (id === 'learnable') {
      assert.match(text, /^step 11 of 21$/, 'learnable opens at the default factor 5 (a setting, not an end)');
      continue;
    }
    assert.match(text, /^(step|sample) 1 of \d+$/, `${id} opens at "${text}"`);   // the writer and fine-tuning count samples
  }
  for (const id of ['softmax', 'scaling', 'multihead', 'positions', 'roles', 'trainstep']) {
    assert.ok(opened.includes(id), `${id} was checked (${opened})`);
  }
  await page.closeAll();
});
