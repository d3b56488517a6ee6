// training-step.test.js: the numbers of the one-step walkthrough (web/page/training/step.js),
// against a float64 JavaScript reference computed from the same parameters
// (tests/model-reference.js, the model side's reference), at step 0 and after training:
// the forward pass, the gradient that reaches E (non-zero on exactly the sentence's rows), the
// update (E_row − lr·grad, on a copy: the run is left alone) and the loss again (lower).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../web/qkv-lab.js';
import { createState } from '../web/page/shell/state.js';
import { createTrainingStore } from '../web/page/training/store.js';
import { deriveTrainStep, chooseSentence, attentionSpread } from '../web/page/training/step.js';
import { referenceForward } from './model-reference.js';

const qkv = await load({ model: true });

function maxDiff(actual, expected) {
  let worst = 0;
  const rows = expected.length;
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < expected[i].length; j++) worst = Math.max(worst, Math.abs(actual.data[i * actual.cols + j] - expected[i][j]));
  }
  return worst;
}

async function storeAt(search) {
  const state = createState({ search });
  const store = createTrainingStore({ qkv, state });
  const release = store.acquire();
  await store.ensure();
  return { state, store, release };
}

for (const search of ['', '?step=250', '?step=40&tseed=5&dim=8']) {
  test(`the walkthrough's numbers equal a float64 reference (${search || 'step 0'})`, async () => {
    const { state, store, release } = await storeAt(search);
    const snap = deriveTrainStep(qkv, store, state.get('example'));
    assert.equal(snap.status, 'ready');
    assert.equal(snap.step, store.run.step);
    assert.deepEqual(snap.tokens, ['我', '爱', '吃', '苹', '果']);
    const ref = referenceForward(store.run.model, snap.tokens);
    // float32 arithmetic in C against doubles: each entry is a short sum of products of numbers
    // of order 1, so 1e-4 absolute is float32 rounding with ample room, and far below the 3
    // decimals shown
    for (const name of ['embeddingRows', 'positions', 'X', 'Q', 'K', 'V', 'scores', 'weights', 'attention', 'h', 'logits', 'probs']) {
      const diff = maxDiff(snap.now[name], ref[name]);
      assert.ok(diff < 1e-4, `${name}: max difference ${diff}`);
    }
    snap.now.losses.forEach((l, t) => assert.ok(Math.abs(l - ref.losses[t]) < 1e-4, `loss at ${t}: ${l} vs ${ref.losses[t]}`));
    assert.ok(Math.abs(snap.now.loss - ref.loss) < 1e-4);
    // step 0 beside now: the initial model's attention
    const initial = qkv.createModel(store.run.options);
    const ref0 = referenceForward(initial, snap.tokens);
    assert.ok(maxDiff(snap.start.weights, ref0.weights) < 1e-4);
    initial.dispose();
    release();
    store.dispose();
  });
}

test('the gradient that reaches E is non-zero on exactly the sentence\'s rows and <s>, and exactly 0 elsewhere', async () => {
  const { state, store, release } = await storeAt('?step=60');
  for (const example of ['我 爱 吃 苹 果', store.run.model.sentences[3].join(' ')]) {
    state.set('example', example);
    const snap = deriveTrainStep(qkv, store, state.get('example'));
    const expected = [...new Set([0, ...snap.now.ids])].sort((a, b) => a - b);
    const g = snap.now.gradients.embedding;
    const nonZero = [];
    for (let r = 0; r < g.rows; r++) if (g.data.subarray(r * g.cols, (r + 1) * g.cols).some((x) => x !== 0)) nonZero.push(r);
    assert.deepEqual(nonZero, expected, example);
    assert.deepEqual(snap.now.gradientRows.map((r) => r.row), expected);
    assert.equal(snap.zeroRows, g.rows - expected.length);
    // with SGD the update changes exactly those rows
    assert.deepEqual(snap.update.updatedRows, expected);
  }
  release();
  store.dispose();
});

test('the update is E_row − lr·grad on a copy, the sentence\'s loss falls, and the run is left alone', async () => {
  const { state, store, release } = await storeAt('?step=30');
  const before = Array.from(store.run.model.embeddings().data);
  const stepBefore = store.run.step;
  for (const sentence of store.run.model.sentences.slice(0, 8)) {
    state.set('example', sentence.join(' '));
    const snap = deriveTrainStep(qkv, store, state.get('example'));
    const { update } = snap;
    assert.ok(update.lossAfter < update.loss, `${sentence.join(' ')}: ${update.loss} → ${update.lossAfter}`);
    assert.equal(update.loss, snap.now.loss, 'the copy starts where the run is');
    for (let i = 0; i < update.rowsBefore.data.length; i++) {
      // p − lr·g in float32, exactly as wasm/model.c computes it (its lr is a float)
      const step = Math.fround(Math.fround(snap.lr) * update.gradRows.data[i]);
      assert.equal(update.rowsAfter.data[i], Math.fround(update.rowsBefore.data[i] - step), `entry ${i}`);
      assert.equal(update.delta.data[i], -step);
    }
    // the loss after, recomputed from the updated rows in double, agrees
    assert.ok(Math.abs(update.after.loss - update.lossAfter) < 1e-4);
  }
  assert.deepEqual(Array.from(store.run.model.embeddings().data), before, 'the run\'s table is untouched');
  assert.equal(store.run.step, stepBefore);
  release();
  store.dispose();
});

test('with Adam the update is the copy\'s first Adam step, about ±lr per entry', async () => {
  const { state, store, release } = await storeAt('?opt=adam&lr=0.01&step=10');
  const snap = deriveTrainStep(qkv, store, state.get('example'));
  assert.equal(snap.optimizer, 'adam');
  for (let i = 0; i < snap.update.delta.data.length; i++) {
    const g = snap.update.gradRows.data[i];
    const step = snap.update.delta.data[i];
    // first Adam step from zero moments: m̂ = g, v̂ = g², so the move is lr·g/(|g| + ε)
    const expected = -0.01 * g / (Math.abs(g) + 1e-8);
    assert.ok(Math.abs(step - expected) < 1e-6, `entry ${i}: ${step} vs ${expected}`);
  }
  release();
  store.dispose();
});

test('the sentence asked for, else the corpus\'s first; the spread of even and of one-place attention', () => {
  const sentences = [['一只', '猫'], ['我', '爱', '吃', '苹', '果']];
  assert.deepEqual(chooseSentence(sentences, '我 爱 吃 苹 果'), { tokens: sentences[1], index: 1, missing: null });
  assert.deepEqual(chooseSentence(sentences, '恐龙 在 叫'), { tokens: sentences[0], index: 0, missing: '恐龙 在 叫' });
  const even = { rows: 3, cols: 3, data: Float32Array.from([1, 0, 0, 0.5, 0.5, 0, 1 / 3, 1 / 3, 1 / 3]) };
  assert.ok(Math.abs(attentionSpread(even) - 1) < 1e-6);
  const sharp = { rows: 3, cols: 3, data: Float32Array.from([1, 0, 0, 0, 1, 0, 0, 0, 1]) };
  assert.equal(attentionSpread(sharp), 0);
});
