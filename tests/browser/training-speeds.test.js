// training-speeds.test.js: the training section trains at the default speed and at the fastest one, the
// loss chart keeps one point per step, Pause stops it, and nothing goes wrong on the way.
// Frame times are a speed: they are measured by the benchmark (bench/page.mjs, `npm run bench`),
// never asserted here, because CI runs on two cores that may be busy. Run after ./build.sh.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, frames } from './harness.js';
import { openTraining, readState, referenceRun, badNumbers } from './training-helpers.js';

let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env?.close(); });

for (const [speed, target] of [['20', 30], ['100', 120]]) {
  test(`training at ${speed} steps per second advances, pauses, and matches the model`, async () => {
    const { page, section } = await openTraining(env);
    await section.locator('[data-role="speed"]').selectOption(speed);
    await section.locator('button[data-role="play"]').click();
    await page.waitForFunction(([sel, n]) => Number(document.querySelector(sel).dataset.step) >= n,
      ['[data-section="training"]', target], { timeout: 120000 });
    await section.locator('button[data-role="play"]').click();
    const paused = await readState(section);
    assert.equal(paused.state, 'paused');
    assert.ok(paused.step >= target, `step ${paused.step}`);
    assert.equal(paused.lossPoints, paused.step, 'one loss point per step, however many steps a frame took');
    await frames(page, 3);
    assert.equal((await readState(section)).step, paused.step, 'paused means no more steps');
    const { steps, model } = await referenceRun('', paused.step);
    assert.equal(paused.loss, steps[paused.step - 1].loss, 'the loss shown is the model\'s at that step');
    model.dispose();
    assert.deepEqual(badNumbers(paused.text), []);
    assert.deepEqual(page.problems(), []);
    await page.closeAll();
  });
}
