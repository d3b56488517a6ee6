// The article's worked example, "我 love 猫" (《从零构建 Transformer》第 2 章, self-attention):
// every number it prints must come out of qkv-lab, to the 3 decimals it prints.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'qkv-lab';
import { toNested, assertMatrix } from './helpers.js';

const qkv = await load();

// The article prints numpy's default 3-decimal rounding, so the true value lies within 0.0005
// of the printed one; 1e-6 more absorbs float32 arithmetic (the closest call is
// V[1][2] = -0.087508..., printed -0.088, 0.000492 away).
const PRINT_TOL = 0.0005 + 1e-6;

function checkPrinted(actual, printed, label) {
  const a = toNested(actual);
  assert.equal(a.length, printed.length, `${label}: rows`);
  printed.forEach((row, i) => {
    assert.equal(a[i].length, row.length, `${label}: row ${i} length`);
    row.forEach((p, j) => {
      const d = Math.abs(a[i][j] - p);
      assert.ok(d <= PRINT_TOL,
        `${label}[${i}][${j}]: actual ${a[i][j]}, article prints ${p} (|diff| ${d} > ${PRINT_TOL})`);
    });
  });
}

// 第一步: X, 3 words × 4 dims
const X = [
  [1.0, 0.0, 0.0, 0.0], // 我
  [0.0, 1.0, 0.0, 0.0], // love
  [0.0, 0.0, 1.0, 0.2], // 猫
];

// 第二步: np.random.seed(42); Wq, Wk, Wv = randn(4,3)*0.3, in that order, from one stream.
function articleWeights() {
  const g = qkv.rng(42);
  const scaled = () => {
    const m = g.randn(4, 3);
    for (let i = 0; i < m.data.length; i++) m.data[i] *= 0.3; // float32 store, like the library
    return m;
  };
  const Wq = scaled();
  const Wk = scaled();
  const Wv = scaled();
  return { Wq, Wk, Wv };
}

// The numbers printed in the article (第三步 … 第六步), typed in from the text.
const PRINTED = {
  Q: [
    [0.149, -0.041, 0.194], //  我
    [0.457, -0.07, -0.07], //   love
    [0.506, 0.202, -0.169], //  猫
  ],
  K: [
    [0.073, -0.574, -0.517],
    [-0.169, -0.304, 0.094],
    [-0.286, -0.42, 0.354],
  ],
  V: [
    [-0.163, 0.033, -0.345],
    [0.113, -0.18, -0.088],
    [-0.244, 0.605, -0.077],
  ],
  scores: [ // 列: 我 love 猫
    [-0.066, +0.006, +0.044],
    [+0.110, -0.062, -0.126],
    [+0.008, -0.163, -0.290],
  ],
  weights: [ // 每行和为 1
    [0.313, 0.337, 0.35],
    [0.38, 0.32, 0.3],
    [0.387, 0.326, 0.287],
  ],
  output: [ // 上下文表示
    [-0.099, 0.161, -0.165],
    [-0.099, 0.137, -0.182],
    [-0.096, 0.128, -0.184],
  ],
};

test('article: Q, K, V, scores, weights and outputs match the printed values (no scaling)', () => {
  const { Wq, Wk, Wv } = articleWeights();
  // The chapter does not divide by sqrt(d_k) ("这一章先不除以 sqrt(d_k)"): scale: false.
  const r = qkv.selfAttention(X, Wq, Wk, Wv, { scale: false });
  for (const key of ['Q', 'K', 'V', 'scores', 'weights', 'output']) {
    assertMatrix(r[key], 3, 3, key);
    checkPrinted(r[key], PRINTED[key], key);
  }
});

test('article: the output keeps the number of words (3×4 input → 3×3 output)', () => {
  const { Wq, Wk, Wv } = articleWeights();
  const r = qkv.selfAttention(X, Wq, Wk, Wv, { scale: false });
  assertMatrix(r.output, 3, 3, 'output');
  assertMatrix(r.weights, 3, 3, 'weights');
});

test('article: "attention is learnable" — 我 attends to itself once its query is 5 × its key', () => {
  const { Wq, Wk, Wv } = articleWeights();
  const r = qkv.selfAttention(X, Wq, Wk, Wv, { scale: false });
  const K = toNested(r.K);
  const V = toNested(r.V);
  const Q = toNested(r.Q);

  // Before the change (printed: 改查询前 我 的注意力: [0.313 0.337 0.35 ]).
  checkPrinted([toNested(r.weights)[0]], [[0.313, 0.337, 0.35]], 'weights row 我 before');

  // Q_self = Q.copy(); Q_self[0,:] = K[0,:] * 5.0
  const Qself = Q.map((row) => row.slice());
  Qself[0] = K[0].map((v) => v * 5.0);

  // Computed exactly as the chapter's code does (softmax_rows(Q_self @ K.T), no scaling), row 0
  // is 0.873 / 0.076 / 0.052.
  const unscaled = qkv.attend(Qself, K, V, { scale: false });
  checkPrinted([toNested(unscaled.weights)[0]], [[0.873, 0.076, 0.052]], 'weights row 我 after, unscaled');

  // But the article prints 改查询后 我 的注意力: [0.695 0.169 0.136]. Those are the weights of the
  // SCALED scores, Q_self·Kᵀ / sqrt(3) (d_k = 3), although the chapter says it does not scale
  // until chapter 3 — the printed numbers evidently came from a scaled run. We test both: the
  // unscaled values above follow the chapter's code; the printed values below follow scale: true.
  // (The chapter summary also says the weight "jumps from 0.337 to 0.695"; 0.337 is 我→love, the
  // 我→我 weight before the change is 0.313.)
  const scaled = qkv.attend(Qself, K, V, { scale: true });
  checkPrinted([toNested(scaled.weights)[0]], [[0.695, 0.169, 0.136]], 'weights row 我 after, ÷√3 (printed)');
  const byNumber = qkv.attend(Qself, K, V, { scale: Math.sqrt(3) });
  checkPrinted([toNested(byNumber.weights)[0]], [[0.695, 0.169, 0.136]], 'weights row 我 after, scale: √3');

  // The other rows are untouched by changing row 0 of Q.
  checkPrinted(toNested(unscaled.weights).slice(1), PRINTED.weights.slice(1), 'weights rows love, 猫 after');
});
