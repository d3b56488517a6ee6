// The two WebAssembly builds of the kernels, SIMD128 and scalar, must give the same numbers bit
// for bit: wasm/simd.h makes both do the same float operations in the same order. Shapes are
// chosen to hit every edge of the tiled kernels (widths around multiples of 4 and 8, single
// rows, causal masks), and the model trains identically on both. The rest of the suite runs
// against each build separately (QKV_LAB_SIMD=0 in tests/run-all.sh selects the scalar one).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load, simdSupported } from 'qkv-lab';
import { mulberry32 } from './helpers.js';

const skip = simdSupported() ? false : 'this engine has no WebAssembly SIMD128';
const simd = skip ? null : await load({ simd: true, fresh: true });
const scalar = await load({ simd: false, fresh: true });

function sameBits(a, b, label) {
  assert.equal(a.rows, b.rows, `${label}: rows`);
  assert.equal(a.cols, b.cols, `${label}: cols`);
  const x = new Uint32Array(a.data.buffer, a.data.byteOffset, a.data.length);
  const y = new Uint32Array(b.data.buffer, b.data.byteOffset, b.data.length);
  for (let i = 0; i < x.length; i++) {
    if (x[i] !== y[i]) {
      assert.fail(`${label}: entry [${Math.floor(i / a.cols)}][${i % a.cols}] differs: ` +
        `SIMD ${a.data[i]}, scalar ${b.data[i]}`);
    }
  }
}

const pick = mulberry32(77);
const SIDES = [1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 31, 33];
const side = () => SIDES[Math.floor(pick() * SIDES.length)];

test('load() reports which kernels run; load({ simd }) chooses', { skip }, () => {
  assert.equal(simd.simd, true);
  assert.equal(scalar.simd, false);
});

test('matmul, transpose and softmaxRows: SIMD and scalar agree bit for bit on edge shapes', { skip }, () => {
  for (let t = 0; t < 60; t++) {
    const n = side(), k = side(), m = side();
    const g1 = simd.rng(t), g2 = scalar.rng(t);
    const A1 = g1.randn(n, k), B1 = g1.randn(k, m);
    const A2 = g2.randn(n, k), B2 = g2.randn(k, m);
    sameBits(A1, A2, `randn ${n}×${k}`);
    sameBits(simd.matmul(A1, B1), scalar.matmul(A2, B2), `matmul ${n}×${k}·${k}×${m}`);
    sameBits(simd.transpose(A1), scalar.transpose(A2), `transpose ${n}×${k}`);
    const S = A1.toArray().map((row) => row.map((x, j) => (j % 3 === 1 ? -Infinity : 20 * x)));
    for (const row of S) row[0] = 0;
    sameBits(simd.softmaxRows(S), scalar.softmaxRows(S), `softmaxRows ${n}×${k}`);
  }
});

test('attend and selfAttention: SIMD and scalar agree bit for bit (scale none / √d_k / 3, causal)', { skip }, () => {
  for (let t = 0; t < 60; t++) {
    const n = side(), d = side(), dk = side(), dv = side();
    const g = scalar.rng(1000 + t);
    const X = g.randn(n, d), Wq = g.randn(d, dk), Wk = g.randn(d, dk), Wv = g.randn(d, dv);
    const options = [{ scale: false }, { scale: true }, { scale: 3, causal: true }, { causal: true }][t % 4];
    const a = simd.selfAttention(X, Wq, Wk, Wv, options);
    const b = scalar.selfAttention(X, Wq, Wk, Wv, options);
    for (const key of ['Q', 'K', 'V', 'scores', 'weights', 'output']) {
      sameBits(a[key], b[key], `selfAttention n=${n} d=${d} d_k=${dk} d_v=${dv} ${JSON.stringify(options)}: ${key}`);
    }
    const nq = Math.max(1, n - (t % 3));  // fewer queries than keys, too
    const Q = g.randn(nq, dk);
    const c = simd.attend(Q, a.K, a.V, options);
    const e = scalar.attend(Q, a.K, a.V, options);
    for (const key of ['scores', 'weights', 'output']) {
      sameBits(c[key], e[key], `attend ${nq}×${dk} over ${n} keys ${JSON.stringify(options)}: ${key}`);
    }
  }
});

test('the model trains identically on both builds (SGD and Adam, 60 steps)', { skip }, () => {
  for (const options of [{ seed: 3 }, { seed: 5, optimizer: 'adam', dim: 12 }]) {
    const a = simd.createModel(options);
    const b = scalar.createModel(options);
    try {
      assert.deepEqual(a.train(60), b.train(60), `losses ${JSON.stringify(options)}`);
      sameBits(a.embeddings(), b.embeddings(), `embeddings ${JSON.stringify(options)}`);
      sameBits(a.getParameter('Wq'), b.getParameter('Wq'), `Wq ${JSON.stringify(options)}`);
    } finally {
      a.dispose();
      b.dispose();
    }
  }
});

test('load() refuses unknown options and non-boolean simd', async () => {
  await assert.rejects(load({ simd: 'yes' }), TypeError);
  await assert.rejects(load({ threads: 2 }), /unknown option "threads"/);
  await assert.rejects(load(null), TypeError);
});

test('where the engine does not validate SIMD128, load() falls back to the scalar kernels', async () => {
  const validate = WebAssembly.validate;
  WebAssembly.validate = () => false;  // an engine without SIMD128, as far as feature detection can tell
  try {
    assert.equal(simdSupported(), false);
    const env = process.env.QKV_LAB_SIMD;
    delete process.env.QKV_LAB_SIMD;
    try {
      const qkv = await load({ fresh: true });
      assert.equal(qkv.simd, false);
      const { weights } = qkv.attend([[1, 0], [0, 1]], [[1, 0], [0, 1]], [[1], [2]]);
      assert.ok(Math.abs(weights.get(0, 0) - 1 / (1 + Math.exp(-1 / Math.SQRT2))) < 1e-6);
      await assert.rejects(load({ simd: true, fresh: true }), /does not run SIMD128/);
    } finally {
      if (env !== undefined) process.env.QKV_LAB_SIMD = env;
    }
  } finally {
    WebAssembly.validate = validate;
  }
});
