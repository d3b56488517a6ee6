// The two WebAssembly builds of the kernels, SIMD128 and scalar, must give the same numbers bit
// for bit: wasm/simd.h makes both do the same float operations in the same order. Shapes are
// chosen to hit every edge of the tiled kernels (widths around multiples of 4 and 8, single
// rows, causal masks), and the model trains identically on both. The rest of the suite runs
// against each build separately (QKV_LAB_SIMD=0 in tests/run-all.sh selects the scalar one).
//
// The third build, relaxed SIMD, multiplies and adds in one rounding where the processor can
// (f32x4.relaxed_madd): it cannot be bit-identical. Every build is held instead to the rounding
// error bound of its formulas against float64 references (errorBounds below; the README's
// "Performance" states it), and the relaxed build to twice that bound against the others. Node
// 20 validates relaxed SIMD only with --experimental-wasm-relaxed-simd: tests/run-all.sh runs
// this file once more with that flag, and without it those tests say why they skip.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load, simdSupported } from 'qkv-lab';
import { relaxed as relaxedBuilt } from '../web/dist/qkv-relaxed.js';
import { mulberry32 } from './helpers.js';
import { gamma, attentionBounds, worstRatio } from './error-bounds.js';

const skip = simdSupported() ? false : 'this engine has no WebAssembly SIMD128';
const simd = skip ? null : await load({ simd: true, fresh: true, model: true });
const scalar = await load({ simd: false, fresh: true, model: true });
const RELAXED_PROBE = Uint8Array.of(0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0,
  10, 19, 1, 17, 0, 65, 0, 253, 15, 65, 0, 253, 15, 65, 0, 253, 15, 253, 133, 2, 11);
const skipRelaxed = !relaxedBuilt ? 'this build has no relaxed-SIMD kernels (build.sh needs clang-16 and lld-16)'
  : !WebAssembly.validate(RELAXED_PROBE) ? 'this engine does not validate relaxed SIMD (Node 20: run with --experimental-wasm-relaxed-simd, as tests/run-all.sh does)'
    : false;
const relaxed = skipRelaxed ? null : await load({ kernels: 'relaxed-simd', fresh: true, model: true });
/** [name, instance] of every kernel build this engine runs (scalar first: the bit-exact reference) */
const BUILDS = [['scalar', scalar], ['simd128', simd], ['relaxed-simd', relaxed]].filter(([, lab]) => lab);
// the GPT kernels (GELU's loops, AdamW, the output layer's softmax: heap.gptKernels) come with the GPT engine
for (const [, lab] of BUILDS) await lab.loadGPTEngine();

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
  assert.equal(simd.kernels, 'simd128');
  assert.equal(scalar.simd, false);
  assert.equal(scalar.kernels, 'scalar');
});

test('load() takes the relaxed-SIMD kernels where the engine validates them; load({ kernels }) forces a build', { skip: skipRelaxed }, async () => {
  assert.equal(relaxed.kernels, 'relaxed-simd');
  assert.equal(relaxed.simd, true);
  const env = process.env.QKV_LAB_SIMD;
  delete process.env.QKV_LAB_SIMD;
  try {
    assert.equal((await load({ fresh: true })).kernels, 'relaxed-simd', 'the default is the fastest build');
    assert.equal((await load({ kernels: 'simd128', fresh: true })).kernels, 'simd128');
    assert.equal((await load({ kernels: 'scalar', fresh: true })).kernels, 'scalar');
    process.env.QKV_LAB_SIMD = '0';
    assert.equal((await load({ fresh: true })).kernels, 'scalar', 'QKV_LAB_SIMD=0 still forces scalar');
  } finally {
    if (env === undefined) delete process.env.QKV_LAB_SIMD;
    else process.env.QKV_LAB_SIMD = env;
  }
});

test('load({ kernels: \'relaxed-simd\' }) rejects, saying why, where the engine does not validate relaxed SIMD', async () => {
  const validate = WebAssembly.validate;
  WebAssembly.validate = (bytes) => !(bytes.length === RELAXED_PROBE.length && bytes.every((b, i) => b === RELAXED_PROBE[i])) && validate(bytes);
  try {
    await assert.rejects(load({ kernels: 'relaxed-simd', fresh: true }), { name: 'Error', message: /^load: this WebAssembly engine does not run relaxed SIMD \(Chrome ≥ 114 and Firefox ≥ 120 do; Node 20 with --experimental-wasm-relaxed-simd\); load\(\) takes the fastest build it runs$/ });
    const env = process.env.QKV_LAB_SIMD;
    delete process.env.QKV_LAB_SIMD;
    try {
      assert.equal((await load({ fresh: true })).kernels, simdSupported() ? 'simd128' : 'scalar', 'the default falls back');
    } finally {
      if (env !== undefined) process.env.QKV_LAB_SIMD = env;
    }
  } finally {
    WebAssembly.validate = validate;
  }
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

// the row's max runs on four accumulators in the SIMD builds, the scalar loop in order: where +0
// and -0 tie for the largest entry either may come out, and every output must still be the same
test('softmaxRows: rows whose largest entries are +0 and −0 give the same bits in every build', { skip }, () => {
  for (const cols of [5, 16, 37, 3644]) {
    const rows = [0, 1, 2, 3].map((r) => Array.from({ length: cols }, (_, j) => ((j + r) % 7 === 0 ? -0 : (j + 2 * r) % 5 === 0 ? 0 : -1 - ((j * 13 + r) % 11))));
    const want = scalar.softmaxRows(rows);
    sameBits(simd.softmaxRows(rows), want, `softmaxRows 4×${cols} with ±0 maxima (SIMD128)`);
    // relaxed SIMD (its own exp, within the bound): which zero wins must not matter either, so the
    // same rows with every zero's sign flipped give its same bits
    const flipped = rows.map((row) => row.map((x) => (x === 0 ? (Object.is(x, -0) ? 0 : -0) : x)));
    if (relaxed) sameBits(relaxed.softmaxRows(flipped), relaxed.softmaxRows(rows), `softmaxRows 4×${cols}, zeros flipped (relaxed SIMD)`);
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

// ---- the error bound every build meets, and the relaxed build's distance from the others ----
// (the bound: tests/error-bounds.js)
const BOUND_CASES = [[3, 4, 4, false, 1], [5, 7, 9, true, Math.sqrt(7)], [33, 16, 17, false, 4], [64, 64, 64, false, 8],
  [17, 31, 15, true, 3], [128, 64, 64, true, 8], [9, 100, 3, false, 0.5]];

for (const [name, lab, why] of [['simd128', simd, skip], ['scalar', scalar, false], ['relaxed-simd', relaxed, skipRelaxed]]) {
  test(`${name} kernels: attend within the float32 error bound of float64 references (scores, weights, output)`, { skip: why }, () => {
    const seen = { scores: 0, weights: 0, output: 0 };
    for (const [t, [n, dk, dv, causal, scale]] of BOUND_CASES.entries()) {
      const g = scalar.rng(500 + t);
      // entries of 3·N(0,1): rows with one weight near 1 and rows spread wide both occur
      const Q = g.randn(n, dk).scale(3), K = g.randn(n, dk).scale(3), V = g.randn(n, dv);
      const result = lab.attend(Q, K, V, { scale, causal });
      const bounds = attentionBounds(Q, K, V, scale, causal);
      for (const key of ['scores', 'weights', 'output']) {
        seen[key] = Math.max(seen[key], worstRatio(result[key], bounds[key], `${name} attend ${n}×${dk}, d_v ${dv}, scale ${scale}, causal ${causal}: ${key}`));
      }
    }
    console.log(`${name}: largest error ÷ bound: scores ${seen.scores.toFixed(3)}, weights ${seen.weights.toFixed(3)}, output ${seen.output.toFixed(3)}`);
  });
}

test('relaxed-simd kernels: within twice the error bound of the SIMD128 and scalar builds; matmul within γ(k)·Σ|a·b| of float64', { skip: skipRelaxed }, () => {
  let differ = 0, total = 0, largest = 0;
  for (const [t, [n, dk, dv, causal, scale]] of BOUND_CASES.entries()) {
    const g = scalar.rng(700 + t);
    const Q = g.randn(n, dk).scale(3), K = g.randn(n, dk).scale(3), V = g.randn(n, dv);
    const options = { scale, causal };
    const fused = relaxed.attend(Q, K, V, options), plain = (simd || scalar).attend(Q, K, V, options);
    const bounds = attentionBounds(Q, K, V, scale, causal);
    for (const key of ['scores', 'weights', 'output']) {
      const [, bound] = bounds[key];
      for (let i = 0; i < bound.length; i++) {
        const gap = Math.abs(fused[key].data[i] - plain[key].data[i]);
        total++;
        if (gap !== 0) differ++;
        if (bound[i] > 0) largest = Math.max(largest, gap / bound[i]);
        assert.ok(gap <= 2 * bound[i], `${key} ${n}×${dk} entry ${i}: relaxed ${fused[key].data[i]}, SIMD128 ${plain[key].data[i]}, ` +
          `apart by ${gap.toExponential(3)}, beyond twice the bound ${(2 * bound[i]).toExponential(3)}`);
      }
    }
  }
  for (let t = 0; t < 30; t++) {
    const n = side(), k = side() * 3, m = side();
    const g = scalar.rng(900 + t);
    const A = g.randn(n, k), B = g.randn(k, m);
    const C = relaxed.matmul(A, B);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < m; j++) {
        let exact = 0, abs = 0;
        for (let p = 0; p < k; p++) { const x = A.data[i * k + p] * B.data[p * m + j]; exact += x; abs += Math.abs(x); }
        assert.ok(Math.abs(C.get(i, j) - exact) <= gamma(k) * abs, `relaxed matmul ${n}×${k}·${k}×${m} [${i}][${j}]: ${C.get(i, j)} vs ${exact}`);
      }
    }
  }
  // on a processor with FMA, V8 fuses: some entries differ from SIMD128 (on one without, none do)
  console.log(`relaxed-simd vs ${simd ? 'simd128' : 'scalar'}: ${differ} of ${total} entries differ; the largest difference is ${largest.toFixed(3)} of one build's bound`);
});

test('relaxed-simd kernels: the model trains as on the SIMD128 build, to float32 rounding (SGD, Adam, 60 steps)', { skip: skipRelaxed }, () => {
  for (const options of [{ seed: 3 }, { seed: 5, optimizer: 'adam', dim: 12 }]) {
    const a = relaxed.createModel(options), b = scalar.createModel(options);
    try {
      const la = a.train(60), lb = b.train(60);
      // 60 steps of rounding differences of a few ulps: losses agree to 1e-4 relative
      la.forEach((x, i) => assert.ok(Math.abs(x - lb[i]) <= 1e-4 * Math.abs(lb[i]), `${JSON.stringify(options)} step ${i}: loss ${x} vs ${lb[i]}`));
    } finally {
      a.dispose();
      b.dispose();
    }
  }
});

// ---- the three products training uses, through the kernels' raw exports (the GPT engine and the
// core call them; the API's matmul is only the first). The scalar build is the bit-exact reference:
// SIMD128 must give its bits, relaxed SIMD stay within γ(k+1)·(|c0| + Σ|a·b|) of float64 (k terms,
// plus the value accumulated into). Shapes: the edges of the 4 × 8 and 5 × 8 tiles and the 256-term blocks,
// and the GPT's output layer with one row and one column more (513 × 65 · 65 × 3644: a leftover
// row, a leftover term past 64, a last panel of 4 columns), and fewer than 4 rows across the
// one-row path's column blocks (2 × 6 · 6 × 1037: a block of 1,024, one of 8, 5 columns left, and
// 2 terms past the 4 it takes at a time); each at a 16-byte-aligned address and one float past it.
const PRODUCTS = [
  // name, what it computes, A's and B's shapes from (n, k, m), the reference entry (i, j)
  { name: 'matmul_forward', form: 'A·B', a: (n, k) => [n, k], b: (k, m) => [k, m], acc: false,
    term: (A, B, n, k, m, i, j, p) => A[i * k + p] * B[p * m + j] },
  { name: 'matmul_accumulate', form: 'C + A·B', a: (n, k) => [n, k], b: (k, m) => [k, m], acc: true,
    term: (A, B, n, k, m, i, j, p) => A[i * k + p] * B[p * m + j] },
  { name: 'matmul_abt', form: 'A·Bᵀ', a: (n, k) => [n, k], b: (k, m) => [m, k], acc: false,
    term: (A, B, n, k, m, i, j, p) => A[i * k + p] * B[j * k + p] },
  { name: 'matmul_atb', form: 'Aᵀ·B', a: (n, k) => [k, n], b: (k, m) => [k, m], acc: false,
    term: (A, B, n, k, m, i, j, p) => A[p * n + i] * B[p * m + j] },
  { name: 'matmul_atb_accumulate', form: 'C + Aᵀ·B', a: (n, k) => [k, n], b: (k, m) => [k, m], acc: true,
    term: (A, B, n, k, m, i, j, p) => A[p * n + i] * B[p * m + j] },
];
// [70, 300, 20]: Aᵀ·B packs A's blocks of 64 rows (the SIMD builds): a part block with full tiles and an edge, two k blocks
// [9, 300, 24] and [4, 257, 16]: the relaxed build's 5-row tiles with a last tile of 4 rows, and 4 rows alone (attention's
// blocks of 4 query rows), B read in place (rows of at most 256 floats)
const PRODUCT_SHAPES = [[1, 1, 1], [3, 5, 7], [4, 1, 8], [5, 300, 9], [9, 300, 24], [4, 257, 16], [17, 257, 33], [70, 300, 20], [513, 65, 3644], [2, 6, 1037]];

/**
 * place(values) → the address of a copy of `values` in mem, `offset` floats past an aligned
 * address (+4 floats of slack, so that the offset stays inside): the kernels on unaligned data.
 */
const placer = (heap, mem, offset) => (values) => {
  const p = mem.floats(values.length + 4) + 4 * offset;
  heap.writeFloats(p, values);
  return p;
};

/** Runs one product on one build: returns out (n × m) as a Float32Array copy. */
function runProduct(lab, product, [n, k, m], inputs, offset) {
  const heap = lab._heap, mem = heap.allocations(product.name);
  try {
    const place = placer(heap, mem, offset);
    const A = place(inputs.A), B = place(inputs.B), out = place(inputs.C);
    lab._heap.kernels[product.name](out, A, B, n, k, m);
    return heap.readFloats(out, n * m);
  } finally {
    mem.freeAll();
  }
}

function productInputs(product, [n, k, m], seed) {
  const random = mulberry32(seed);
  const fill = ([r, c]) => Float32Array.from({ length: r * c }, () => 2 * random() - 1);
  return { A: fill(product.a(n, k)), B: fill(product.b(k, m)), C: product.acc ? fill([n, m]) : new Float32Array(n * m) };
}

test('A·B, A·Bᵀ and Aᵀ·B kernels: SIMD128 gives the scalar build\'s bits on odd shapes, aligned and not', { skip }, () => {
  for (const product of PRODUCTS) {
    for (const [s, shape] of PRODUCT_SHAPES.entries()) {
      const inputs = productInputs(product, shape, 40 + s);
      for (const offset of [0, 1]) {
        const label = `${product.name} (${product.form}) ${shape.join('×')}${offset ? ', unaligned' : ''}`;
        const x = runProduct(simd, product, shape, inputs, offset), y = runProduct(scalar, product, shape, inputs, offset);
        const bx = new Uint32Array(x.buffer), by = new Uint32Array(y.buffer);
        const i = bx.findIndex((v, t) => v !== by[t]);
        if (i >= 0) assert.fail(`${label}: entry [${Math.floor(i / shape[2])}][${i % shape[2]}] differs: SIMD128 ${x[i]}, scalar ${y[i]}`);
      }
    }
  }
});

test('A·B, A·Bᵀ and Aᵀ·B kernels: relaxed SIMD within γ(k+1)·(|c0| + Σ|a·b|) of float64 on odd shapes, aligned and not', { skip: skipRelaxed }, () => {
  for (const product of PRODUCTS) {
    for (const [s, shape] of PRODUCT_SHAPES.entries()) {
      const [n, k, m] = shape;
      const inputs = productInputs(product, shape, 40 + s);
      // every row of the small shapes; of the large one every 64th and the last (the leftover row)
      const rows = Array.from({ length: n }, (_, i) => i).filter((i) => n < 64 || i % 64 === 0 || i === n - 1);
      for (const offset of [0, 1]) {
        const out = runProduct(relaxed, product, shape, inputs, offset);
        for (const i of rows) {
          for (let j = 0; j < m; j++) {
            const c0 = product.acc ? inputs.C[i * m + j] : 0;
            let exact = c0, abs = Math.abs(c0);
            for (let p = 0; p < k; p++) { const t = product.term(inputs.A, inputs.B, n, k, m, i, j, p); exact += t; abs += Math.abs(t); }
            const bound = gamma(k + 1) * abs;
            if (!(Math.abs(out[i * m + j] - exact) <= bound)) {
              assert.fail(`${product.name} (${product.form}) ${shape.join('×')}${offset ? ', unaligned' : ''} [${i}][${j}]: ` +
                `relaxed ${out[i * m + j]}, float64 ${exact}, off by ${Math.abs(out[i * m + j] - exact).toExponential(3)} beyond ${bound.toExponential(3)}`);
            }
          }
        }
      }
    }
  }
});

test('Aᵀ·B written gives the bits of Aᵀ·B added to zeros, in every build (the GPT writes its gradients rather than zeroing them)', () => {
  const written = PRODUCTS.find((p) => p.name === 'matmul_atb'), added = PRODUCTS.find((p) => p.name === 'matmul_atb_accumulate');
  for (const [build, lab] of BUILDS) {
    // no terms at all (k = 0: the written sum is +0), and inputs a third +0 and a third −0, so
    // that products of −0 occur: a sum of them starts at +0 in both (and adding to a zero gives +0)
    for (const [s, shape] of [...PRODUCT_SHAPES, [3, 0, 5], [5, 0, 9]].entries()) {
      const signed = (values) => values.map((v, i) => (i % 3 === 0 ? -0 : i % 3 === 1 ? 0 : v));
      const random = productInputs(written, shape, 60 + s);
      // C of ones for the written call: it must not be read (the zeroed buffers held +0)
      const inputs = { A: signed(random.A), B: signed(random.B), C: new Float32Array(shape[0] * shape[2]).fill(1) };
      const x = runProduct(lab, written, shape, inputs, s % 2);
      const y = runProduct(lab, added, shape, { ...inputs, C: new Float32Array(inputs.C.length) }, s % 2);
      const bx = new Uint32Array(x.buffer), by = new Uint32Array(y.buffer);
      const i = bx.findIndex((v, t) => v !== by[t]);
      if (i >= 0) assert.fail(`${build} ${shape.join('×')}: entry ${i} written ${x[i]}, added to zeros ${y[i]}`);
    }
  }
});

test('A·B kernels: a row alone gives the bits it gets among other rows, in every build (generation with and without the KV cache)', () => {
  // fewer than 4 rows skip the packed 4-row tiles: the columns past the last group of 4 must still
  // be summed as the packed panels sum them (fused in the relaxed build, as there)
  for (const [name, lab] of BUILDS) {
    for (const [k, m] of [[5, 13], [64, 3647], [300, 7]]) {
      const inputs = productInputs(PRODUCTS[0], [6, k, m], 7 + m);
      const all = runProduct(lab, PRODUCTS[0], [6, k, m], inputs, 0);
      for (const row of [0, 5]) {
        const one = runProduct(lab, PRODUCTS[0], [1, k, m], { A: inputs.A.slice(row * k, (row + 1) * k), B: inputs.B, C: inputs.C.slice(0, m) }, 1);
        const j = one.findIndex((x, c) => !Object.is(x, all[row * m + c]));
        if (j >= 0) assert.fail(`${name} matmul_forward 1×${k}·${k}×${m}: column ${j} is ${one[j]} alone, ${all[row * m + j]} as row ${row} of 6`);
      }
    }
  }
});

// ---- the softmax with the cross-entropy gradient (wasm/softmax_ce_kernel.c), which the GPT's step runs in
// the GPT kernels, at odd lengths and unaligned: it gives its build's softmaxRows bits (SIMD128: the
// scalar build's) and its gradient exactly (probs − onehot) / rows, rounded as float32. GELU's
// loops (wasm/gelu_kernel.c) are GPT kernels too: below, the same bits in every build.
function runElementwise(lab, inputs, offset) {
  const heap = lab._heap, k = heap.kernels, mem = heap.allocations('elementwise');
  try {
    const place = placer(heap, mem, offset);
    const { rows, cols, logits, targets } = inputs;
    const out = {};
    const pz = place(logits), pp = place(new Float32Array(rows * cols)), pdl = place(new Float32Array(rows * cols));
    const pt = mem.ints(rows), ptp = place(new Float32Array(rows));
    heap.writeInts(pt, targets);
    assert.equal(heap.gptKernels.softmax_crossentropy_rows(pp, pdl, ptp, pz, pt, rows, cols, 1 / rows), 0);
    out.probs = heap.readFloats(pp, rows * cols);
    out.dlogits = heap.readFloats(pdl, rows * cols);
    out.targetProbs = heap.readFloats(ptp, rows);
    // without probs (the training step's call): the exponentials pass through dlogits
    const pdl2 = place(new Float32Array(rows * cols).fill(NaN)), ptp2 = place(new Float32Array(rows));
    assert.equal(heap.gptKernels.softmax_crossentropy_rows(0, pdl2, ptp2, pz, pt, rows, cols, 1 / rows), 0);
    out.dlogitsAlone = heap.readFloats(pdl2, rows * cols);
    out.targetProbsAlone = heap.readFloats(ptp2, rows);
    assert.equal(k.softmax_rows_forward(pp, pz, rows, cols), 0);
    out.softmax = heap.readFloats(pp, rows * cols);
    return out;
  } finally {
    mem.freeAll();
  }
}

test('the softmax with its cross-entropy gradient gives its build\'s softmaxRows and (p − onehot) / rows in every build, with or without writing the probabilities', () => {
  const random = mulberry32(31);
  for (const [rows, cols] of [[1, 1], [3, 7], [5, 3647]]) {
    const fill = (n, scale) => Float32Array.from({ length: n }, () => scale * (2 * random() - 1));
    const inputs = { rows, cols, logits: fill(rows * cols, 8),
      targets: Int32Array.from({ length: rows }, () => Math.floor(random() * cols)) };
    for (const offset of [0, 1]) {
      const want = runElementwise(scalar, inputs, offset);
      for (const [name, lab] of BUILDS) {
        const got = lab === scalar ? want : runElementwise(lab, inputs, offset);
        assert.deepEqual(new Uint32Array(got.probs.buffer), new Uint32Array(got.softmax.buffer), `${name} softmax ${rows}×${cols}: as softmaxRows`);
        // without probs: the same dlogits, and each row's target probability, bit for bit
        assert.deepEqual(new Uint32Array(got.dlogitsAlone.buffer), new Uint32Array(got.dlogits.buffer), `${name} ${rows}×${cols}: dlogits without probs`);
        const targetProbs = Float32Array.from(inputs.targets, (t, i) => got.probs[i * cols + t]);
        assert.deepEqual(new Uint32Array(got.targetProbs.buffer), new Uint32Array(targetProbs.buffer), `${name} ${rows}×${cols}: target probabilities`);
        assert.deepEqual(new Uint32Array(got.targetProbsAlone.buffer), new Uint32Array(targetProbs.buffer), `${name} ${rows}×${cols}: target probabilities without probs`);
        const weight = Math.fround(1 / rows);
        got.dlogits.forEach((d, t) => {
          const i = Math.floor(t / cols), onehot = t % cols === inputs.targets[i] ? 1 : 0;
          if (!Object.is(d, Math.fround(weight * Math.fround(got.probs[t] - onehot)))) assert.fail(`${name} dlogits ${rows}×${cols} [${i}][${t % cols}]: ${d}`);
        });
        // SIMD128 = scalar bit for bit; the relaxed build's exp is fused (its bound: above)
        if (lab === relaxed) continue;
        for (const key of Object.keys(want)) {
          const a = new Uint32Array(got[key].buffer), b = new Uint32Array(want[key].buffer);
          const i = a.findIndex((v, t) => v !== b[t]);
          if (i >= 0) assert.fail(`${name} ${key} (${rows}×${cols}${offset ? ', unaligned' : ''}) entry ${i}: ${got[key][i]}, scalar ${want[key][i]}`);
        }
      }
    }
  }
});

// ---- GELU's loops (wasm/gelu_kernel.c), which the GPT's step runs in the GPT kernels: forward,
// bias + GELU in one pass, and backward written or accumulated, at odd lengths and unaligned. Each
// lane does the portable loop's float operations in its order, unfused in the relaxed build too, so
// all three builds give the scalar build's bits (held to PyTorch by gpt-block and gpt).
function runGelu(lab, inputs, offset) {
  const heap = lab._heap, k = heap.gptKernels, mem = heap.allocations('gelu');
  try {
    const place = placer(heap, mem, offset);
    const { rows, cols, x, bias, dout, dinp } = inputs, n = rows * cols;
    const px = place(x), pout = place(new Float32Array(n)), pb = place(bias), pd = place(dout);
    k.gelu_forward(pout, px, n);
    const forward = heap.readFloats(pout, n);
    const pin = place(x);
    k.bias_gelu_forward(pout, pin, pb, rows, cols);
    const biased = heap.readFloats(pout, n), summed = heap.readFloats(pin, n);
    const pw = place(new Float32Array(n));
    k.gelu_backward(pw, px, pd, n, 0);
    const written = heap.readFloats(pw, n);
    const pa = place(dinp);
    k.gelu_backward(pa, px, pd, n, 1);
    const accumulated = heap.readFloats(pa, n);
    // the training step's way: the forward keeps each tanh, backward reads it back
    const pt = place(new Float32Array(n)), pk = place(new Float32Array(n));
    k.gelu_forward(pk, px, n, pt);
    const tanh = heap.readFloats(pt, n), forwardKeeping = heap.readFloats(pk, n);
    const pbk = place(x), ptb = place(new Float32Array(n));
    k.bias_gelu_forward(pk, pbk, pb, rows, cols, ptb);
    const biasedKeeping = heap.readFloats(pk, n), biasedTanh = heap.readFloats(ptb, n);
    const pwk = place(new Float32Array(n));
    k.gelu_backward(pwk, px, pd, n, 0, pt);
    const writtenFromTanh = heap.readFloats(pwk, n);
    const pak = place(dinp), pas = place(dinp);
    k.gelu_backward(pak, pbk, pd, n, 1, ptb);
    k.gelu_backward(pas, pbk, pd, n, 1);
    return { forward, biased, summed, written, accumulated, tanh, forwardKeeping, biasedKeeping, biasedTanh,
      writtenFromTanh, accumulatedFromTanh: heap.readFloats(pak, n), accumulatedOfSummed: heap.readFloats(pas, n) };
  } finally {
    mem.freeAll();
  }
}

test('GELU\'s kernels (forward, bias + GELU, backward written and accumulated) give the scalar build\'s bits in every build', () => {
  const random = mulberry32(47);
  // widths 12 and 15: rows that take both the eight-wide and the four-wide loop, then the scalar tail
  for (const [rows, cols] of [[1, 1], [3, 7], [2, 12], [3, 15], [2, 257], [64, 256]]) {
    const n = rows * cols;
    // wide inputs: both signs, |u| past the exp's underflow (tanh exactly ±1), and exact zeros
    const fill = (count, scale) => Float32Array.from({ length: count }, () => (random() < 0.05 ? 0 : scale * (2 * random() - 1)));
    const inputs = { rows, cols, x: fill(n, 12), bias: fill(cols, 2), dout: fill(n, 1), dinp: fill(n, 1) };
    for (const offset of [0, 1]) {
      const want = runGelu(scalar, inputs, offset);
      const where = `(${rows}×${cols}${offset ? ', unaligned' : ''})`;
      const firstDiff = (a, b) => { const x = new Uint32Array(a.buffer), y = new Uint32Array(b.buffer); return x.findIndex((v, t) => v !== y[t]); };
      // the scalar build against its definition: x + bias, rounded as float32, and GELU of the sum
      want.summed.forEach((v, t) => { if (!Object.is(v, Math.fround(inputs.x[t] + inputs.bias[t % cols]))) assert.fail(`scalar bias ${t}: ${v}`); });
      for (let t = 0; t < n; t++) {
        const g = 0.5 * want.summed[t] * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (want.summed[t] + 0.044715 * want.summed[t] ** 3)));
        if (!(Math.abs(want.biased[t] - g) <= 1e-6 * (1 + Math.abs(g)))) assert.fail(`scalar GELU(${want.summed[t]}) = ${want.biased[t]}, float64 ${g}`);
      }
      for (const [name, lab] of [['scalar', scalar], ['simd128', simd], ['relaxed-simd', relaxed]]) {
        if (!lab) continue;
        const got = lab === scalar ? want : runGelu(lab, inputs, offset);
        // keeping the tanh changes no output, and backward from the kept tanh gives the bits of
        // backward computing it again (each build against itself)
        for (const [a, b] of [['forwardKeeping', 'forward'], ['biasedKeeping', 'biased'], ['writtenFromTanh', 'written'], ['accumulatedFromTanh', 'accumulatedOfSummed']]) {
          const i = firstDiff(got[a], got[b]);
          if (i >= 0) assert.fail(`${name} ${a} ≠ ${b} ${where} entry ${i}: ${got[a][i]}, ${got[b][i]}`);
        }
        // and every output the scalar build's bits
        for (const key of Object.keys(want)) {
          const i = firstDiff(got[key], want[key]);
          if (i >= 0) assert.fail(`${name} ${key} ${where} entry ${i}: ${got[key][i]}, scalar ${want[key][i]}`);
        }
      }
    }
  }
});

// ---- AdamW over what the GPT trains (wasm/adamw_kernel.c): in place, every build the scalar
// build's bits, the scalar build adamw.h's formula rounded as float32 at each operation (a
// reference written here), and everything as it was when a new value would not be finite.
function runAdamw(lab, inputs, offset, hyper) {
  const heap = lab._heap, mem = heap.allocations('adamw');
  try {
    const place = placer(heap, mem, offset);
    const { p, m, v, grads, decay } = inputs, n = p.length;
    const pp = place(p), pm = place(m), pv = place(v), pg = place(grads);
    const pd = mem.bytes(n + 4) + offset;
    heap.writeBytes(pd, decay);
    const { lr, beta1, beta2, eps, wd, gscale, c1, c2 } = hyper;
    const old = place(new Float32Array(3 * n));
    const status = heap.gptKernels.adamw_step(pp, pm, pv, pg, pd, old, n, lr, beta1, beta2, eps, wd, gscale, c1, c2);
    return { status, p: heap.readFloats(pp, n), m: heap.readFloats(pm, n), v: heap.readFloats(pv, n), old: heap.readFloats(old, 3 * n) };
  } finally {
    mem.freeAll();
  }
}

test('AdamW\'s kernel: adamw.h\'s formula in float32, the same bits in every build, in place, and everything as it was when a value would not be finite', () => {
  const f = Math.fround, random = mulberry32(53);
  const hyper = { lr: f(3e-3), beta1: f(0.9), beta2: f(0.99), eps: f(1e-8), wd: f(0.01), gscale: f(0.37), c1: f(1 - 0.9 ** 3), c2: f(1 - 0.99 ** 3) };
  for (const n of [1, 7, 1029]) {
    const fill = (scale, positive) => Float32Array.from({ length: n }, () => (positive ? scale * random() : scale * (2 * random() - 1)));
    const inputs = { p: fill(1), m: fill(0.1), v: fill(0.01, true), grads: fill(2), decay: Uint8Array.from({ length: n }, () => (random() < 0.5 ? 1 : 0)) };
    // the reference: adamw.h's operations, each rounded to float32
    const h = hyper, want = { p: new Float32Array(n), m: new Float32Array(n), v: new Float32Array(n) };
    for (let i = 0; i < n; i++) {
      const g = f(inputs.grads[i] * h.gscale);
      const m = f(f(h.beta1 * inputs.m[i]) + f(f(1 - h.beta1) * g));
      const v = f(f(h.beta2 * inputs.v[i]) + f(f(f(1 - h.beta2) * g) * g));
      const step = f(f(f(m / h.c1) / f(f(Math.sqrt(f(v / h.c2))) + h.eps)) + (inputs.decay[i] ? f(h.wd * inputs.p[i]) : 0));
      want.p[i] = f(inputs.p[i] - f(h.lr * step)); want.m[i] = m; want.v[i] = v;
    }
    for (const offset of [0, 1]) {
      for (const [name, lab] of BUILDS) {
        const got = runAdamw(lab, inputs, offset, hyper);
        assert.equal(got.status, 0, `${name} n ${n}: committed`);
        assert.deepEqual(got.old, Float32Array.of(...inputs.p, ...inputs.m, ...inputs.v), `${name} n ${n}: the values replaced, kept`);
        for (const key of ['p', 'm', 'v']) {
          const i = got[key].findIndex((x, t) => !Object.is(x, want[key][t]));
          if (i >= 0) assert.fail(`${name} ${key} (n ${n}${offset ? ', unaligned' : ''}) entry ${i}: ${got[key][i]}, float32 formula ${want[key][i]}`);
        }
      }
    }
    // one value that would not be finite, first, in the middle or last: refused, what was written
    // before it put back. v' (a gradient whose square overflows float32), or p' alone (v' = 0 with
    // a large m': the step m^ / eps overflows while m' and v' stay finite)
    for (const [at, kind] of [[0, 'v'], [n >> 1, 'v'], [n - 1, 'v'], [0, 'p'], [n - 1, 'p']]) {
      const bad = { ...inputs, grads: Float32Array.from(inputs.grads), m: Float32Array.from(inputs.m), v: Float32Array.from(inputs.v) };
      if (kind === 'v') bad.grads[at] = 1e30;
      else { bad.grads[at] = 0; bad.v[at] = 0; bad.m[at] = 1e32; }
      for (const [name, lab] of BUILDS) {
        const got = runAdamw(lab, bad, 1, { ...hyper, gscale: 1 });
        assert.equal(got.status, 1, `${name} n ${n}, ${kind}' not finite at ${at}: refused`);
        for (const key of ['p', 'm', 'v']) assert.deepEqual(got[key], bad[key], `${name} n ${n}: ${key} unchanged`);
      }
    }
  }
});
