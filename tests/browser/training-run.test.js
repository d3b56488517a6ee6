// training-run.test.js: the training section trains for real and shows what the model did. Start/pause,
// single steps, back, reset, keyboard, the flashing rows against step()'s updatedRows (computed
// independently in Node with the same model), the URL step round trip, unknown words, no NaN,
// no console errors, no request leaving the machine. Run after ./build.sh.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, frames } from './harness.js';
import { openTraining, readState, referenceRun, badNumbers, settled } from './training-helpers.js';
import { TRAINING_DEFAULTS } from '../../web/corpus.js';
import { DEFAULT_SPEED } from '../../web/page/sections/training/layout.js';

let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env?.close(); });

test('Start trains, the loss chart gains points, Pause stops', async () => {
  const { page, section } = await openTraining(env);
  const start = await readState(section);
  assert.equal(start.step, 0);
  assert.equal(start.state, 'paused');
  assert.equal(start.lossPoints, 0);
  await section.locator('button[data-role="play"]').click();
  await page.waitForFunction((sel) => Number(document.querySelector(sel).dataset.step) >= 20,
    '[data-section="training"]', { timeout: 60000 });
  await section.locator('button[data-role="play"]').click();
  const paused = await readState(section);
  assert.equal(paused.state, 'paused');
  assert.ok(paused.step >= 20, `step ${paused.step}`);
  assert.equal(paused.lossPoints, paused.step, 'one loss point per step');
  assert.ok(Number.isFinite(paused.loss) && paused.loss > 0);
  assert.match(paused.lossText, /loss \d+\.\d{3}$/);
  // the loop steps in animation frames: frames pass after Pause and none of them steps
  await frames(page, 3);
  assert.equal((await readState(section)).step, paused.step, 'paused means no more steps');
  // the run is the model's: the loss shown equals Node's loss at the same step
  const { steps } = await referenceRun('', paused.step);
  assert.equal(paused.loss, steps[paused.step - 1].loss);
  assert.deepEqual(badNumbers(paused.text), []);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('each step flashes exactly the rows step() updated, and they are the batch words', async () => {
  const { page, section } = await openTraining(env);
  const n = 6;
  const { steps, model } = await referenceRun('', n);
  for (let i = 0; i < n; i++) {
    await section.locator('button[data-role="step"]').click();
    const s = await readState(section);
    const expected = steps[i].updatedRows;
    assert.equal(s.step, i + 1);
    assert.equal(s.heatStep, i + 1);
    assert.deepEqual(s.flashed, expected, `step ${i + 1}: flashed rows`);
    assert.equal(s.updatedAttr, expected.join(','));
    // SGD changes the rows of the batch's tokens and <s>, no others
    const words = new Set(['<s>', ...steps[i].batch.flat()]);
    assert.deepEqual(new Set(s.flashedWords), words);
    assert.deepEqual(s.batch, steps[i].batch.map((t) => t.join(' ')));
    assert.equal(s.loss, steps[i].loss);
    assert.ok(expected.length < model.vocab.length, 'a step leaves some rows alone');
  }
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('keyboard: → steps, ← goes back by replaying from the seed, space plays and pauses', async () => {
  const { page, section } = await openTraining(env);
  await section.locator('button[data-role="step"]').focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  const three = await readState(section);
  assert.equal(three.step, 3);
  await section.locator('button[data-role="step"]').click();
  await page.keyboard.press('ArrowLeft');
  await settled(page);
  const back = await readState(section);
  assert.equal(back.step, 3);
  assert.equal(back.loss, three.loss, 'back to step 3 shows step 3 again');
  assert.deepEqual(back.flashed, three.flashed);
  assert.equal(back.lossPoints, 3);
  // space on the section (not on a button, where it presses the button) toggles play
  await section.locator('.tr-status').click();
  await section.locator('[data-role="speed"]').selectOption('100');
  await section.locator('.tr-stage').focus();
  await page.keyboard.press(' ');
  await page.waitForFunction((sel) => Number(document.querySelector(sel).dataset.step) >= 10, '[data-section="training"]');
  await page.keyboard.press(' ');
  const s = await readState(section);
  assert.equal(s.state, 'paused');
  assert.ok(s.step >= 10);
  // the step went into the URL
  assert.equal(new URL(page.url()).searchParams.get('step'), String(s.step));
  // focus is visible on the controls
  await section.locator('button[data-role="reset"]').focus();
  await page.keyboard.press('Tab');
  await page.keyboard.press('Shift+Tab');
  const outline = await section.locator('button[data-role="reset"]').evaluate((b) => getComputedStyle(b).outlineStyle);
  assert.notEqual(outline, 'none');
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('Reset returns to step 0 with the initial table', async () => {
  const { page, section } = await openTraining(env);
  const initialHeat = await section.locator('.heat-canvas').evaluate((c) => c.toDataURL());
  for (let i = 0; i < 4; i++) await section.locator('button[data-role="step"]').click();
  assert.notEqual(await section.locator('.heat-canvas').evaluate((c) => c.toDataURL()), initialHeat);
  await section.locator('button[data-role="reset"]').click();
  const s = await readState(section);
  assert.equal(s.step, 0);
  assert.equal(s.lossPoints, 0);
  assert.deepEqual(s.flashed, []);
  assert.equal(s.loss, null);
  assert.equal(await section.locator('.heat-canvas').evaluate((c) => c.toDataURL()), initialHeat);
  assert.equal(await section.locator('button[data-role="back"]').isDisabled(), true);
  assert.equal(new URL(page.url()).searchParams.get('step'), null, 'step 0 is the default: not in the URL');
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('URL round trip: ?tseed=S&step=N shows the same loss as training there', async () => {
  const seed = 7, n = 37;
  const a = await openTraining(env, { query: `tseed=${seed}` });
  await a.section.locator('[data-role="speed"]').selectOption('100');
  for (let i = 0; i < n; i++) await a.section.locator('button[data-role="step"]').click();
  const trained = await readState(a.section);
  const url = new URL(a.page.url());
  assert.equal(url.searchParams.get('step'), String(n));
  assert.equal(url.searchParams.get('tseed'), String(seed));
  await a.page.closeAll();

  const b = await openTraining(env, { query: url.search.slice(1).replace(/(^|&)lang=[^&]*/, '') });
  const loaded = await readState(b.section);
  assert.equal(loaded.step, n);
  assert.equal(loaded.loss, trained.loss);
  assert.equal(loaded.lossText, trained.lossText);
  assert.deepEqual(loaded.flashed, trained.flashed);
  assert.equal(loaded.lossPoints, n);
  const { steps } = await referenceRun(seed, n);
  assert.equal(loaded.loss, steps[n - 1].loss);
  assert.deepEqual(b.page.problems(), []);
  await b.page.closeAll();
});

test('changing the run\'s seed restarts the run; a bad seed is refused with a message', async () => {
  const { page, section } = await openTraining(env);
  await section.locator('button[data-role="step"]').click();
  const seed = section.locator('input[data-role="seed"]');
  await seed.fill('123');
  await seed.press('Enter');
  await settled(page);
  let s = await readState(section);
  assert.equal(s.step, 0);
  assert.equal(new URL(page.url()).searchParams.get('tseed'), '123');
  assert.equal(new URL(page.url()).searchParams.get('seed'), null, 'the attention sections\' seed is another setting');
  await section.locator('button[data-role="step"]').click();
  s = await readState(section);
  const { steps } = await referenceRun(123, 1);
  assert.equal(s.loss, steps[0].loss);
  const message = section.locator('[data-role="seed-message"]');
  for (const bad of ['-1', '1e3', '99999999999', 'abc']) {
    await seed.fill(bad);
    await seed.press('Enter');
    assert.equal(await seed.inputValue(), '123', `${bad}: the seed in use stays`);
    assert.match(await message.textContent(), /^A seed is a whole number from 0 to 4294967295; still using 123\.$/, bad);
    assert.equal(await seed.getAttribute('aria-invalid'), 'true');
    assert.equal((await readState(section)).step, 1, `${bad}: the run goes on`);
  }
  await seed.fill('124');
  await seed.press('Enter');
  assert.equal(await message.textContent(), '', 'a good seed clears the message');
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('unknown words in the neighbour and analogy boxes give an inline message, not an error', async () => {
  const { page, section } = await openTraining(env, { lang: 'zh' });
  const nearest = section.locator('input[data-role="nearest-word"]');
  await nearest.fill('恐龙');
  const error = section.locator('[data-role="nearest-error"]');
  assert.equal(await error.isVisible(), true);
  assert.match(await error.textContent(), /“恐龙”不在词表里/);
  assert.equal(await section.locator('[data-role="nearest-results"] li').count(), 0);
  assert.equal(await nearest.getAttribute('aria-invalid'), 'true');
  await nearest.fill('');
  assert.match(await error.textContent(), /请输入/);
  await nearest.fill('狗');
  assert.equal(await error.isVisible(), false);
  assert.equal(await section.locator('[data-role="nearest-results"] li').count(), 5);
  const first = await section.locator('[data-role="nearest-results"] li').first().textContent();
  assert.match(first, /-?\d\.\d{3}$/);

  await section.locator('input[data-role="analogy-b"]').fill('<script>alert(1)</script>');
  const aError = section.locator('[data-role="analogy-error"]');
  assert.equal(await aError.isVisible(), true);
  assert.equal(await section.locator('[data-role="analogy-results"] li').count(), 0);
  assert.equal(await section.locator('script').count(), 0, 'typed text never becomes markup');
  await section.locator('input[data-role="analogy-b"]').fill('男人');
  assert.equal(await aError.isVisible(), false);
  assert.equal(await section.locator('[data-role="analogy-results"] li').count(), 3);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

// What the finished run shows is the model's own result for the run's seed, computed again in
// Node; how such results vary over seeds is web/page/training/claims.js's business.
test('a full run finishes at the schedule\'s end and shows what the model computes there', async () => {
  const { page, section } = await openTraining(env, { query: 'step=1000000' });
  const { steps, model } = await referenceRun('', TRAINING_DEFAULTS.steps);
  const s = await readState(section);
  assert.equal(s.step, model.defaultSteps, 'a step past the schedule shows its end');
  assert.equal(s.state, 'finished');
  assert.match(await section.locator('[data-role="notice"]').textContent(), /asked for step 1000000, past the end of the schedule/);
  assert.equal(await section.locator('button[data-role="play"]').isDisabled(), true);
  assert.equal(await section.locator('button[data-role="step"]').isDisabled(), true);
  assert.equal(s.loss, steps.at(-1).loss);
  const sims = /cos\(猫, 狗\) = (-?\d\.\d{3}), cos\(猫, 汽车\) = (-?\d\.\d{3})/.exec(s.text);
  assert.ok(sims, s.text.slice(0, 400));
  assert.equal(sims[1], model.similarity('猫', '狗').toFixed(3));
  assert.equal(sims[2], model.similarity('猫', '汽车').toFixed(3));
  const top = await section.locator('[data-role="analogy-results"] li').first().getAttribute('data-word');
  assert.equal(top, model.analogy('男人', '国王', '女人', 1)[0].word);
  assert.deepEqual(badNumbers(s.text), []);
  assert.deepEqual(page.problems(), []);
  model.dispose();
  await page.closeAll();
});

test('reduced motion: rows are marked without animating', async () => {
  const { page, section } = await openTraining(env, { reducedMotion: 'reduce' });
  await section.locator('button[data-role="step"]').click();
  const s = await readState(section);
  assert.ok(s.flashed.length > 0);
  const animations = await section.evaluate((el) => el.getAnimations({ subtree: true }).length);
  assert.equal(animations, 0);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('switching the language rewrites the section, keeping the run', async () => {
  const { page, section } = await openTraining(env, { lang: 'en', alone: false });   // the page's language button
  await section.locator('button[data-role="step"]').click();
  const before = await readState(section);
  await page.locator('.lang-btn[data-lang="zh"]').click();
  assert.equal(await section.locator('h2').textContent(), 'Embedding 表是怎么学出来的');
  assert.equal(await section.locator('button[data-role="step"]').textContent(), '单步');
  assert.equal(await section.locator('[data-role="speed"] option:checked').textContent(), `每秒 ${DEFAULT_SPEED} 步`);
  const after = await readState(section);
  assert.equal(after.step, before.step);
  assert.equal(after.loss, before.loss);
  assert.match(after.lossText, /^损失 \d+\.\d{3}$/);
  // the narration of the step already taken is rewritten in the new language too
  assert.match(before.narration, /^Step 1\. (Sentence: |\d+ sentences: )/);
  assert.match(after.narration, /^第 1 步。(句子：|\d+ 句话：)/);
  assert.deepEqual(after.flashed, before.flashed);
  assert.doesNotMatch(after.text, /(?<![\w/-])training\.(?!js)[a-zA-Z]/, 'no missing string keys (a file name like training-claims.js is not one)');
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

// Chart.js's Legend and Tooltip plugins are not in the bundle: the line charts' legends are HTML
// lists, and hovering a chart shows an HTML readout of the nearest point (aria-live="off").
test('chart legends are translated HTML lists; hovering a chart reads out its nearest point', async () => {
  const { page, section } = await openTraining(env, { lang: 'en', alone: false });   // the page's language button
  const n = 5;
  for (let i = 0; i < n; i++) await section.locator('button[data-role="step"]').click();
  const { steps } = await referenceRun('', n);
  let average = steps[0].loss;
  for (const s of steps.slice(1)) average += 0.1 * (s.loss - average);
  const card = (chart) => section.locator(`.tr-card:has(canvas[data-chart="${chart}"])`);
  const legend = (chart) => card(chart).locator('.tr-legend li').evaluateAll((items) => items.map((li) => ({
    text: li.textContent, line: getComputedStyle(li.querySelector('.tr-line-swatch')).borderTopStyle,
    hidden: li.querySelector('.tr-line-swatch').getAttribute('aria-hidden'),
  })));
  assert.deepEqual(await legend('loss'), [
    { text: 'loss per step', line: 'solid', hidden: 'true' }, { text: 'moving average', line: 'solid', hidden: 'true' }]);
  assert.deepEqual(await legend('similarity'), [
    { text: 'cos(猫 cat, 狗 dog)', line: 'solid', hidden: 'true' }, { text: 'cos(猫 cat, 汽车 car)', line: 'dashed', hidden: 'true' }]);

  const readout = (chart) => card(chart).locator('[data-role="readout"]');
  async function hover(chart, fx, fy) {
    const canvas = section.locator(`canvas[data-chart="${chart}"]`);
    await canvas.scrollIntoViewIfNeeded();
    const box = await canvas.boundingBox();
    await page.mouse.move(box.x + box.width * fx, box.y + box.height * fy);
    await page.waitForFunction((el) => !el.hidden, await readout(chart).elementHandle(), { timeout: 60000 });
    const lines = await readout(chart).locator(':scope > div').allTextContents();
    const inside = await readout(chart).evaluate((el) => {
      const r = el.getBoundingClientRect(), c = el.closest('.tr-chart').getBoundingClientRect();
      return r.left >= c.left - 1 && r.right <= c.right + 1 && r.top >= c.top - 1 && r.bottom <= c.bottom + 1;
    });
    assert.ok(inside, `${chart}: the readout stays inside the chart's box`);
    return lines;
  }
  assert.equal(await readout('loss').getAttribute('aria-live'), 'off');
  assert.equal(await readout('loss').isHidden(), true, 'no readout before hovering');
  // five steps on a 300-step axis: anywhere right of them the nearest step is the last one
  assert.deepEqual(await hover('loss', 0.6, 0.5),
    [`training step ${n}`, `loss per step: ${steps[n - 1].loss.toFixed(3)}`, `moving average: ${average.toFixed(3)}`]);
  const now = (await section.locator('.tr-sim-now').textContent()).match(/-?\d+\.\d{3}/g);
  assert.deepEqual(await hover('similarity', 0.6, 0.5),
    [`training step ${n}`, `cos(猫 cat, 狗 dog): ${now[0]}`, `cos(猫 cat, 汽车 car): ${now[1]}`]);
  // the scatter names the nearest word (grey words too) and its coordinates
  const [word] = await hover('scatter', 0.5, 0.5);
  // the word, its English gloss on the English page, and its coordinates
  const m = /^(\S+)(?: [^(]+)? \((-?\d+\.\d{3}), (-?\d+\.\d{3})\)$/.exec(word);
  assert.ok(m, `scatter readout: ${word}`);
  const vocab = await section.locator('datalist option').evaluateAll((os) => os.map((o) => o.value));
  assert.ok(vocab.includes(m[1]), `${m[1]} is a word of the vocabulary`);
  assert.equal(await readout('loss').isHidden(), true, 'the pointer left the loss chart: its readout went');
  await page.mouse.move(2, 2);
  await page.waitForFunction((el) => el.hidden, await readout('scatter').elementHandle(), { timeout: 60000 });

  // while training, a readout under a still pointer follows the new steps (Start and Pause are
  // clicked from script: a real click would move the pointer off the chart)
  await hover('loss', 0.95, 0.5);
  const play = () => section.locator('button[data-role="play"]').evaluate((b) => b.click());
  await play();
  await page.waitForFunction((el) => /training step (\d+)/.exec(el.textContent)?.[1] >= 15, await readout('loss').elementHandle(), { timeout: 60000 });
  await play();
  const { step } = await readState(section);
  await page.waitForFunction(([el, s]) => el.textContent.startsWith(`training step ${s}`),
    [await readout('loss').elementHandle(), step], { timeout: 60000 });

  await page.locator('.lang-btn[data-lang="zh"]').click();
  assert.deepEqual((await legend('loss')).map((l) => l.text), ['每步损失', '滑动平均']);
  assert.deepEqual((await legend('similarity')).map((l) => l.text), ['cos(猫, 狗)', 'cos(猫, 汽车)']);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});
