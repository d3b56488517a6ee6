// gpt-block.test.js: qkv.transformerBlock against PyTorch's nn.TransformerEncoderLayer
// (norm_first, tanh-GELU, dropout 0, batch_first), with a causal mask and without, on heads 1–4
// and n 1–8 (tests/fixtures/torch.json, written by make_torch_fixtures.py in float64); the heads'
// Q, K, V and outputs against their definitions; and every bad input refused before anything is
// allocated.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { load } from 'qkv-lab';
import { checkMatrix, toNested, maxAbs, assertMatrix } from './helpers.js';

const qkv = await load({ gpt: true });
const fx = JSON.parse(readFileSync(new URL('./fixtures/torch.json', import.meta.url), 'utf8'));

// float32 against float64: every stage is a sum of at most max(d, hidden) = 64 products of
// O(1) numbers after a LayerNorm (entries of |x| <~ 4), so its rounding error is at most about
// 64 · 6e-8 · 4 ≈ 1.5e-5 in the worst case, and the block chains five such stages whose errors
// add (no stage amplifies: LN divides by a standard deviation near 1, softmax is 1-Lipschitz).
// 5e-5 relative to the magnitude of the tensor bounds that with room; the printed maxima are
// about 1e-6.
const tolFor = (expected) => 5e-5 * Math.max(1, maxAbs(expected));

test('transformerBlock equals PyTorch\'s pre-LN TransformerEncoderLayer (tanh GELU, causal and not)', () => {
  assert.ok(fx.cases.length >= 6);
  const heads = new Set(), ns = new Set();
  let worst = 0;
  for (const c of fx.cases) {
    heads.add(c.heads);
    ns.add(c.n);
    const w = c.weights;
    // vectors as plain arrays (the fixture's) in even cases, as 1×k matrices in odd ones
    const vec = (v) => (c.seed % 2 ? [v] : v);
    const weights = {
      ln1: { gamma: vec(w.ln1.gamma), beta: vec(w.ln1.beta) },
      attn: { ...w.attn, bq: vec(w.attn.bq), bk: vec(w.attn.bk), bv: vec(w.attn.bv), bo: vec(w.attn.bo) },
      ln2: { gamma: vec(w.ln2.gamma), beta: vec(w.ln2.beta) },
      mlp: { ...w.mlp, b1: vec(w.mlp.b1), b2: vec(w.mlp.b2) },
    };
    const out = qkv.transformerBlock(c.X, weights, { heads: c.heads, causal: c.causal });
    const e = c.expected;
    const pairs = [['ln1', out.ln1, e.ln1], ['attention', out.attention.output, e.attention],
      ['resid1', out.resid1, e.resid1], ['ln2', out.ln2, e.ln2], ['hidden', out.hidden, e.hidden],
      ['gelu', out.gelu, e.gelu], ['mlp', out.mlp, e.mlp], ['output', out.output, e.output]];
    for (const [name, actual, expected] of pairs) {
      worst = Math.max(worst, checkMatrix(actual, expected, tolFor(expected), `${c.name} ${name}`) / Math.max(1, maxAbs(expected)));
    }
    assert.equal(out.attention.heads.length, c.heads);
    out.attention.heads.forEach((h, j) => {
      // weights are probabilities: 1e-6 is 16 float32 ulps at 1
      worst = Math.max(worst, checkMatrix(h.weights, e.heads[j].weights, 1e-6, `${c.name} head ${j} weights`));
      if (c.causal) {
        for (let i = 0; i < c.n; i++) for (let k = i + 1; k < c.n; k++) assert.equal(h.weights.get(i, k), 0);
      }
    });
  }
  assert.deepEqual([...heads].sort(), [1, 2, 3, 4]);
  assert.ok(Math.min(...ns) === 1 && Math.max(...ns) === 8);
  console.log(`transformerBlock vs PyTorch (float64), ${fx.cases.length} shapes: worst difference ${worst.toExponential(2)} of the magnitude`);
});

test('transformerBlock\'s heads are its Q, K, V columns, attended, and concatenated', () => {
  const c = fx.cases.find((x) => x.heads === 4);
  const out = qkv.transformerBlock(c.X, c.weights, { heads: 4 });
  const d = c.d, dk = d / 4;
  const Q = qkv.matmul(out.ln1, c.weights.attn.Wq);
  out.attention.heads.forEach((h, j) => {
    assertMatrix(h.Q, c.n, dk, `head ${j} Q`);
    const expected = toNested(Q).map((row) => row.slice(j * dk, (j + 1) * dk).map((v, k) => v + c.weights.attn.bq[j * dk + k]));
    checkMatrix(h.Q, expected, 1e-5, `head ${j} Q = ln1·Wq + bq, columns ${j * dk}…`);
    // scores are raw Q·Kᵀ (unscaled, unmasked), as attend() returns them
    const scores = qkv.matmul(h.Q, qkv.transpose(h.K));
    checkMatrix(h.scores, toNested(scores), 1e-5, `head ${j} scores`);
    const att = qkv.attend(h.Q, h.K, h.V, { causal: true });
    checkMatrix(h.output, toNested(att.output), 1e-6, `head ${j} output`);
    const concatPart = toNested(out.attention.concat).map((row) => row.slice(j * dk, (j + 1) * dk));
    checkMatrix(h.output, concatPart, 0, `head ${j} in concat`);
  });
});

test('transformerBlock refuses bad inputs with errors naming the value and the limit', () => {
  const c = fx.cases.find((x) => x.heads === 2 && x.d === 8);
  const base = qkv.heapUsed();
  const w = c.weights;
  const again = (patch) => ({ ...w, ...patch });
  const cases = [
    [() => qkv.transformerBlock(c.X, w, { heads: 3 }), RangeError, /heads is 3, which does not divide d = 8/],
    [() => qkv.transformerBlock(c.X, w, { heads: 0 }), RangeError, /heads must be an integer from 1 to d = 8.*got 0/],
    [() => qkv.transformerBlock(c.X, w, {}), TypeError, /heads must be an integer/],
    [() => qkv.transformerBlock(c.X, w, { heads: 2, eps: 0 }), RangeError, /eps must be a positive/],
    [() => qkv.transformerBlock(c.X, w, { heads: 2, causal: 1 }), TypeError, /causal must be true or false/],
    [() => qkv.transformerBlock(c.X, w, { heads: 2, dropout: 0.1 }), TypeError, /unknown option "dropout"/],
    [() => qkv.transformerBlock(c.X, again({ mlp: { ...w.mlp, b1: w.mlp.b1.slice(1) } }), { heads: 2 }), RangeError,
      /weights\.mlp\.b1 has 31 entries; it must have 32/],
    [() => qkv.transformerBlock(c.X, again({ attn: { ...w.attn, Wo: w.mlp.W1 } }), { heads: 2 }), RangeError,
      /weights\.attn\.Wo is 8×32.*must be 8×8/],
    [() => qkv.transformerBlock(c.X, again({ ln2: { gamma: w.ln2.gamma } }), { heads: 2 }), TypeError, /weights\.ln2\.beta is missing/],
    [() => qkv.transformerBlock(c.X, { ln1: w.ln1, attn: w.attn, ln2: w.ln2 }, { heads: 2 }), TypeError, /weights\.mlp is missing/],
    [() => qkv.transformerBlock(c.X, again({ ln1: { gamma: [...w.ln1.gamma.slice(1), NaN], beta: w.ln1.beta } }), { heads: 2 }),
      RangeError, /weights\.ln1\.gamma\[7\] is NaN/],
    [() => qkv.transformerBlock([[1, 2, 3]], w, { heads: 1 }), RangeError, /weights\.attn\.Wq is 8×8, but X is 1×3/],
  ];
  for (const [fn, Type, pattern] of cases) {
    assert.throws(fn, (error) => {
      assert.ok(error instanceof Type, `${Type.name} expected, got ${error.constructor.name}: ${error.message}`);
      assert.match(error.message, /^transformerBlock: /);
      assert.match(error.message, pattern);
      return true;
    });
    assert.equal(qkv.heapUsed(), base, 'nothing left allocated');
  }
});
