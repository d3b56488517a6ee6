// Core numerics against numpy (float64) fixtures: selfAttention, attend, matmul, transpose,
// softmaxRows, plus the exactness rules for ±1e4 and -Infinity softmax inputs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'qkv-lab';
import {
  loadFixtures, fromFixture, toMatrixLike, toNested, checkMatrix, assertMatrix, maxAbs,
} from './helpers.js';

const qkv = await load();
const fx = loadFixtures();

// Tolerance for float32 results against float64 references: 1e-5 · max(1, max|expected|).
// qkv-lab computes in float32 (unit roundoff 2^-24 ≈ 6e-8). The inputs are rounded to float32
// (relative 6e-8 each) and every dot product here has ≤ 16 terms, so accumulated rounding is a
// few 1e-7 relative to the size of the numbers involved. make_fixtures.py runs a naive float32
// version of the same pipeline over these fixtures and records the worst error, relative to
// max(1, max|x|) of each matrix, as float32_simulation_max_rel_error (≈ 5e-7): 1e-5 leaves a
// ~20× margin for other summation orders, SIMD blocking and a slightly less accurate exp(),
// while real bugs (missing transpose, wrong scale, mask off by one, no normalisation) miss by
// 1e-3 or more. Scaling by the matrix magnitude matters only for unscaled 16-wide scores (|s|~10).
const REL = 1e-5;
const tolFor = (expected) => REL * Math.max(1, maxAbs(expected));

// Matrix-like inputs and nested arrays must both be accepted: alternate between them.
const asInput = (nested, k) => (k % 2 === 0 ? nested : toMatrixLike(nested));

function checkAll(res, expected, label, keys) {
  for (const key of keys) {
    const exp = expected[key];
    assert.ok(res[key], `${label}: result has no ${key}`);
    assertMatrix(res[key], exp.length, exp[0].length, `${label}.${key}`);
    checkMatrix(res[key], exp, tolFor(exp), `${label}.${key}`);
  }
}

function assertCausalZeros(weights, label) {
  const w = toNested(weights);
  for (let i = 0; i < w.length; i++) {
    for (let j = i + 1; j < w[i].length; j++) {
      assert.ok(w[i][j] === 0, `${label}: causal weight [${i}][${j}] = ${w[i][j]}, must be exactly 0`);
    }
  }
}

test('fixture sanity: the float32 simulation supports the tolerance', () => {
  assert.ok(fx.float32_simulation_max_rel_error < REL / 10);
});

test('selfAttention reproduces every numpy attention fixture (scale none/sqrt(dk)/2.5 × causal)', () => {
  let k = 0;
  for (const a of fx.attention) {
    const X = fromFixture(a.X);
    const Wq = fromFixture(a.Wq);
    const Wk = fromFixture(a.Wk);
    const Wv = fromFixture(a.Wv);
    for (const c of a.cases) {
      const label = `${a.name} scale=${c.scale} causal=${c.causal}`;
      const res = qkv.selfAttention(asInput(X, k), asInput(Wq, k + 1), asInput(Wk, k), asInput(Wv, k + 1),
        { scale: c.scale, causal: c.causal });
      k++;
      checkAll(res, {
        Q: fromFixture(a.Q), K: fromFixture(a.K), V: fromFixture(a.V),
        scores: fromFixture(c.scores), weights: fromFixture(c.weights), output: fromFixture(c.output),
      }, label, ['Q', 'K', 'V', 'scores', 'weights', 'output']);
      if (c.causal) assertCausalZeros(res.weights, label);
    }
  }
});

test('attend reproduces every fixture from the fixture Q, K, V', () => {
  let k = 0;
  for (const a of fx.attention) {
    const Q = fromFixture(a.Q);
    const K = fromFixture(a.K);
    const V = fromFixture(a.V);
    for (const c of a.cases) {
      const label = `attend ${a.name} scale=${c.scale} causal=${c.causal}`;
      const res = qkv.attend(asInput(Q, k), asInput(K, k + 1), asInput(V, k), { scale: c.scale, causal: c.causal });
      k++;
      checkAll(res, {
        scores: fromFixture(c.scores), weights: fromFixture(c.weights), output: fromFixture(c.output),
      }, label, ['scores', 'weights', 'output']);
      if (c.causal) assertCausalZeros(res.weights, label);
    }
  }
});

test('default options are { scale: true, causal: false }', () => {
  for (const a of fx.attention) {
    const c = a.cases.find((x) => x.scale === true && x.causal === false);
    const exp = { scores: fromFixture(c.scores), weights: fromFixture(c.weights), output: fromFixture(c.output) };
    const keys = ['scores', 'weights', 'output'];
    checkAll(qkv.selfAttention(fromFixture(a.X), fromFixture(a.Wq), fromFixture(a.Wk), fromFixture(a.Wv)),
      exp, `selfAttention ${a.name} defaults`, keys);
    checkAll(qkv.selfAttention(fromFixture(a.X), fromFixture(a.Wq), fromFixture(a.Wk), fromFixture(a.Wv), {}),
      exp, `selfAttention ${a.name} {}`, keys);
    checkAll(qkv.attend(fromFixture(a.Q), fromFixture(a.K), fromFixture(a.V)), exp, `attend ${a.name} defaults`, keys);
  }
});

test('attend({ outputs }) returns just the results asked for, each as the fixtures say and bit for bit as the full call', () => {
  const choices = [['output'], ['weights'], ['scores'], ['scores', 'output'], ['weights', 'scores'], ['output', 'weights', 'scores']];
  let t = 0;
  for (const a of fx.attention) {
    for (const c of a.cases) {
      const Q = fromFixture(a.Q), K = fromFixture(a.K), V = fromFixture(a.V);
      const outputs = choices[t++ % choices.length];
      const options = { scale: c.scale, causal: c.causal };
      const full = qkv.attend(Q, K, V, options);
      const res = qkv.attend(asInput(Q, t), asInput(K, t), asInput(V, t), { ...options, outputs });
      const label = `attend ${a.name} scale=${c.scale} causal=${c.causal} outputs ${outputs.join()}`;
      assert.deepEqual(Object.keys(res), outputs, `${label}: the keys, in the order asked`);
      checkAll(res, { scores: fromFixture(c.scores), weights: fromFixture(c.weights), output: fromFixture(c.output) }, label, outputs);
      for (const key of outputs) assert.deepEqual(res[key].data, full[key].data, `${label}: ${key} differs from the full call`);
    }
  }
  // more than 4 query rows (the kernel's work space is 4 rows of scores and weights), causal and not
  const g = qkv.rng(3);
  for (const [nq, nk] of [[5, 5], [9, 13], [33, 40], [130, 130]]) {
    const Q = g.randn(nq, 8), K = g.randn(nk, 8), V = g.randn(nk, 3);
    for (const causal of [false, true]) {
      const full = qkv.attend(Q, K, V, { causal });
      for (const outputs of choices) {
        const res = qkv.attend(Q, K, V, { causal, outputs });
        for (const key of outputs) assert.deepEqual(res[key].data, full[key].data, `${nq}×${nk} causal ${causal} outputs ${outputs}: ${key}`);
      }
    }
  }
});

test('attend({ outputs }) refuses what is not a non-empty list of distinct result names, naming it', () => {
  const I = [[1, 0], [0, 1]];
  for (const [k, [outputs, pattern]] of [
    [[], /^attend: outputs must be a non-empty array of result names \('scores', 'weights', 'output'\), got an empty array$/],
    ['output', /^attend: outputs must be a non-empty array of result names .*, got the string "output"$/],
    [null, /^attend: outputs must be a non-empty array .*, got null$/],
    [{ 0: 'output', length: 1 }, /^attend: outputs must be a non-empty array .*, got an object$/],
    [['out'], /^attend: outputs\[0\] is the string "out"; the results are 'scores', 'weights', 'output'$/],
    [['output', 'Weights'], /^attend: outputs\[1\] is the string "Weights"; the results are/],
    [['output', 7], /^attend: outputs\[1\] is 7; the results are/],
    [['output', 'output'], /^attend: outputs names 'output' twice$/],
    [new Proxy(['output'], { get: (t, k) => { if (k === '0') throw new Error('trap'); return t[k]; } }), /^attend: reading outputs threw Error: trap$/],
  ].entries()) {
    assert.throws(() => qkv.attend(I, I, I, { outputs }), (error) => error instanceof TypeError && pattern.test(error.message),
      `bad outputs number ${k}`);
  }
  assert.throws(() => qkv.attend(I, I, I, { output: ['output'] }), { name: 'TypeError', message: /^attend: unknown option "output"; the options are outputs, scale, causal$/ });
});

test('Matrix-like inputs with Float32Array data: a NaN or ±Infinity entry is named with its position, small or large', () => {
  for (const [rows, cols] of [[3, 4], [8, 8], [9, 8], [64, 64]]) {
    const good = () => ({ rows, cols, data: new Float32Array(rows * cols).fill(0.5) });
    for (const bad of [NaN, Infinity, -Infinity]) {
      for (const name of ['Q', 'K', 'V']) {
        const inputs = { Q: good(), K: good(), V: good() };
        const at = rows * cols - 2;  // row rows-1, column cols-2
        inputs[name].data[at] = bad;
        assert.throws(() => qkv.attend(inputs.Q, inputs.K, inputs.V, { outputs: ['output'] }),
          (error) => error instanceof RangeError && error.message === `attend: ${name}[${rows - 1}][${cols - 2}] is ${bad}; every entry must be a finite number`,
          `${rows}×${cols} ${name} with ${bad}`);
      }
    }
    // softmaxRows allows -Infinity (a mask) but not +Infinity, in both paths
    const S = good();
    S.data[1] = -Infinity;
    assert.equal(qkv.softmaxRows(S).get(0, 1), 0);
    S.data[2] = Infinity;
    assert.throws(() => qkv.softmaxRows(S), { name: 'RangeError', message: /^softmaxRows: S\[0\]\[2\] is Infinity/ });
  }
});

test('attend accepts Matrix results of earlier calls as inputs', () => {
  const a = fx.attention.find((x) => x.n === 5);
  const c = a.cases.find((x) => x.scale === 2.5 && x.causal === true);
  const r1 = qkv.selfAttention(fromFixture(a.X), fromFixture(a.Wq), fromFixture(a.Wk), fromFixture(a.Wv));
  const r2 = qkv.attend(r1.Q, r1.K, r1.V, { scale: 2.5, causal: true });
  checkAll(r2, { scores: fromFixture(c.scores), weights: fromFixture(c.weights), output: fromFixture(c.output) },
    'attend(Matrix results)', ['scores', 'weights', 'output']);
});

test('matmul reproduces the numpy fixtures', () => {
  fx.matmul.forEach((m, k) => {
    const C = fromFixture(m.C);
    const res = qkv.matmul(asInput(fromFixture(m.A), k), asInput(fromFixture(m.B), k + 1));
    assertMatrix(res, C.length, C[0].length, m.name);
    checkMatrix(res, C, tolFor(C), m.name);
  });
});

test('transpose reproduces the numpy fixtures exactly (float32 of the input)', () => {
  fx.transpose.forEach((t, k) => {
    // A transpose only moves numbers: the result must be exactly the float32 rounding of the input.
    const T = fromFixture(t.T).map((row) => row.map(Math.fround));
    const res = qkv.transpose(asInput(fromFixture(t.A), k));
    assertMatrix(res, T.length, T[0].length, t.name);
    checkMatrix(res, T, 0, t.name);
  });
});

test('softmaxRows reproduces the numpy fixtures (incl. ±1e4 and -Infinity entries)', () => {
  fx.softmax.forEach((s, k) => {
    const P = fromFixture(s.P);
    const res = qkv.softmaxRows(asInput(fromFixture(s.S), k));
    assertMatrix(res, P.length, P[0].length, s.name);
    checkMatrix(res, P, tolFor(P), s.name);
    for (const row of toNested(res)) for (const v of row) assert.ok(Number.isFinite(v), `${s.name}: non-finite ${v}`);
  });
});

test('softmaxRows with ±1e4 scores is exact (max-subtracted)', () => {
  // Uniform rows: exp(0) = 1 for every entry, so the weights are exactly 1/n.
  assert.deepEqual(qkv.softmaxRows([[1e4, 1e4]]).toArray(), [[0.5, 0.5]]);
  assert.deepEqual(qkv.softmaxRows([[-1e4, -1e4, -1e4, -1e4]]).toArray(), [[0.25, 0.25, 0.25, 0.25]]);
  // exp(-2e4) underflows to exactly 0.
  assert.deepEqual(qkv.softmaxRows([[1e4, -1e4], [-1e4, 1e4]]).toArray(), [[1, 0], [0, 1]]);
  // 1e4 - k and -1e4 + k are exact in float32, and so are their differences from the row max, so
  // a max-subtracting softmax gives bit-for-bit the softmax of the shifted row.
  const big = qkv.softmaxRows([[1e4, 1e4 - 1, 1e4 - 2], [-1e4, -1e4 + 1, -1e4 + 3]]).toArray();
  const shifted = qkv.softmaxRows([[0, -1, -2], [-3, -2, 0]]).toArray();
  assert.deepEqual(big, shifted, 'softmax(row + 1e4) must equal softmax(row) exactly');
  checkMatrix(big, [
    [0.6652409557748219, 0.24472847105479772, 0.09003057317038045],
    [0.04201006613406605, 0.11419519938459446, 0.8437947344813395],
  ], 1e-6, 'softmax of ±1e4 rows vs float64');
});

test('softmaxRows: -Infinity entries get weight exactly 0; an all -Infinity row is an error', () => {
  const S = [[0, -Infinity, 1], [-Infinity, -Infinity, 5], [2, -Infinity, -Infinity], [-1e4, -Infinity, 1e4]];
  const P = qkv.softmaxRows(S).toArray();
  for (let i = 0; i < S.length; i++) {
    for (let j = 0; j < S[i].length; j++) {
      if (S[i][j] === -Infinity) assert.ok(P[i][j] === 0, `[${i}][${j}] = ${P[i][j]}, must be exactly 0`);
    }
  }
  assert.deepEqual(P.slice(1), [[0, 0, 1], [1, 0, 0], [0, 0, 1]]);
  checkMatrix([P[0]], [[0.26894142136999516, 0, 0.7310585786300049]], 1e-6, 'softmax([0,-inf,1])');
  assert.throws(() => qkv.softmaxRows([[1, 2], [-Infinity, -Infinity]]), Error);
  assert.throws(() => qkv.softmaxRows([[-Infinity]]), Error);
});

test('shape mismatches and bad options are errors', () => {
  const A = [[1, 2, 3], [4, 5, 6]];
  assert.throws(() => qkv.matmul(A, A), Error, 'matmul 2x3 · 2x3');
  const X = [[1, 0], [0, 1], [1, 1]];
  const W = [[1, 0, 0], [0, 1, 0]];
  const Wbad = [[1, 0, 0], [0, 1, 0], [0, 0, 1]];
  assert.throws(() => qkv.selfAttention(X, Wbad, W, W), Error, 'Wq rows != X cols');
  const Q = [[1, 2], [3, 4]];
  assert.throws(() => qkv.attend(Q, [[1, 2, 3]], [[1]]), Error, 'K cols != Q cols');
  assert.throws(() => qkv.attend(Q, [[1, 2], [3, 4]], [[1, 2]]), Error, 'V rows != K rows');
  // scale must be false, true or a positive number.
  for (const scale of [0, -2, NaN]) {
    assert.throws(() => qkv.attend(Q, Q, Q, { scale }), Error, `scale ${scale}`);
  }
});

test('heapUsed() does not grow over repeated calls (no leaks, incl. error paths)', () => {
  const a = fx.attention.find((x) => x.n === 7);
  const args = [fromFixture(a.X), fromFixture(a.Wq), fromFixture(a.Wk), fromFixture(a.Wv)];
  const g = qkv.rng(3); // created once: whether a generator object holds heap memory is not tested here
  const round = () => {
    qkv.selfAttention(...args, { causal: true });
    qkv.attend(fromFixture(a.Q), fromFixture(a.K), fromFixture(a.V), { scale: false });
    qkv.matmul(args[0], args[1]);
    qkv.transpose(args[0]);
    qkv.softmaxRows([[0, -Infinity, 1e4]]);
    g.randn(5, 5);
    assert.throws(() => qkv.softmaxRows([[-Infinity, -Infinity]]));
    assert.throws(() => qkv.matmul(args[0], args[0]));
  };
  round();
  const h0 = qkv.heapUsed();
  assert.ok(Number.isFinite(h0) && h0 >= 0, `heapUsed() = ${h0}`);
  for (let i = 0; i < 25; i++) round();
  assert.equal(qkv.heapUsed(), h0, 'heap bytes in use after 25 more rounds');
});
