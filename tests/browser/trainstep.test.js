// trainstep.test.js: the one-step walkthrough (section trainstep) as a reader uses it. Its numbers
// are the model's at the run's current step (checked against the same model in Node: inspect(),
// and stepOn() on a copy), the gradient's rows are exactly the sentence's, the loss falls after
// the update, the stepper walks the eight stages, the reader can pick any corpus sentence (and a
// link to one the corpus lacks says so), the run is shared with the training section, and the
// narration follows the language. Run after ./build.sh.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser } from './harness.js';
import { referenceRun, badNumbers, openWalk as openWalkIn, settled, WALK, SECTION as TRAINING } from './training-helpers.js';
import { PARAMETER_NAMES } from '../../web/model.js';
import { load } from '../../web/qkv-lab.js';

const STAGES = ['lookup', 'positions', 'attention', 'predict', 'loss', 'backward', 'update', 'after'];

let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env?.close(); });

const openWalk = (query, options) => openWalkIn(env, query, options);

/** What the walkthrough shows, read from the DOM. */
function readWalk(section) {
  return section.evaluate((el) => ({
    step: Number(el.dataset.step),
    ids: [...el.querySelectorAll('.ts-chips .chip')].map((c) => Number(c.dataset.id)),
    readOff: el.querySelector('[data-role="ts-readoff"]').textContent,
    loss: el.querySelector('[data-role="ts-loss"]').textContent,
    gradRows: [...el.querySelectorAll('[data-role="ts-grad-rows"] .bar-label')].map((l) => Number(l.textContent.split(' ')[0])),
    zero: el.querySelector('[data-role="ts-zero"]').textContent,
    after: el.querySelector('[data-role="ts-after"]').textContent,
    lit: [...el.querySelectorAll('[data-panel="lookup"] .heat-row[data-flashed]')].map((r) => Number(r.dataset.row)),
    narration: el.querySelector('.narration').textContent,
    run: el.querySelector('[data-role="ts-run"]').textContent,
    text: el.innerText,
  }));
}

/** The model in Node at `step` steps of the default run: what inspect() and stepOn() on a copy give. */
async function reference(step, sentence) {
  const { model } = await referenceRun('', step);
  const now = model.inspect(sentence);
  const copy = (await load({ model: true })).createModel({ corpus: model.sentences, dim: model.dim, seed: model.seed, optimizer: model.optimizer, lr: model.lr, batchSize: model.batchSize, steps: model.defaultSteps });
  for (const name of PARAMETER_NAMES) copy.setParameter(name, model.getParameter(name));
  const update = copy.stepOn(sentence);
  copy.dispose();
  return { model, now, update };
}

test('the walkthrough shows the model\'s own numbers at the run\'s step, and one step lowers the loss', async () => {
  const { page, section } = await openWalk('step=40');
  const s = await readWalk(section);
  assert.equal(s.step, 40);
  const sentence = ['我', '爱', '吃', '苹', '果'];
  const { model, now, update } = await reference(40, sentence);
  assert.deepEqual(s.ids, now.ids);
  // look-up: exactly the sentence's rows of E are lit
  assert.deepEqual(s.lit, [...new Set(now.ids)].sort((a, b) => a - b));
  // p(果 | 我 爱 吃 苹) read off the position before 果
  const t = now.tokens.length - 2;
  assert.equal(s.readOff, `p(果 | 我 爱 吃 苹) = ${now.probs.data[t * now.probs.cols + now.targetIds[t]].toFixed(3)}`);
  assert.match(s.loss, new RegExp(`^mean loss = ${now.loss.toFixed(3)} `));
  // backward: the non-zero rows are exactly the sentence's tokens and <s>; the rest are counted 0
  assert.deepEqual(s.gradRows, [...new Set(now.ids)].sort((a, b) => a - b));
  assert.equal(s.zero, `The other ${model.vocab.length - s.gradRows.length} rows: all 0.`);
  // the loss again, after one step on this sentence (on a copy)
  assert.ok(update.lossAfter < update.loss);
  assert.equal(s.after, `${update.loss.toFixed(3)} → ${update.lossAfter.toFixed(3)}: lower by ${(update.loss - update.lossAfter).toFixed(3)}.`);
  assert.match(s.run, /^The run is at step 40 of \d+ \(seed 1, SGD, learning rate [\d.]+, (one sentence|\d+ sentences) per step\)\.$/);
  assert.deepEqual(badNumbers(s.text), []);
  model.dispose();
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('the stepper walks the eight stages, one panel each, and every narration has its numbers', async () => {
  const { page, section } = await openWalk();
  const stages = [];
  page.on('console', () => {});
  for (let i = 0; i < STAGES.length; i++) {
    const shown = await section.evaluate((el) => [...el.querySelectorAll('.ts-panel')].filter((p) => !p.hidden).map((p) => p.dataset.panel));
    const active = await section.locator('.ts-flow .flow-stage.active').getAttribute('data-stage');
    const narration = await section.locator('.narration').textContent();
    stages.push(active);
    assert.deepEqual(shown, [STAGES[i]]);
    assert.deepEqual(badNumbers(narration), [], narration);
    assert.ok(narration.length > 20, narration);
    if (i < STAGES.length - 1) await section.locator('.step-forward').click();
  }
  assert.deepEqual(stages, STAGES);
  assert.match(await section.locator('.narration').textContent(), /^Again: this sentence’s loss went from \d+\.\d{3} to \d+\.\d{3}\.$/);
  // a stage button jumps there
  await section.locator('.ts-flow button[data-stage="backward"]').click();
  assert.match(await section.locator('.narration').textContent(), /^Backward: the gradient reaching E is non-zero on exactly 6 rows/);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('any corpus sentence can be picked (it goes into the link); one the corpus lacks is named, and the first shown', async () => {
  const { page, section } = await openWalk();
  const select = section.locator('select[data-role="ts-sentence"]');
  const options = await select.locator('option').allTextContents();
  const other = options.find((o) => o.startsWith('一只 猫'));
  await select.selectOption(other);
  await page.waitForFunction(([sel, words]) => [...document.querySelectorAll(`${sel} .ts-chips .chip`)].length === words + 1,
    [WALK, other.split(' ').length]);
  assert.equal(new URL(page.url()).searchParams.get('example'), other);
  assert.match(await section.locator('.ts-gloss').textContent(), /^一只 \(.+\) 猫 \(cat\)/);
  await page.closeAll();

  const b = await openWalk('example=恐龙 在 叫');
  assert.equal(await b.section.locator('[data-role="ts-missing"]').isVisible(), true);
  assert.equal(await b.section.locator('[data-role="ts-missing"]').textContent(),
    `“恐龙 在 叫” is not a sentence of the current corpus; showing its first sentence, “${options[0]}”, instead.`);
  assert.deepEqual(b.page.problems(), []);
  await b.page.closeAll();
});

test('the run is shared: jumping to the trained model moves the training section too, and its steps move the walkthrough', async () => {
  const { page, section } = await openWalk('', { alone: false });
  await section.locator('button[data-role="ts-end"]').click();
  await page.waitForFunction((sel) => {
    const el = document.querySelector(sel);
    return el.dataset.state === 'ready' && Number(el.dataset.step) > 0;
  }, WALK, { timeout: 60000 });
  const total = (await readWalk(section)).step;
  assert.equal(new URL(page.url()).searchParams.get('step'), String(total));
  const training = page.locator(TRAINING);
  await training.scrollIntoViewIfNeeded();
  await page.waitForSelector(`${TRAINING}[data-state="finished"]`, { timeout: 60000 });
  assert.equal(Number(await training.getAttribute('data-step')), total);
  // back to step 0 from the walkthrough, then a step in the training section
  await section.scrollIntoViewIfNeeded();
  await section.locator('button[data-role="ts-start"]').click();
  await page.waitForFunction((sel) => document.querySelector(sel).dataset.step === '0', WALK);
  await training.scrollIntoViewIfNeeded();
  await training.locator('button[data-role="step"]').click();
  await section.scrollIntoViewIfNeeded();
  await page.waitForFunction((sel) => document.querySelector(sel).dataset.step === '1', WALK, { timeout: 60000 });
  assert.match((await readWalk(section)).run, /^The run is at step 1 of /);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('a link straight to the walkthrough (?section=trainstep) opens it without an error, before the training section is drawn', async () => {
  const { page, section } = await openWalk('section=trainstep', { alone: false });
  await section.locator('.step-forward').click();
  await page.waitForFunction((sel) => document.querySelector(sel).dataset.state === 'ready', WALK);
  // the training section, made after the walkthrough built the run, reads that run before drawing it
  await page.locator(TRAINING).scrollIntoViewIfNeeded();
  await settled(page);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('switching the language rewrites the walkthrough and its narration', async () => {
  const { page, section } = await openWalk('step=20', { alone: false });
  await section.locator('.ts-flow button[data-stage="predict"]').click();
  assert.match(await section.locator('.narration').textContent(), /^Prediction: after “我 爱 吃 苹” the model gives 果/);
  await page.locator('.lang-btn[data-lang="zh"]').click();
  assert.match(await section.locator('.narration').textContent(), /^预测：读到“我 爱 吃 苹”之后，模型给“果”的概率是 \d\.\d{3}/);
  assert.equal(await section.locator('h2').textContent(), '走一遍训练的一步：从“我 爱 吃 苹”到“果”');
  assert.equal(await section.locator('.ts-gloss').isVisible(), false, 'no glosses on the Chinese page');
  const text = await section.evaluate((el) => el.innerText);
  assert.doesNotMatch(text, /\bts\.[a-zA-Z]/, 'no missing string keys');
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('on a corpus of more than 200 words the two heat maps draw their first 200 rows, and say so', async () => {
  // 25 lines of 10 distinct single-character words: 250 words (+ <s>), short enough for the link
  const words = Array.from({ length: 250 }, (_, i) => String.fromCodePoint(0x4e00 + i));
  const corpus = Array.from({ length: 25 }, (_, l) => words.slice(10 * l, 10 * l + 10).join(' ')).join('\n');
  const { page, section } = await openWalk(`corpus=${encodeURIComponent(corpus)}`);
  const rows = (panel) => section.locator(`[data-panel="${panel}"] .heat-row`).count();
  assert.equal(await rows('lookup'), 200);
  assert.equal(await rows('backward'), 200);
  for (const note of ['ts-table-shown', 'ts-grad-shown']) {
    assert.equal(await section.locator(`[data-role="${note}"]`).textContent(),
      'A large vocabulary: this picture draws the first 200 of its 251 rows; the rows left out are computed all the same.', note);
  }
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
  // on the default corpus, every row and no note
  const b = await openWalk();
  assert.equal(await b.section.locator('[data-role="ts-table-shown"]').isHidden(), true);
  await b.page.closeAll();
});
