// heads-positions.test.js: the series' next chapters in the API. positionalEncoding and
// multiHeadAttention against numpy fixtures; the model's positions are positionalEncoding's table;
// one head with Wo = I is selfAttention itself; without positions, reordering the tokens only
// reorders the outputs (to float32 rounding), with them it does not; and every bad input gets a
// TypeError or RangeError that names the shapes and values, leaving the heap where it was.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'qkv-lab';
import { loadFixtures, fromFixture, toNested, checkMatrix, assertMatrix, maxAbs } from './helpers.js';

const qkv = await load({ model: true });
const fx = loadFixtures();

// Same float32-against-float64 reasoning as attention.test.js: 1e-5 relative to the magnitude.
const tolFor = (expected) => 1e-5 * Math.max(1, maxAbs(expected));

function throwsWith(fn, Type, pattern) {
  assert.throws(fn, (error) => {
    assert.ok(error instanceof Type, `expected ${Type.name}, got ${error.constructor.name}: ${error.message}`);
    assert.match(error.message, pattern);
    return true;
  });
}

test('positionalEncoding reproduces numpy for several n, d and base (odd d included)', () => {
  assert.ok(fx.positional.length >= 6);
  for (const { n, d, base, PE } of fx.positional) {
    const out = base === 10000 ? qkv.positionalEncoding(n, d) : qkv.positionalEncoding(n, d, { base });
    assertMatrix(out, n, d, `PE n=${n} d=${d} base=${base}`);
    // computed in double and rounded once to float32: |error| <= half an ulp of 1 (6e-8) plus
    // the double-precision difference between p·base^(-2i/d) and numpy's p / base^(2i/d), far
    // smaller; 2e-7 is about three float32 ulps at 1
    checkMatrix(out, PE, 2e-7, `PE n=${n} d=${d} base=${base}`);
  }
});

test('PE(p) · PE(p+k) depends on the offset k only', () => {
  const n = 40, d = 16, PE = qkv.positionalEncoding(n, d);
  const gram = toNested(qkv.matmul(PE, qkv.transpose(PE)));   // (n, n): PE(p) · PE(q)
  for (let k = 0; k < 12; k++) {
    const diagonal = Array.from({ length: n - k }, (_, p) => gram[p][p + k]);
    // float32 sums of 16 products of entries <= 1: a few 1e-7
    assert.ok(Math.max(...diagonal) - Math.min(...diagonal) < 2e-6, `offset ${k}: ${Math.min(...diagonal)} … ${Math.max(...diagonal)}`);
  }
  assert.ok(Math.abs(gram[0][0] - d / 2) < 1e-5);   // |PE(p)|² = d/2: one per sin-cos pair
});

test('the model adds exactly positionalEncoding(n, dim) (one table, shared in C)', () => {
  for (const dim of [16, 5]) {
    const model = qkv.createModel({ seed: 3, dim });
    try {
      const look = model.inspect('我 爱 吃 苹 果');
      const table = qkv.positionalEncoding(look.positions.rows, dim);
      assert.equal(look.positions.cols, dim);
      assert.deepEqual(Array.from(look.positions.data), Array.from(table.data));
    } finally {
      model.dispose();
    }
  }
});

test('multiHeadAttention reproduces every numpy fixture: heads 1, 2, 3, 4; scaled, unscaled, causal; d_out ≠ d_model', () => {
  let cases = 0;
  for (const m of fx.multihead) {
    const X = fromFixture(m.X);
    const W = { Wq: fromFixture(m.Wq), Wk: fromFixture(m.Wk), Wv: fromFixture(m.Wv), Wo: fromFixture(m.Wo) };
    for (const c of m.cases) {
      const label = `${m.name} heads=${c.heads} scale=${c.scale} causal=${c.causal}`;
      const res = qkv.multiHeadAttention(X, W, { heads: c.heads, scale: c.scale, causal: c.causal });
      const dk = m.d_model / c.heads;
      assert.equal(res.heads.length, c.heads, label);
      res.heads.forEach((head, h) => {
        const expected = c.heads_out[h];
        for (const key of ['Q', 'K', 'V', 'scores', 'weights', 'output']) {
          const e = fromFixture(expected[key]);
          assertMatrix(head[key], m.n, key === 'scores' || key === 'weights' ? m.n : dk, `${label} head ${h} ${key}`);
          checkMatrix(head[key], e, tolFor(e), `${label} head ${h} ${key}`);
        }
        if (c.causal) {
          const w = toNested(head.weights);
          for (let i = 0; i < m.n; i++) for (let j = i + 1; j < m.n; j++) assert.equal(w[i][j], 0, `${label} head ${h} [${i}][${j}]`);
        }
      });
      assertMatrix(res.concat, m.n, m.d_model, `${label} concat`);
      checkMatrix(res.concat, fromFixture(c.concat), tolFor(c.concat), `${label} concat`);
      assertMatrix(res.output, m.n, m.d_out, `${label} output`);
      checkMatrix(res.output, fromFixture(c.output), tolFor(c.output), `${label} output`);
      cases++;
    }
  }
  assert.ok(cases >= 30, `${cases} cases`);
});

test('heads = 1 with Wo = I is selfAttention, bit for bit', () => {
  const g = qkv.rng(7);
  for (const [n, d, dm] of [[3, 4, 3], [6, 5, 8], [1, 2, 2]]) {
    const X = g.randn(n, d), Wq = g.randn(d, dm), Wk = g.randn(d, dm), Wv = g.randn(d, dm);
    const I = Array.from({ length: dm }, (_, i) => Array.from({ length: dm }, (_, j) => +(i === j)));
    for (const options of [{}, { scale: false }, { causal: true }, { scale: 2.5 }]) {
      const one = qkv.selfAttention(X, Wq, Wk, Wv, options);
      const multi = qkv.multiHeadAttention(X, { Wq, Wk, Wv, Wo: I }, { heads: 1, ...options });
      const head = multi.heads[0];
      for (const [label, a, b] of [['Q', head.Q, one.Q], ['K', head.K, one.K], ['V', head.V, one.V],
        ['scores', head.scores, one.scores], ['weights', head.weights, one.weights],
        ['head output', head.output, one.output], ['concat', multi.concat, one.output], ['output', multi.output, one.output]]) {
        assert.deepEqual(Array.from(a.data), Array.from(b.data), `${n}×${d}, d_model ${dm}, ${JSON.stringify(options)}: ${label}`);
      }
    }
  }
});

test('the parameters do not depend on the number of heads; the heads split Q, K, V by columns', () => {
  const g = qkv.rng(11);
  const X = g.randn(4, 4), W = { Wq: g.randn(4, 12), Wk: g.randn(4, 12), Wv: g.randn(4, 12), Wo: g.randn(12, 4) };
  const Q = toNested(qkv.matmul(X, W.Wq));
  for (const heads of [1, 2, 3, 4, 6, 12]) {
    const res = qkv.multiHeadAttention(X, W, { heads });
    const dk = 12 / heads;
    res.heads.forEach((head, h) => {
      assert.deepEqual(toNested(head.Q), Q.map((row) => row.slice(h * dk, (h + 1) * dk)), `heads ${heads}, head ${h}`);
      // each head's output sits in its own columns of concat
      assert.deepEqual(toNested(head.output), toNested(res.concat).map((row) => row.slice(h * dk, (h + 1) * dk)));
    });
  }
});

/** X = E[ids] (+ PE): the first article's point, through the API. */
function sentence(order, withPositions) {
  const E = qkv.rng(42).randn(3, 4);                     // 我, 爱, 猫
  const X = order.map((id) => E.row(id));
  if (!withPositions) return X;
  const PE = qkv.positionalEncoding(order.length, 4);
  return X.map((row, p) => row.map((x, j) => Math.fround(x + PE.get(p, j))));
}

test('without positions, reordering the tokens only reorders the outputs; with them it does not', () => {
  const g = qkv.rng(5);
  const [Wq, Wk, Wv] = [g.randn(4, 3).scale(0.5), g.randn(4, 3).scale(0.5), g.randn(4, 3).scale(0.5)];
  const W = { Wq: g.randn(4, 4), Wk: g.randn(4, 4), Wv: g.randn(4, 4), Wo: g.randn(4, 4) };
  const forward = [0, 1, 2], backward = [2, 1, 0];   // 我 爱 猫 → 猫 爱 我
  const attend = {
    single: (X) => qkv.selfAttention(X, Wq, Wk, Wv).output,
    multi: (X) => qkv.multiHeadAttention(X, W, { heads: 2 }).output,
  };
  for (const [name, run] of Object.entries(attend)) {
    // row p of the reordered sentence is token backward[p]: the same row of the original output
    const a = toNested(run(sentence(forward, false))), b = toNested(run(sentence(backward, false)));
    let worst = 0;
    backward.forEach((id, p) => a[id].forEach((x, j) => { worst = Math.max(worst, Math.abs(x - b[p][j]) / Math.max(1, Math.abs(x))); }));
    // the same dot products in the same order; only each softmax row's sum is taken in another
    // order: a few float32 roundings (2^-24 ≈ 6e-8 each)
    assert.ok(worst < 1e-6, `${name}: without positions the rows differ by ${worst}`);
    const c = toNested(run(sentence(forward, true))), e = toNested(run(sentence(backward, true)));
    let moved = 0;
    backward.forEach((id, p) => c[id].forEach((x, j) => { moved = Math.max(moved, Math.abs(x - e[p][j])); }));
    assert.ok(moved > 1e-2, `${name}: with positions the outputs should no longer be a reordering (max difference ${moved})`);
  }
});

test('positionalEncoding refuses bad n, d and base, naming the value', () => {
  throwsWith(() => qkv.positionalEncoding(0, 4), RangeError, /positionalEncoding: n must be a positive integer up to 1048576, got 0/);
  throwsWith(() => qkv.positionalEncoding(2 ** 20 + 1, 1), RangeError, /n must be a positive integer up to 1048576, got 1048577/);
  throwsWith(() => qkv.positionalEncoding(2.5, 4), RangeError, /n must be a positive integer.*got 2\.5/);
  throwsWith(() => qkv.positionalEncoding('8', 4), TypeError, /n must be a positive integer.*got the string "8"/);
  throwsWith(() => qkv.positionalEncoding(8, -1), RangeError, /positionalEncoding: d must be a positive integer up to 16777216, got -1/);
  throwsWith(() => qkv.positionalEncoding(8), TypeError, /d must be a positive integer up to 16777216, got undefined/);
  throwsWith(() => qkv.positionalEncoding(2 ** 20, 2 ** 10), RangeError, /the table would be 1048576×1024, too large/);
  throwsWith(() => qkv.positionalEncoding(8, 4, { base: 1 }), RangeError, /base must be a finite number above 1 \(up to 1\.7976931348623157e\+308\), got 1$/);
  throwsWith(() => qkv.positionalEncoding(8, 4, { base: -5 }), RangeError, /got -5/);
  throwsWith(() => qkv.positionalEncoding(8, 4, { base: NaN }), RangeError, /got NaN/);
  throwsWith(() => qkv.positionalEncoding(8, 4, { base: Infinity }), RangeError, /got Infinity/);
  throwsWith(() => qkv.positionalEncoding(8, 4, { base: '100' }), TypeError, /base must be a number above 1, got the string "100"/);
  throwsWith(() => qkv.positionalEncoding(8, 4, { bsae: 100 }), TypeError, /unknown option "bsae"; the options are base/);
  throwsWith(() => qkv.positionalEncoding(8, 4, null), TypeError, /options must be an object/);
  throwsWith(() => qkv.positionalEncoding(8, 4, [1]), TypeError, /options must be an object/);
  // the rules every call follows (web/matrix.js): options a plain object, read once; -0 and
  // bigints named as they are
  throwsWith(() => qkv.positionalEncoding(8, 4, new Date(0)), TypeError, /positionalEncoding: options must be an object like \{ base: 10000 \} \(a plain object\), got a Date/);
  throwsWith(() => qkv.positionalEncoding(8, 4, { get base() { throw new Error('no'); } }), TypeError, /positionalEncoding: reading options threw Error: no/);
  throwsWith(() => qkv.positionalEncoding(-0, 4), RangeError, /n must be a positive integer up to 1048576, got -0/);
  throwsWith(() => qkv.positionalEncoding(8, 4, { base: 10n }), TypeError, /base must be a number above 1, got the bigint 10n/);
  throwsWith(() => qkv.positionalEncoding(8, 2 ** 24 + 1), RangeError, /d must be a positive integer up to 16777216, got 16777217/);
  assert.equal(qkv.positionalEncoding(2, 2, { base: Number.MAX_VALUE }).data[2], Math.fround(Math.sin(1)));
});

test('multiHeadAttention refuses bad shapes, heads and weights, naming shapes and values', () => {
  const X = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.2]];
  const W = (rows, cols) => Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => ((i + 2 * j) % 5) / 10));
  const good = { Wq: W(4, 12), Wk: W(4, 12), Wv: W(4, 12), Wo: W(12, 4) };
  const op = 'multiHeadAttention';
  assert.equal(qkv.multiHeadAttention(X, good, { heads: 3 }).heads.length, 3);
  throwsWith(() => qkv.multiHeadAttention(X, good, { heads: 5 }), RangeError,
    new RegExp(`^${op}: heads is 5, which does not divide d_model = 12 \\(Wq is 4×12\\)`));
  throwsWith(() => qkv.multiHeadAttention(X, good, { heads: 0 }), RangeError, /heads must be a positive integer up to 12, got 0/);
  throwsWith(() => qkv.multiHeadAttention(X, good, { heads: 24 }), RangeError, /heads must be a positive integer up to 12, got 24/);
  throwsWith(() => qkv.multiHeadAttention(X, good, { heads: 1.5 }), RangeError, /got 1\.5/);
  throwsWith(() => qkv.multiHeadAttention(X, good, {}), TypeError, /heads must be a positive integer up to 12, got undefined/);
  throwsWith(() => qkv.multiHeadAttention(X, good), TypeError, /heads must be a positive integer/);
  throwsWith(() => qkv.multiHeadAttention(X, good, { heads: '2' }), TypeError, /got the string "2"/);
  throwsWith(() => qkv.multiHeadAttention(X, { ...good, Wo: W(8, 4) }, { heads: 2 }), RangeError,
    /^multiHeadAttention: Wq is 4×12 but Wo is 8×4; Wo's rows must equal d_model = 12$/);
  throwsWith(() => qkv.multiHeadAttention(X, { ...good, Wk: W(4, 8) }, { heads: 2 }), RangeError,
    /^multiHeadAttention: Wq is 4×12 but Wk is 4×8; Wq, Wk and Wv must have the same columns \(d_model\)$/);
  throwsWith(() => qkv.multiHeadAttention(X, { ...good, Wv: W(3, 12) }, { heads: 2 }), RangeError,
    /^multiHeadAttention: X is 3×4 but Wv is 3×12; X's columns must equal Wv's rows$/);
  throwsWith(() => qkv.multiHeadAttention(X, { Wq: W(3, 12), Wk: W(3, 12), Wv: W(3, 12), Wo: W(12, 4) }, { heads: 2 }), RangeError,
    /X is 3×4 but Wq is 3×12/);
  throwsWith(() => qkv.multiHeadAttention(X, { Wq: good.Wq, Wk: good.Wk, Wv: good.Wv }, { heads: 2 }), TypeError,
    /multiHeadAttention: Wo must be a Matrix .* got undefined/);
  throwsWith(() => qkv.multiHeadAttention(X, { ...good, W_o: good.Wo }, { heads: 2 }), TypeError, /unknown weight "W_o"; the weights are Wq, Wk, Wv, Wo/);
  throwsWith(() => qkv.multiHeadAttention(X, [good.Wq, good.Wk, good.Wv, good.Wo], { heads: 2 }), TypeError, /weights must be an object like \{ Wq, Wk, Wv, Wo \} \(a plain object\), got an array/);
  throwsWith(() => qkv.multiHeadAttention(X, null, { heads: 2 }), TypeError, /weights must be an object/);
  throwsWith(() => qkv.multiHeadAttention(X, new Map(Object.entries(good)), { heads: 2 }), TypeError, /multiHeadAttention: weights must be an object like .*got a Map/);
  throwsWith(() => qkv.multiHeadAttention(X, { ...good, get Wo() { throw new Error('gone'); } }, { heads: 2 }), TypeError, /multiHeadAttention: reading weights threw Error: gone/);
  throwsWith(() => qkv.multiHeadAttention(X, { ...good, Wo: { rows: 12, cols: 4, data: new DataView(new ArrayBuffer(192)) } }, { heads: 2 }), TypeError,
    /multiHeadAttention: Wo\.data must be an array or a typed array of numbers, got a DataView/);
  throwsWith(() => qkv.multiHeadAttention(X, good, new (class Options { constructor() { this.heads = 2; } })()), TypeError,
    /multiHeadAttention: options must be an object like \{ heads: 2, scale: true, causal: false \} \(a plain object\), got an object/);
  throwsWith(() => qkv.multiHeadAttention(X, good, { heads: 2, scale: 1e-50 }), RangeError, /scale must be a positive finite number that float32 can hold .*got 1e-50/);
  throwsWith(() => qkv.multiHeadAttention(X, good, { heads: 2, scale: 1e39 }), RangeError, /got 1e\+39/);
  throwsWith(() => qkv.multiHeadAttention(X, good, { heads: 2 ** 40 }), RangeError, /heads must be a positive integer up to 12, got 1099511627776/);
  // sizes are checked before anything is allocated: n = 2^13 tokens would need 2^26 scores per head
  const long = { rows: 2 ** 13, cols: 1, data: new Float32Array(2 ** 13) };
  const one = { Wq: [[1, 1]], Wk: [[1, 1]], Wv: [[1, 1]], Wo: [[1], [1]] };
  throwsWith(() => qkv.multiHeadAttention(long, one, { heads: 2 }), RangeError, /multiHeadAttention: the score matrices would be 16384×8192, too large/);
  // and the work before anything runs: 4096 tokens in d_model = 64 take 2·4096²·64 = 2^31 multiply-adds,
  // and their 4 heads' scores and weights 4·4096² softmax entries and 2·4·4096² floats written
  const wide = { Wq: [Array(64).fill(1)], Wk: [Array(64).fill(1)], Wv: [Array(64).fill(1)], Wo: Array.from({ length: 64 }, () => [1]) };
  throwsWith(() => qkv.multiHeadAttention({ rows: 2 ** 12, cols: 1, data: new Float32Array(2 ** 12) }, wide, { heads: 4 }), RangeError,
    /^multiHeadAttention: multi-head attention of 4096 tokens would take [\d.e+]+ multiply-adds of work \(2\.15e\+9 multiply-adds \+ 6\.71e\+7 softmax entries × \d+ \+ 1\.36e\+8 floats copied or written × \d+\), more than the limit of 1073741824/);
  throwsWith(() => qkv.multiHeadAttention(X, good, { heads: 2, scaled: true }), TypeError, /unknown option "scaled"; the options are heads, scale, causal/);
  throwsWith(() => qkv.multiHeadAttention(X, good, { heads: 2, scale: 0 }), RangeError, /scale must be a positive finite number that float32 can hold \(1\.1754943508222875e-38 to 3\.4028234663852886e\+38\), got 0/);
  throwsWith(() => qkv.multiHeadAttention(X, good, { heads: 2, causal: 1 }), TypeError, /causal must be true or false, got 1/);
  throwsWith(() => qkv.multiHeadAttention([[1, NaN, 0, 0]], good, { heads: 2 }), RangeError, /multiHeadAttention: X\[0\]\[1\] is NaN/);
  throwsWith(() => qkv.multiHeadAttention(X, { ...good, Wo: [[Infinity, 0, 0, 0], ...W(11, 4)] }, { heads: 2 }), RangeError, /Wo\[0\]\[0\] is Infinity/);
  throwsWith(() => qkv.multiHeadAttention('X', good, { heads: 2 }), TypeError, /multiHeadAttention: X must be a Matrix/);
  // finite inputs whose products overflow float32 are refused by the C side, not returned as Infinity
  const huge = { Wq: W(4, 12).map((r) => r.map(() => 1e20)), Wk: W(4, 12).map((r) => r.map(() => 1e20)), Wv: good.Wv, Wo: good.Wo };
  throwsWith(() => qkv.multiHeadAttention(X, huge, { heads: 2 }), RangeError, /multiHeadAttention: a result is too large for float32/);
  // NaN written into a returned Matrix: named with its position, as for the other calls
  const X2 = qkv.rng(1).randn(3, 4);
  X2.data[5] = NaN;
  throwsWith(() => qkv.multiHeadAttention(X2, good, { heads: 2 }), RangeError, /multiHeadAttention: X\[1\]\[1\] is NaN/);
});

test('after every refusal the module works and the heap is where it was', () => {
  const X = [[1, 0], [0, 1]];
  const good = { Wq: [[1, 0], [0, 1]], Wk: [[1, 0], [0, 1]], Wv: [[1, 0], [0, 1]], Wo: [[1], [1]] };
  qkv.multiHeadAttention(X, good, { heads: 2 });
  qkv.positionalEncoding(3, 2);
  const before = qkv.heapUsed();
  for (let k = 0; k < 2000; k++) {
    assert.throws(() => qkv.multiHeadAttention(X, good, { heads: 3 }));
    assert.throws(() => qkv.multiHeadAttention(X, { ...good, Wq: [[1e30, 1e30], [1e30, 1e30]], Wk: [[1e30, 1e30], [1e30, 1e30]] }, { heads: 1 }));
    assert.throws(() => qkv.positionalEncoding(3, 2, { base: 0.5 }));
    qkv.multiHeadAttention(X, good, { heads: k % 2 + 1, causal: k % 3 === 0 });
    qkv.positionalEncoding(k % 50 + 1, k % 7 + 1);
  }
  assert.equal(qkv.heapUsed(), before);
  // a call larger than the scratch block allocates and frees its own
  qkv.positionalEncoding(4096, 64);
  qkv.multiHeadAttention(qkv.rng(2).randn(300, 8), { Wq: qkv.rng(3).randn(8, 16), Wk: qkv.rng(4).randn(8, 16), Wv: qkv.rng(5).randn(8, 16), Wo: qkv.rng(6).randn(16, 8) }, { heads: 4 });
  assert.equal(qkv.heapUsed(), before);
});
