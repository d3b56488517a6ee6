// model-step-parts.test.js: Model.step({ deadline }), a step taken a few sentences at a time
// (wasm/model.c's qkv_model_loss_and_grad_range), so that a page can train on a large batch
// without blocking. The parts add up to the step step() takes, bit for bit; in between the model
// can be read, saved and loaded, and calls that compute gradients of their own do not spoil it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'qkv-lab';
import { PARAMETER_NAMES } from '../web/model.js';

const qkv = await load({ model: true });
const PAST = -Infinity;   // a deadline that has always passed: one sentence a call

/** The step in parts, one sentence a call: [the parts it took, its result]. */
function inParts(model) {
  let parts = 0, result = null;
  while (result === null) { result = model.step({ deadline: PAST }); parts++; }
  return [parts, result];
}

const same = (a, b, what) => {
  assert.deepEqual(a.loss, b.loss, `${what}: loss`);
  assert.deepEqual(a.batch, b.batch, `${what}: batch`);
  assert.deepEqual(a.updatedRows, b.updatedRows, `${what}: updated rows`);
  assert.deepEqual(a.rowGradNorms, b.rowGradNorms, `${what}: gradient norms`);
  assert.equal(a.step, b.step, `${what}: step`);
};
const sameParameters = (a, b, what) => {
  for (const name of PARAMETER_NAMES) assert.deepEqual(a.getParameter(name).data, b.getParameter(name).data, `${what}: ${name}`);
};

for (const optimizer of ['sgd', 'adam']) {
  test(`${optimizer}: a step in parts is the step step() takes, bit for bit, across reshuffles`, () => {
    const options = { seed: 3, optimizer, batchSize: 5, dim: 8 };
    const whole = qkv.createModel(options), parts = qkv.createModel(options);
    try {
      // 25 steps of 5 of the default corpus's 49 sentences: two reshuffles on the way
      for (let k = 0; k < 25; k++) {
        const a = whole.step();
        let b;
        if (k % 3 === 2) b = parts.step();   // whole steps and steps in parts mix
        else {
          assert.equal(parts.stepping, false);
          const [n, result] = inParts(parts);
          assert.equal(n, a.batch.length, 'one sentence a call when the deadline has passed');
          b = result;
        }
        same(a, b, `step ${k + 1}`);
      }
      sameParameters(whole, parts, 'after 25 steps');
      // with a deadline far ahead, the whole batch in one call
      same(whole.step(), parts.step({ deadline: Infinity }), 'step 26');
    } finally {
      whole.dispose(); parts.dispose();
    }
  });
}

test('between the parts: saveState gives the state before the step, loadState drops it, a loss starts it again', () => {
  const options = { seed: 8, optimizer: 'adam', batchSize: 4, dim: 8 };
  const a = qkv.createModel(options), b = qkv.createModel(options);
  try {
    // at an epoch's start (49 sentences, 12 × 4 = 48 taken: the next batch reshuffles first)
    for (let k = 0; k < 13; k++) { a.step(); b.step(); }
    for (let k = 0; k < 2; k++) {
      const before = a.saveState();
      assert.equal(a.step({ deadline: PAST }), null);
      assert.equal(a.stepping, true);
      const during = a.saveState();
      assert.deepEqual(during.bytes, before.bytes, `step ${a.steps + 1}: saved during the step`);
      assert.equal(during.cursor, before.cursor);
      assert.equal(during.steps, before.steps);
      // a reading and a loss of its own in the middle: the step still comes out the same
      a.nearest(a.vocab[3], 3);
      a.loss(['猫 在 睡觉']);
      const [, result] = inParts(a);
      same(result, b.step(), `step ${b.steps}`);
    }
    // loadState in the middle: the step under way is gone, the state's next step is taken
    const state = a.saveState();
    const expected = b.step();
    assert.equal(a.step({ deadline: PAST }), null);
    a.loadState(state);
    assert.equal(a.stepping, false);
    same(a.step(), expected, 'the step after a load');
    sameParameters(a, b, 'after the load');
  } finally {
    a.dispose(); b.dispose();
  }
});

test('step({ deadline }) refuses a deadline that is not a time', () => {
  const model = qkv.createModel({ seed: 1 });
  try {
    for (const deadline of [NaN, '10', null]) {
      assert.throws(() => model.step({ deadline }), (e) => e instanceof TypeError && /step: deadline must be a time/.test(e.message), String(deadline));
    }
    assert.equal(model.steps, 0);
    assert.equal(model.stepping, false);
  } finally {
    model.dispose();
  }
});
