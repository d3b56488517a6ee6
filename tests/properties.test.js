// Algebraic properties of attention that must hold for any input, checked over random shapes
// and values (values from qkv.rng, shapes and permutations from a fixed JS PRNG).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'qkv-lab';
import { toNested, checkMatrix, maxAbs, mulberry32 } from './helpers.js';

const qkv = await load();

// Same float32-vs-reference reasoning as attention.test.js: 1e-5 relative to the magnitude.
const tolFor = (expected) => 1e-5 * Math.max(1, maxAbs(expected));

const pick = mulberry32(20240531);
const randInt = (lo, hi) => lo + Math.floor(pick() * (hi - lo + 1));
const SHAPES = [[1, 1, 1], [2, 1, 3], [16, 5, 3], [9, 16, 8]]; // (n, d, dk)
for (let k = 0; k < 6; k++) SHAPES.push([randInt(1, 12), randInt(1, 10), randInt(1, 8)]);

/** X ~ randn(n, d); W* ~ randn(d, dk) / sqrt(d), all from qkv.rng(seed). */
function problem(seed, n, d, dk) {
  const g = qkv.rng(seed);
  const X = g.randn(n, d);
  const w = () => {
    const m = g.randn(d, dk);
    for (let i = 0; i < m.data.length; i++) m.data[i] /= Math.sqrt(d);
    return m;
  };
  return { X, Wq: w(), Wk: w(), Wv: w() };
}

function permutation(n) {
  const p = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = randInt(0, i);
    [p[i], p[j]] = [p[j], p[i]];
  }
  return p;
}

const OPTIONS = [{}, { scale: false }, { scale: 2.5 }, { causal: true }, { scale: false, causal: true }];

test('weight rows are probability distributions: entries in [0,1], rows sum to 1 within 1e-6', () => {
  SHAPES.forEach(([n, d, dk], s) => {
    const { X, Wq, Wk, Wv } = problem(100 + s, n, d, dk);
    for (const opt of OPTIONS) {
      const w = toNested(qkv.selfAttention(X, Wq, Wk, Wv, opt).weights);
      w.forEach((row, i) => {
        let sum = 0;
        for (const v of row) {
          assert.ok(v >= 0 && v <= 1, `shape ${n},${d},${dk} ${JSON.stringify(opt)}: weight ${v}`);
          sum += v;
        }
        assert.ok(Math.abs(sum - 1) <= 1e-6,
          `shape ${n},${d},${dk} ${JSON.stringify(opt)}: row ${i} sums to ${sum}`);
      });
    }
  });
});

test('Wq = Wk gives Q = K and a symmetric score matrix', () => {
  SHAPES.forEach(([n, d, dk], s) => {
    const { X, Wq, Wv } = problem(200 + s, n, d, dk);
    for (const scale of [false, true, 2.5]) {
      const r = qkv.selfAttention(X, Wq, Wq, Wv, { scale });
      const label = `shape ${n},${d},${dk} scale=${scale}`;
      checkMatrix(r.Q, toNested(r.K), 0, `${label}: Q vs K (same inputs, deterministic)`);
      const S = toNested(r.scores);
      const ST = S[0].map((_, j) => S.map((row) => row[j]));
      // Q·Qᵀ is symmetric; with identical dot-product order it is exact, allow 1e-6·max(1,|s|).
      checkMatrix(S, ST, { abs: 1e-6, rel: 1e-6 }, `${label}: scores vs scoresᵀ`);
    }
  });
});

test('permuting the rows of X permutes Q, K, V, output rows (and weights rows and columns) alike', () => {
  SHAPES.forEach(([n, d, dk], s) => {
    const { X, Wq, Wk, Wv } = problem(300 + s, n, d, dk);
    const p = permutation(n);
    const Xn = toNested(X);
    const Xp = p.map((i) => Xn[i]);
    for (const opt of [{}, { scale: false }, { scale: 2.5 }]) {
      const label = `shape ${n},${d},${dk} ${JSON.stringify(opt)} perm ${p}`;
      const r = qkv.selfAttention(X, Wq, Wk, Wv, opt);
      const rp = qkv.selfAttention(Xp, Wq, Wk, Wv, opt);
      for (const key of ['Q', 'K', 'V', 'output']) {
        const expected = p.map((i) => toNested(r[key])[i]);
        checkMatrix(rp[key], expected, tolFor(expected), `${label}: ${key}`);
      }
      const W = toNested(r.weights);
      const Wp = p.map((i) => p.map((j) => W[i][j]));
      checkMatrix(rp.weights, Wp, tolFor(Wp), `${label}: weights`);
    }
  });
});

test('causal mask: weights above the diagonal are exactly 0, first row is exactly [1, 0, …]', () => {
  SHAPES.forEach(([n, d, dk], s) => {
    const { X, Wq, Wk, Wv } = problem(400 + s, n, d, dk);
    for (const scale of [false, true, 2.5]) {
      const label = `shape ${n},${d},${dk} scale=${scale}`;
      const r = qkv.selfAttention(X, Wq, Wk, Wv, { scale, causal: true });
      const w = toNested(r.weights);
      for (let i = 0; i < n; i++) {
        for (let j = i + 1; j < n; j++) {
          assert.ok(w[i][j] === 0, `${label}: weights[${i}][${j}] = ${w[i][j]}, must be exactly 0`);
        }
      }
      assert.ok(w[0][0] === 1, `${label}: weights[0][0] = ${w[0][0]}, must be exactly 1`);
      // so the first output row is exactly the first value row
      assert.deepEqual(toNested(r.output)[0], toNested(r.V)[0], `${label}: output row 0 = V row 0`);
    }
  });
});

test('causal mask: changing the last word does not change earlier outputs', () => {
  SHAPES.filter(([n]) => n >= 2).forEach(([n, d, dk], s) => {
    const { X, Wq, Wk, Wv } = problem(500 + s, n, d, dk);
    const Xn = toNested(X);
    const X2 = Xn.map((row, i) => (i === n - 1 ? row.map((v) => v + 3) : row));
    const a = toNested(qkv.selfAttention(X, Wq, Wk, Wv, { causal: true }).output).slice(0, n - 1);
    const b = qkv.selfAttention(X2, Wq, Wk, Wv, { causal: true }).output;
    checkMatrix(toNested(b).slice(0, n - 1), a, tolFor(a), `shape ${n},${d},${dk}: rows before the last`);
  });
});

test('scale: true means sqrt(d_k), scale: false means 1', () => {
  SHAPES.forEach(([n, d, dk], s) => {
    const { X, Wq, Wk, Wv } = problem(600 + s, n, d, dk);
    const pairs = [[{ scale: true }, { scale: Math.sqrt(dk) }], [{ scale: false }, { scale: 1 }]];
    for (const [o1, o2] of pairs) {
      const r1 = qkv.selfAttention(X, Wq, Wk, Wv, o1);
      const r2 = qkv.selfAttention(X, Wq, Wk, Wv, o2);
      for (const key of ['scores', 'weights', 'output']) {
        const e = toNested(r2[key]);
        checkMatrix(r1[key], e, tolFor(e), `shape ${n},${d},${dk} ${JSON.stringify(o1)} vs ${JSON.stringify(o2)}: ${key}`);
      }
    }
  });
});
