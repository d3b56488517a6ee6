// model.inspect(sentence) and model.stepOn(sentence): one sentence through the model, every
// intermediate against a float64 reference (tests/model-reference.js, from wasm/model.c's
// formulas and the parameters read back with getParameter), its gradients against finite
// differences, and one optimizer step on it.
//
// Forward tolerance: |inspect − reference| ≤ 1e-5 · max(1, largest |entry| of that field)
// (losses: of the logits, from which they are computed). The C side computes in float32 (unit
// roundoff u = 2^-24 ≈ 6e-8) and the reference in double from the same float32 parameters, so
// each field differs by rounding alone: a dot product of d = 16 terms is off by at most about
// d·u ≈ 1e-6 of its terms' size, and errors carry through at most six such layers. Measured over
// seeds 0–3, before training and after 300 and 3000 steps, on every corpus sentence: the worst
// field is within 9e-7 of its scale (scores, a product of two computed matrices), most within
// 3e-7; the bound has a margin of 10× or more, while any real mistake (a missing 1/√d, an
// unmasked score, a dropped residual or bias) changes entries by 1e-2 or more.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'qkv-lab';
import { checkMatrix, toNested, maxAbs } from './helpers.js';
import { referenceForward, readParameters } from './model-reference.js';
import { TRAINING_DEFAULTS } from '../web/corpus.js';

const qkv = await load({ model: true });
const FIELDS = ['embeddingRows', 'positions', 'X', 'Q', 'K', 'V', 'scores', 'weights', 'attention', 'h', 'logits', 'probs'];
const NAMES = ['embedding', 'Wq', 'Wk', 'Wv', 'Wout', 'bout'];
const REL = 1e-5;

const bits = (f32) => new Uint32Array(f32.buffer.slice(f32.byteOffset, f32.byteOffset + f32.byteLength));
const sameBits = (a, b) => a.length === b.length && bits(a).every((v, i) => v === bits(b)[i]);
const snapshot = (model) => Object.fromEntries(NAMES.map((n) => [n, model.getParameter(n)]));
const restore = (model, params) => { for (const n of NAMES) model.setParameter(n, params[n]); };
const distinctRows = (model, words) => [...new Set([0, ...words.map((w) => model.vocab.indexOf(w))])].sort((a, b) => a - b);

function checkAgainstReference(model, sentence, label) {
  const words = typeof sentence === 'string' ? sentence.split(' ') : sentence;
  const r = model.inspect(sentence);
  const ref = referenceForward(model, words);
  const n = words.length + 1;
  assert.deepEqual(r.tokens, ['<s>', ...words], `${label}: tokens`);
  assert.deepEqual(r.targets, [...words, '<s>'], `${label}: targets`);
  assert.deepEqual(r.ids, ref.ids, `${label}: ids`);
  assert.deepEqual(r.targetIds, ref.targetIds, `${label}: targetIds`);
  const worst = {};
  for (const field of FIELDS) {
    const width = { scores: n, weights: n, logits: model.vocab.length, probs: model.vocab.length }[field] ?? model.dim;
    assert.equal(r[field].rows, n, `${label}: ${field} rows`);
    assert.equal(r[field].cols, width, `${label}: ${field} cols`);
    const scale = Math.max(1, maxAbs(ref[field]));
    const diff = checkMatrix(r[field], ref[field], REL * scale, `${label}: ${field}`);
    worst[field] = diff / scale;
  }
  // the look-up is exact: E[ids], bit for bit
  const E = model.getParameter('embedding');
  r.ids.forEach((id, t) => assert.ok(sameBits(r.embeddingRows.data.subarray(t * model.dim, (t + 1) * model.dim),
    E.data.subarray(id * model.dim, (id + 1) * model.dim)), `${label}: embeddingRows[${t}] is E[${id}]`));
  // causal: weights above the diagonal are exactly 0; scores there are computed all the same
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) assert.equal(r.weights.get(i, j), 0);
  assert.equal(r.losses.length, n, `${label}: one loss per position`);
  const scale = Math.max(1, maxAbs(ref.logits));
  r.losses.forEach((l, t) => assert.ok(Math.abs(l - ref.losses[t]) <= REL * scale,
    `${label}: losses[${t}] = ${l}, reference ${ref.losses[t]}`));
  const mean = r.losses.reduce((a, b) => a + b, 0) / n;
  assert.ok(Math.abs(r.loss - mean) <= 1e-12 * Math.max(1, mean), `${label}: loss ${r.loss} is the mean of losses ${mean}`);
  return { r, worst };
}

test('inspect: every field equals the float64 reference, before and during training, on every corpus sentence', (t) => {
  const worst = {};
  for (const seed of [0, 7]) {
    const model = qkv.createModel({ seed });
    try {
      for (const steps of [0, 150, 600]) {
        model.train(steps - model.steps);
        for (const s of model.sentences) {
          const { r, worst: w } = checkAgainstReference(model, s, `seed ${seed}, step ${steps}, ${s.join(' ')}`);
          for (const [k, v] of Object.entries(w)) worst[k] = Math.max(worst[k] ?? 0, v);
          assert.equal(r.loss, model.loss([s]), 'loss equals model.loss([sentence]) exactly');
        }
      }
    } finally {
      model.dispose();
    }
  }
  t.diagnostic(`worst |C − reference| / scale: ${Object.entries(worst).map(([k, v]) => `${k} ${v.toExponential(1)}`).join(', ')}`);
});

test('inspect: a string, a token array and an unspaced string give the same result; nothing changes', () => {
  const model = qkv.createModel({ seed: 2 });
  try {
    model.train(40);
    const before = snapshot(model);
    const steps = model.steps;
    const a = model.inspect('我 爱 吃 苹 果');
    const b = model.inspect(['我', '爱', '吃', '苹', '果']);
    const c = model.inspect('我爱吃苹果');
    for (const field of FIELDS) {
      assert.ok(sameBits(a[field].data, b[field].data) && sameBits(a[field].data, c[field].data), field);
    }
    assert.deepEqual(a.losses, b.losses);
    for (const n of NAMES) assert.ok(sameBits(before[n].data, model.getParameter(n).data), `inspect changed ${n}`);
    assert.equal(model.steps, steps, 'inspect is not a step');
    // a sentence not in the corpus, with a repeated word, is fine too
    checkAgainstReference(model, '猫 在 叫 猫', 'a new sentence');
  } finally {
    model.dispose();
  }
});

test('inspect: gradients are model.gradients([sentence]) bit for bit; the embedding gradient is non-zero on exactly the sentence\'s distinct rows', () => {
  const model = qkv.createModel({ seed: 5 });
  try {
    model.train(80);
    for (const sentence of [...model.sentences.slice(0, 12), ['猫', '在', '叫', '猫'], ['果']]) {
      const r = model.inspect(sentence);
      const { loss, grads } = model.gradients([sentence]);
      assert.equal(r.loss, loss);
      for (const n of NAMES) {
        assert.equal(r.gradients[n].rows, grads[n].rows);
        assert.ok(sameBits(r.gradients[n].data, grads[n].data), `${sentence.join(' ')}: gradients.${n}`);
      }
      const rows = distinctRows(model, sentence);
      const g = r.gradients.embedding;
      for (let row = 0; row < g.rows; row++) {
        const values = g.row(row);
        if (rows.includes(row)) assert.ok(values.some((x) => x !== 0), `row ${row} (${model.vocab[row]}) is in the sentence`);
        else assert.ok(values.every((x) => x === 0), `row ${row} (${model.vocab[row]}) is not in the sentence but has a gradient`);
      }
      assert.deepEqual(r.gradientRows.map((x) => x.row), rows);
      for (const { row, word, norm } of r.gradientRows) {
        assert.equal(word, model.vocab[row]);
        const expected = Math.hypot(...g.row(row));
        assert.ok(Math.abs(norm - expected) <= 1e-12 * expected, `norm of row ${row}`);
      }
    }
  } finally {
    model.dispose();
  }
});

// Finite differences of the float64 reference's loss (the same function as the C forward, checked
// above), with h = 1e-4 in double: truncation h²/6·|L‴| ≈ 1e-9 and rounding 1e-16/h ≈ 1e-12 are
// negligible, so what remains is the float32 rounding of the C backward pass. Tolerance:
// |C − numeric| ≤ 1e-5 · (largest |numeric| of that parameter) + 1e-4 · |numeric|; a wrong factor
// or a dropped term in the backward pass is off by percent.
// (tests/model-gradients.test.js checks batches the other way, differencing the C loss itself.)
test('inspect: gradients equal central finite differences of the sentence\'s loss, every parameter', (t) => {
  const H = 1e-4;
  for (const [seed, warmup, sentence] of [[3, 200, '我 爱 吃 苹 果'], [8, 60, '一只 猫 在 叫']]) {
    const model = qkv.createModel({ seed });
    try {
      model.train(warmup);
      const words = sentence.split(' ');
      const { gradients } = model.inspect(sentence);
      const params = readParameters(model);
      for (const name of NAMES) {
        const P = params[name];
        const numeric = P.map((row) => row.map(() => 0));
        const used = new Set([0, ...words.map((w) => model.vocab.indexOf(w))]);
        for (let i = 0; i < P.length; i++) {
          // the reference reads only the sentence's embedding rows: any other row's difference is 0
          if (name === 'embedding' && !used.has(i)) continue;
          for (let j = 0; j < P[i].length; j++) {
            const p = P[i][j];
            P[i][j] = p + H;
            const lossPlus = referenceForward(model, words, params).loss;
            P[i][j] = p - H;
            const lossMinus = referenceForward(model, words, params).loss;
            P[i][j] = p;
            numeric[i][j] = (lossPlus - lossMinus) / (2 * H);
          }
        }
        const largest = maxAbs(numeric);
        assert.ok(largest > 5e-3, `${name}: gradient too small (${largest}) for the check to mean anything`);
        const diff = checkMatrix(gradients[name], numeric, { abs: 1e-5 * largest, rel: 1e-4 }, `seed ${seed}: d loss / d ${name}`);
        t.diagnostic(`seed ${seed}, ${sentence}: ${name} max |numeric − C| = ${diff.toExponential(2)}, max |g| = ${largest.toExponential(2)}`);
      }
    } finally {
      model.dispose();
    }
  }
});

test('stepOn with SGD: changes exactly the sentence\'s rows; rowsBefore / rowsAfter are those rows; the step counts', () => {
  const model = qkv.createModel({ seed: 4, optimizer: 'sgd' });
  try {
    model.train(30);
    const d = model.dim;
    for (const sentence of ['我 爱 吃 苹 果', '一只 猫 在 叫', ['猫', '在', '叫', '猫']]) {
      const before = model.getParameter('embedding');
      const steps = model.steps;
      const r = model.stepOn(sentence);
      const after = model.getParameter('embedding');
      const words = typeof sentence === 'string' ? sentence.split(' ') : sentence;
      const rows = distinctRows(model, words);
      assert.deepEqual(r.batch, [words]);
      assert.deepEqual(r.updatedRows, rows);
      assert.equal(r.step, steps + 1);
      assert.equal(model.steps, steps + 1);
      assert.equal(r.rowGradNorms.length, rows.length);
      assert.ok(r.rowGradNorms.every((g) => g > 0 && Number.isFinite(g)));
      for (let row = 0; row < model.vocab.length; row++) {
        const moved = !sameBits(before.data.subarray(row * d, (row + 1) * d), after.data.subarray(row * d, (row + 1) * d));
        assert.equal(moved, rows.includes(row), `row ${row} (${model.vocab[row]}) ${moved ? 'moved' : 'stayed'}`);
      }
      assert.equal(r.rowsBefore.rows, rows.length);
      assert.equal(r.rowsAfter.cols, d);
      rows.forEach((row, k) => {
        assert.ok(sameBits(r.rowsBefore.data.subarray(k * d, (k + 1) * d), before.data.subarray(row * d, (row + 1) * d)));
        assert.ok(sameBits(r.rowsAfter.data.subarray(k * d, (k + 1) * d), after.data.subarray(row * d, (row + 1) * d)));
      });
      // E_row ← E_row − lr·grad, in float32
      assert.ok(r.lossAfter < r.loss, `${words.join(' ')}: ${r.loss} → ${r.lossAfter}`);
      assert.equal(r.lossAfter, model.loss([words]));
    }
  } finally {
    model.dispose();
  }
});

test('stepOn is step() on that sentence: bit-identical parameters for sgd and adam (Adam\'s moments and t advance alike)', () => {
  for (const optimizer of ['sgd', 'adam']) {
    const scheduled = qkv.createModel({ seed: 9, optimizer, batchSize: 1 });
    const chosen = qkv.createModel({ seed: 9, optimizer, batchSize: 1 });
    try {
      for (let s = 0; s < 12; s++) {
        const a = scheduled.step();
        const b = chosen.stepOn(a.batch[0]);
        assert.equal(b.loss, a.loss, `${optimizer} step ${s + 1}: loss`);
        assert.deepEqual(b.updatedRows, a.updatedRows, `${optimizer} step ${s + 1}: updatedRows`);
        assert.deepEqual(b.rowGradNorms, a.rowGradNorms);
        assert.equal(b.step, a.step);
        for (const n of NAMES) {
          assert.ok(sameBits(scheduled.getParameter(n).data, chosen.getParameter(n).data), `${optimizer} step ${s + 1}: ${n}`);
        }
      }
    } finally {
      scheduled.dispose();
      chosen.dispose();
    }
  }
});

test('stepOn with Adam: rows outside the sentence move too (the moments carry them), and updatedRows says which', () => {
  const model = qkv.createModel({ seed: 4, optimizer: 'adam' });
  try {
    model.train(5);
    const before = model.getParameter('embedding');
    const r = model.stepOn('我 爱 吃 苹 果');
    const after = model.getParameter('embedding');
    const d = model.dim;
    const changed = [];
    for (let row = 0; row < model.vocab.length; row++) {
      if (!sameBits(before.data.subarray(row * d, (row + 1) * d), after.data.subarray(row * d, (row + 1) * d))) changed.push(row);
    }
    assert.deepEqual(r.updatedRows, changed);
    const own = distinctRows(model, ['我', '爱', '吃', '苹', '果']);
    assert.ok(own.every((row) => changed.includes(row)));
    assert.ok(changed.length > own.length, 'earlier batches\' rows keep moving under Adam');
    assert.equal(r.rowsBefore.rows, changed.length);
  } finally {
    model.dispose();
  }
});

test('stepOn with the default lr lowers the sentence\'s own loss, on every corpus sentence, at several points of training', (t) => {
  // each sentence's step is undone (setParameter) before the next, so every sentence is tried
  // from the same point; SGD keeps no state besides the parameters, so this is exact
  const seeds = [0, 1, 2];
  const points = [0, Math.round(TRAINING_DEFAULTS.steps / 4), TRAINING_DEFAULTS.steps];
  let tried = 0;
  const failures = [];
  for (const seed of seeds) {
    const model = qkv.createModel({ ...TRAINING_DEFAULTS, seed });
    try {
      for (const point of points) {
        model.train(point - model.steps);
        const params = snapshot(model);
        for (const s of model.sentences) {
          const r = model.stepOn(s);
          tried++;
          if (!(r.lossAfter < r.loss)) failures.push(`seed ${seed}, step ${point}, ${s.join(' ')}: ${r.loss} → ${r.lossAfter}`);
          restore(model, params);
        }
      }
    } finally {
      model.dispose();
    }
  }
  t.diagnostic(`lossAfter < loss on ${tried - failures.length} of ${tried} (sentence, seed, point) pairs`);
  assert.deepEqual(failures, []);
});

test('inspect / stepOn: bad input gives clear errors and leaks nothing', () => {
  const model = qkv.createModel({ seed: 1 });
  const start = qkv.heapUsed();
  for (const op of ['inspect', 'stepOn']) {
    const call = (x) => model[op](x);
    assert.throws(() => call('一只 独角兽 在 叫'), (e) => e instanceof RangeError && e.message.startsWith(`${op}:`) && e.message.includes('"独角兽"'));
    assert.throws(() => call(''), (e) => e instanceof RangeError && /empty/.test(e.message));
    assert.throws(() => call([]), (e) => e instanceof RangeError && /empty/.test(e.message));
    assert.throws(() => call(Array(model.maxTokens + 1).fill('猫')), (e) => e instanceof RangeError && e.message.includes(`at most ${model.maxTokens}`));
    assert.throws(() => call(['一只', '<s>', '叫']), (e) => e instanceof RangeError && e.message.includes('<s>'));
    assert.throws(() => call(42), (e) => e instanceof TypeError && e.message.startsWith(`${op}:`));
    assert.throws(() => call(undefined), TypeError);
    assert.throws(() => call(['猫', 7]), TypeError);
  }
  assert.equal(model.steps, 0, 'a refused stepOn is not a step');
  for (let i = 0; i < 200; i++) {
    model.inspect('我 爱 吃 苹 果');
    model.stepOn('一只 猫 在 叫');
  }
  assert.equal(qkv.heapUsed(), start, 'inspect and stepOn free what they allocate');
  model.dispose();
  assert.throws(() => model.inspect('一只 猫'), /inspect: this model was disposed/);
  assert.throws(() => model.stepOn('一只 猫'), /stepOn: this model was disposed/);
});

test('stepOn: divergence is handled as in step(): nothing applied, a DivergenceError, model.diverged', () => {
  const model = qkv.createModel({ seed: 2, lr: 1e6 });
  try {
    let error = null;
    let last = null;
    for (let s = 0; s < 20 && !error; s++) {
      last = snapshot(model);
      try {
        model.stepOn('我 爱 吃 苹 果');
      } catch (e) {
        error = e;
      }
    }
    assert.ok(error, 'lr 1e6 should diverge within 20 steps');
    assert.equal(error.name, 'DivergenceError');
    assert.ok(model.diverged);
    for (const n of NAMES) assert.ok(model.getParameter(n).data.every(Number.isFinite), `${n} stays finite`);
    // either the step was refused (parameters as before it), or it was applied and the loss
    // after it is what could not be computed; the message says which
    if (/was applied/.test(error.message)) {
      assert.match(error.message, /^stepOn: step \d+ was applied, but the sentence's loss after it/);
    } else {
      assert.match(error.message, /parameters are those before/);
      for (const n of NAMES) assert.ok(sameBits(last[n].data, model.getParameter(n).data), `${n} is as before the failed step`);
    }
    assert.throws(() => model.stepOn('我 爱 吃 苹 果'), (e) => e.name === 'DivergenceError');
    assert.throws(() => model.step(), (e) => e.name === 'DivergenceError');
  } finally {
    model.dispose();
  }
});
