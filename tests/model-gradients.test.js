// The model's hand-written backward pass against central finite differences of its loss, for
// every parameter group: embedding, Wq, Wk, Wv, Wout, bout (positions are fixed sinusoids, not
// parameters, so they have no gradient to check).
//
// Tolerance: |numeric − analytic| ≤ 2e-5 + 1e-3·|analytic|, with h = 1e-2.
// The loss is computed from float32 activations and summed in double, so each evaluation
// carries a rounding error of a few 2^-24 × loss ≈ 3e-7 (loss ≈ 1–3 here); a central
// difference divides it by 2h = 2e-2, giving ≈ 1.5e-5 at worst. Truncation is h²/6 · |L'''|
// ≈ 2e-5 · |L'''|, below that for these smooth losses. The perturbation actually applied is
// fl32(p + h) − fl32(p − h), not 2h, and is used as the divisor. Measured worst errors at
// h = 1e-2 are 1e-6 to 4e-6 (1.4e-5 for Wout, whose entries reach 0.14) on gradients whose
// largest entries are 8e-3 to 0.14 (each group must exceed 5e-3, checked below, so the absolute
// term stays under 0.4 % of it): the bound has a 5–10× margin, while a real mistake (a missing
// 1/√d, a transposed product, a dropped residual, a wrong mean) is off by 10 % or more.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'qkv-lab';
import { checkMatrix, toNested } from './helpers.js';

const qkv = await load({ model: true });
const H = 1e-2;
const TOL = { abs: 2e-5, rel: 1e-3 };
const NAMES = ['embedding', 'Wq', 'Wk', 'Wv', 'Wout', 'bout'];

function numericGradient(model, name, sentences) {
  const P = model.getParameter(name);
  const grad = new Float32Array(P.data.length);
  for (let i = 0; i < P.data.length; i++) {
    const p = P.data[i];
    const plus = Math.fround(p + H), minus = Math.fround(p - H);
    P.data[i] = plus;
    model.setParameter(name, P);
    const lossPlus = model.loss(sentences);
    P.data[i] = minus;
    model.setParameter(name, P);
    const lossMinus = model.loss(sentences);
    P.data[i] = p;
    model.setParameter(name, P);
    grad[i] = (lossPlus - lossMinus) / (plus - minus);
  }
  return { rows: P.rows, cols: P.cols, data: grad };
}

const CASES = [
  // trained a little first, so attention weights are not near-uniform and every path matters
  { label: 'dim 4 after 20 SGD steps', corpus: ['一只 猫 在 叫', '我 养 了 一只 狗', '汽车 需要 加油', '苹 果'],
    options: { dim: 4, seed: 3 }, warmup: 20, sentences: ['一只 猫 在 叫', '我 养 了 一只 狗', '汽车 需要 加油'] },
  { label: 'dim 6 after 30 Adam steps', corpus: ['我 爱 吃 苹 果', '猫 很 可爱', '国王 统治 国家'],
    options: { dim: 6, seed: 11, optimizer: 'adam' }, warmup: 30, sentences: ['我 爱 吃 苹 果', '国王 统治 国家'] },
];

for (const c of CASES) {
  test(`finite differences match the backward pass: ${c.label}`, (t) => {
    const model = qkv.createModel({ corpus: c.corpus, ...c.options });
    try {
      model.train(c.warmup);
      const { loss, grads } = model.gradients(c.sentences);
      assert.ok(Number.isFinite(loss));
      for (const name of NAMES) {
        const analytic = grads[name];
        const numeric = numericGradient(model, name, c.sentences);
        let largest = 0;
        for (const g of analytic.data) largest = Math.max(largest, Math.abs(g));
        assert.ok(largest > 5e-3, `${name}: gradient too small (${largest}) for the check to mean anything`);
        const diff = checkMatrix(analytic, toNested(numeric), TOL, `d loss / d ${name}`);
        t.diagnostic(`${name}: max |numeric − analytic| = ${diff.toExponential(2)}, max |g| = ${largest.toExponential(2)}`);
      }
    } finally {
      model.dispose();
    }
  });
}

test('embedding rows of tokens outside the sentences get exactly zero gradient', () => {
  const model = qkv.createModel({ corpus: ['一只 猫 在 叫', '汽车 需要 加油'], dim: 5, seed: 2 });
  try {
    const { grads } = model.gradients(['一只 猫 在 叫']);
    const used = new Set([0, ...['一只', '猫', '在', '叫'].map((w) => model.vocab.indexOf(w))]);
    for (let r = 0; r < model.vocab.length; r++) {
      const row = grads.embedding.row(r);
      if (used.has(r)) assert.ok(row.some((x) => x !== 0), `row ${r} (${model.vocab[r]}) should have a gradient`);
      else assert.ok(row.every((x) => x === 0), `row ${r} (${model.vocab[r]}) is not in the sentence but has a gradient`);
    }
  } finally {
    model.dispose();
  }
});

test('the loss is the mean over predicted tokens: gradients of a batch are the token-weighted mean', () => {
  const model = qkv.createModel({ corpus: ['一只 猫 在 叫', '汽车 需要 加油'], dim: 4, seed: 5 });
  try {
    // sentence 1 predicts 5 tokens (4 words + <s>), sentence 2 predicts 4
    const a = model.gradients(['一只 猫 在 叫']);
    const b = model.gradients(['汽车 需要 加油']);
    const both = model.gradients(['一只 猫 在 叫', '汽车 需要 加油']);
    assert.ok(Math.abs(both.loss - (5 * a.loss + 4 * b.loss) / 9) < 1e-12);
    const expected = toNested({ rows: a.grads.Wq.rows, cols: a.grads.Wq.cols,
      data: a.grads.Wq.data.map((x, i) => (5 * x + 4 * b.grads.Wq.data[i]) / 9) });
    checkMatrix(both.grads.Wq, expected, { abs: 1e-7, rel: 1e-5 }, 'batch Wq gradient');
  } finally {
    model.dispose();
  }
});
