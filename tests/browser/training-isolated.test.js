// training-isolated.test.js: the training section on its own, mounted inside a shadow root the way the
// <qkv-lab> widget mounts it (tests/browser/fixtures/training-only.*, bundled here with esbuild):
// it renders only inside its element, shows divergence and stops, and destroy() stops the loop
// and frees the model's WASM memory. Run after ./build.sh.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { openBrowser, newPage, frames, ROOT } from './harness.js';
import { badNumbers } from './training-helpers.js';

const DIST = path.join(ROOT, 'web', 'dist');
const FIXTURE = path.join(ROOT, 'tests', 'browser', 'fixtures');
const made = [path.join(DIST, 'test-training-only.js'), path.join(DIST, 'test-training-only.html')];

let env;
before(async () => {
  await build({
    entryPoints: [path.join(FIXTURE, 'training-only.js')], bundle: true, format: 'esm', target: ['es2022'],
    outfile: made[0], logLevel: 'warning', define: { 'import.meta.url': '""' },
  });
  fs.copyFileSync(path.join(FIXTURE, 'training-only.html'), made[1]);
  env = await openBrowser();
});
after(async () => {
  await env?.close();
  for (const file of made) fs.rmSync(file, { force: true });
});

async function open(query = '') {
  const page = await newPage(env);
  await page.goto(env.url(`dist/test-training-only.html${query}`));
  await page.waitForSelector('body[data-ready="true"]');
  await page.waitForFunction(() => window.__training.section.element.dataset.state !== 'loading');
  return page;
}

test('inside a shadow root: trains, and nothing leaks into the document', async () => {
  const page = await open();
  const result = await page.evaluate(async () => {
    const { section, root } = window.__training;
    const el = section.element;
    el.querySelector('button[data-role="step"]').click();
    el.querySelector('button[data-role="step"]').click();
    // a slow step (a busy machine) draws its figures a frame later: read once they show step 2
    await new Promise((resolve) => {
      const check = (left) => (el.querySelector('.heatmap').dataset.step === el.dataset.step || left === 0 ? resolve() : requestAnimationFrame(() => check(left - 1)));
      check(600);
    });
    return {
      inShadow: el.getRootNode() === root,
      lightDom: document.querySelectorAll('.qkv-training, .heat-row, canvas').length,
      step: el.dataset.step,
      flashed: el.querySelectorAll('.heat-row[data-flashed]').length,
      updated: el.querySelector('.heatmap').dataset.updatedRows.split(',').length,
      points: el.querySelector('canvas[data-chart="loss"]').dataset.points,
      said: window.__training.said.slice(-1)[0],
    };
  });
  assert.equal(result.inShadow, true);
  assert.equal(result.lightDom, 0);
  assert.equal(result.step, '2');
  assert.equal(result.flashed, result.updated);
  assert.equal(result.points, '2');
  // the narration names what a step took: one sentence, or the real count
  assert.match(result.said, /^Step 2\. (Sentence: .* Loss|\d+ sentences: .* Mean loss) \d+\.\d{3}\. \d+ rows updated\./);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('divergence is shown, announced, and training stops', async () => {
  const page = await open('?diverge=1000');
  await page.evaluate(() => window.__training.section.element.querySelector('button[data-role="play"]').click());
  await page.waitForFunction(() => window.__training.section.element.dataset.state === 'diverged', null, { timeout: 60000 });
  const s = await page.evaluate(() => {
    const el = window.__training.section.element;
    const error = el.querySelector('[data-role="error"]');
    return {
      step: el.dataset.step, errorHidden: error.hidden, error: error.textContent, text: el.innerText,
      playDisabled: el.querySelector('button[data-role="play"]').disabled,
      stepDisabled: el.querySelector('button[data-role="step"]').disabled,
      said: window.__training.said.slice(-1)[0],
    };
  });
  assert.equal(s.errorHidden, false);
  assert.match(s.error, /Training diverged \(step \d+\)/);
  assert.equal(s.said, s.error);
  assert.equal(s.playDisabled, true);
  assert.equal(s.stepDisabled, true);
  assert.deepEqual(badNumbers(s.text.replace(s.error, '')), [], 'no NaN shown outside the error message');
  // stopped: the run is over (no step can follow), its state says so, and frames pass without a step
  assert.deepEqual(await page.evaluate(() => {
    const t = window.__training;
    return { finished: t.run().finished, hasError: t.run().error !== null, state: t.section.element.dataset.state };
  }), { finished: true, hasError: true, state: 'diverged' });
  await frames(page, 3);
  assert.equal(await page.evaluate(() => window.__training.section.element.dataset.step), s.step, 'stopped');
  // reset gives a fresh run (which will diverge again with this lr, but starts clean)
  await page.evaluate(() => window.__training.section.element.querySelector('button[data-role="reset"]').click());
  assert.equal(await page.evaluate(() => window.__training.section.element.querySelector('[data-role="error"]').hidden), true);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('destroy() stops the animation loop and frees the model', async () => {
  const page = await open();
  const r = await page.evaluate(async () => {
    const t = window.__training;
    const el = t.section.element;
    el.querySelector('button[data-role="play"]').click();
    const frame = () => new Promise((res) => requestAnimationFrame(res));
    while (!(Number(el.dataset.step) >= 2)) await frame();  // training is under way
    const during = t.heapUsed();
    t.section.destroy();
    const step = el.dataset.step;
    // the loop takes its steps in animation frames: frames pass, and none of them steps
    for (let k = 0; k < 3; k++) await frame();
    return { during, after: t.heapUsed(), before: t.heapBefore, step, later: el.dataset.step };
  });
  assert.ok(r.during > r.before, 'the model held memory while training');
  assert.equal(r.after, r.before, 'every byte freed');
  assert.equal(r.later, r.step, 'no step after destroy()');
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});
